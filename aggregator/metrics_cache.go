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
// vectors. Safe for concurrent use: a sync.Map, whose lookups of a known
// series take no lock (the requests of both cores otherwise took turns on
// one read-lock counter).
type seriesCache[K comparable, V any] struct {
	m sync.Map     // K → V
	n atomic.Int32 // series stored in m
}

// get returns the cached children for k, or ok false.
func (c *seriesCache[K, V]) get(k K) (v V, ok bool) {
	x, ok := c.m.Load(k)
	if !ok {
		return v, false
	}
	return x.(V), true
}

// put caches v for k unless the cache is full (it may pass the bound by
// as many series as there are concurrent puts).
func (c *seriesCache[K, V]) put(k K, v V) {
	if c.n.Load() >= maxCachedSeries {
		return
	}
	if _, loaded := c.m.LoadOrStore(k, v); !loaded {
		c.n.Add(1)
	}
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
