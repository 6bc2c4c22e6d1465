package aggregator

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// maxCachedSeries bounds a seriesCache: label values come partly from
// requests (group, version, resource), and past the bound a lookup goes
// to the vector as before.
const maxCachedSeries = 4096

// seriesCache memoises the children of metric vectors by their label
// values, so that recording a request does not hash and compare its
// labels in client_golang (WithLabelValues: FNV over every byte, a lock,
// then a comparison of every value) on every request: the request
// metrics were a quarter of the chain's CPU for GET /apis (issue 21;
// BenchmarkChainServeAPIs). The children are the vectors' own, so
// /metrics reads the same series; nothing deletes series from these
// vectors. Safe for concurrent use: a lookup of a series known for a
// while reads an immutable map without a lock (the requests of both
// cores otherwise took turns on one read-lock counter); new series wait
// in a small locked map until there are enough of them to fold into a
// new immutable map (copies in all: a few times the final size).
type seriesCache[K comparable, V any] struct {
	stable atomic.Pointer[map[K]V] // never changed once stored
	mu     sync.Mutex              // guards recent and replacing stable
	recent map[K]V                 // series not yet in stable
}

// get returns the cached children for k, or ok false.
func (c *seriesCache[K, V]) get(k K) (v V, ok bool) {
	if m := c.stable.Load(); m != nil {
		if v, ok = (*m)[k]; ok {
			return v, true
		}
	}
	// Under the lock stable and recent are consistent: a fold may have
	// moved k from recent into a stable map newer than the one read above.
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.stable.Load(); m != nil {
		if v, ok = (*m)[k]; ok {
			return v, true
		}
	}
	v, ok = c.recent[k]
	return v, ok
}

// put caches v for k unless the cache is full.
func (c *seriesCache[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var stable map[K]V
	if p := c.stable.Load(); p != nil {
		stable = *p
	}
	if _, ok := stable[k]; ok || len(stable)+len(c.recent) >= maxCachedSeries {
		return
	}
	if c.recent == nil {
		c.recent = make(map[K]V)
	}
	c.recent[k] = v
	if len(c.recent) < len(stable)/4 { // folding at a quarter keeps the copies linear in all
		return
	}
	next := make(map[K]V, len(stable)+len(c.recent))
	for sk, sv := range stable {
		next[sk] = sv
	}
	for rk, rv := range c.recent {
		next[rk] = rv
	}
	c.stable.Store(&next)
	c.recent = nil
}

// requestSeries are the children of apiserver_request_duration_seconds
// (the first eight labels) and apiserver_request_total (all nine) for one
// label tuple.
type requestSeries struct {
	duration prometheus.Observer
	total    prometheus.Counter
}

// requestSeriesFor returns the request metrics' children for labels
// (verb, dry_run, group, version, resource, subresource, scope,
// component, code).
func (m *metrics) requestSeriesFor(labels [9]string) requestSeries {
	if s, ok := m.requestCache.get(labels); ok {
		return s
	}
	s := requestSeries{m.requestDuration.WithLabelValues(labels[:8]...), m.requests.WithLabelValues(labels[:]...)}
	m.requestCache.put(labels, s)
	return s
}

// proxySeries are the children of the proxy's request counter (by
// APIService and code) and duration histogram (by APIService).
type proxySeries struct {
	total    prometheus.Counter
	duration prometheus.Observer
}

// proxySeriesFor returns the proxy metrics' children for an APIService
// and a code label.
func (m *metrics) proxySeriesFor(apiService, code string) proxySeries {
	k := [2]string{apiService, code}
	if s, ok := m.proxyCache.get(k); ok {
		return s
	}
	s := proxySeries{m.proxyRequests.WithLabelValues(apiService, code), m.proxyDuration.WithLabelValues(apiService)}
	m.proxyCache.put(k, s)
	return s
}
