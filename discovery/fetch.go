package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// Backend resource lists (kube-aggregator pkg/apiserver/handler_discovery.go).

// Fetcher sends one discovery request to the backend of a remote
// APIService. The aggregator implements it by serving req through the
// APIService's proxy handler, so the request gets the full proxy behaviour
// (service resolution, backend TLS, front-proxy headers) and the user that
// req's context carries (registry.UserFrom). req has a path only (no
// scheme or host). Do must honour ctx and return a response whose Body the
// caller closes; a 503 response or an error marks the backend Stale.
type Fetcher interface {
	Do(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error)
}

// FetcherFunc adapts a function to Fetcher.
type FetcherFunc func(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error)

// Do calls f.
func (f FetcherFunc) Do(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error) {
	return f(ctx, svc, req)
}

const (
	// DiscoveryAccept is the Accept header of the /apis request sent to a
	// backend (capture h-backend-aggregated/backend-*.discovery-requests.txt).
	DiscoveryAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	// DiscoveryUser is the user discovery requests are sent as; the /apis
	// request also carries the group system:masters, the legacy fallback
	// none.
	DiscoveryUser = "system:kube-aggregator"
	// maxDiscoveryBody bounds how much of a backend's answer is read.
	maxDiscoveryBody = 64 << 20
)

// backendCache is the last aggregated document a backend served.
type backendCache struct {
	// etag is the backend's ETag header, replayed as If-None-Match.
	etag string
	// gvs maps "<group>/<version>" to its resources as a JSON array (nil
	// when the version lists none).
	gvs map[string][]byte
}

// fetchOutcome is the result of fetching one backend.
type fetchOutcome struct {
	// err is set when the whole backend failed (no legacy fallback).
	err error
	// agg is set when the backend answered with aggregated discovery (200
	// or 304); only its group/versions with an APIService are used.
	agg map[string][]byte
	// cache replaces the backend's cache entry when non-nil; dropCache
	// deletes it (the backend stopped serving aggregated discovery).
	cache     *backendCache
	dropCache bool
	// legacy holds the fallback result per "<group>/<version>".
	legacy map[string]legacyOutcome
}

type legacyOutcome struct {
	resources []byte
	err       error
}

// Synced is closed once Run has fetched every backend known at its start.
// The aggregator's readiness waits for it, as kube-apiserver's
// apiservice-discovery-controller post-start hook does.
func (m *Manager) Synced() <-chan struct{} { return m.synced }

// Run keeps backend resources fresh until ctx is done: it first fetches
// every backend (then closes Synced), then refetches a backend whenever an
// Update or Set marks it, and every backend each RefreshInterval (with
// If-None-Match, so unchanged aggregated documents cost a 304). At most
// Workers backends are fetched at once; documents are rebuilt once per
// batch, and only when an entry changed.
func (m *Manager) Run(ctx context.Context) {
	tick, stop := m.opts.NewTicker(m.opts.RefreshInterval)
	defer stop()
	m.markAllDirty()
	m.processDirty(ctx)
	m.syncedOnce.Do(func() { close(m.synced) })
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			m.markAllDirty()
			m.processDirty(ctx)
		case <-m.wake:
			m.processDirty(ctx)
		}
	}
}

// Sync fetches every backend now, bounded by Workers, and rebuilds once if
// an entry changed. It returns when all fetches are done.
func (m *Manager) Sync(ctx context.Context) {
	m.markAllDirty()
	m.processDirty(ctx)
}

// Refresh fetches the backend of the APIService called name now (one fetch
// serves every APIService on that backend) and rebuilds if an entry
// changed. It returns the fetch error for that APIService, if any; nil for
// Local and unknown APIServices and for unavailable ones, which are not
// fetched.
func (m *Manager) Refresh(ctx context.Context, name string) error {
	m.mu.Lock()
	s := m.services[name]
	if s == nil || s.IsLocal() {
		m.mu.Unlock()
		return nil
	}
	key := keyOf(s)
	m.mu.Unlock()
	errs := m.fetchKeys(ctx, []serviceKey{key})
	return errs[name]
}

func (m *Manager) markAllDirty() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.services {
		if !s.IsLocal() {
			m.dirty[keyOf(s)] = struct{}{}
		}
	}
}

func (m *Manager) processDirty(ctx context.Context) {
	m.mu.Lock()
	keys := make([]serviceKey, 0, len(m.dirty))
	for k := range m.dirty {
		keys = append(keys, k)
	}
	m.mu.Unlock()
	if len(keys) > 0 {
		m.fetchKeys(ctx, keys)
	}
}

// fetchKeys fetches the given backends with at most Workers at once,
// applies the outcomes, rebuilds once if anything changed, and returns the
// fetch errors by APIService name.
func (m *Manager) fetchKeys(ctx context.Context, keys []serviceKey) map[string]error {
	// Index the available APIServices of the wanted backends in one pass.
	want := make(map[serviceKey][]APIService, len(keys))
	m.mu.Lock()
	for _, k := range keys {
		delete(m.dirty, k)
		want[k] = nil
	}
	for _, s := range m.services {
		if s.IsLocal() || !s.Available {
			continue
		}
		k := keyOf(s)
		if list, ok := want[k]; ok {
			want[k] = append(list, *s)
		}
	}
	cached := make(map[serviceKey]*backendCache, len(keys))
	for k := range want {
		cached[k] = m.backends[k]
	}
	m.mu.Unlock()

	var (
		wg      sync.WaitGroup
		changed atomic.Bool
		errMu   sync.Mutex
		errs    = map[string]error{}
	)
	sem := make(chan struct{}, m.opts.Workers)
	for k, svcs := range want {
		if len(svcs) == 0 {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, e := m.fetchKey(ctx, k, svcs, cached[k])
			if c {
				changed.Store(true)
			}
			if len(e) > 0 {
				errMu.Lock()
				for n, err := range e {
					errs[n] = err
				}
				errMu.Unlock()
			}
		}()
	}
	wg.Wait()
	if changed.Load() {
		m.mu.Lock()
		m.rebuildLocked()
		m.mu.Unlock()
	}
	return errs
}

// fetchKey fetches one backend for its available APIServices svcs and
// applies the outcome (without rebuilding). It reports whether an entry
// changed and the error per APIService name.
func (m *Manager) fetchKey(ctx context.Context, key serviceKey, svcs []APIService, cached *backendCache) (bool, map[string]error) {
	slices.SortFunc(svcs, func(a, b APIService) int { return compareStrings(a.Name, b.Name) })

	out := m.fetchBackend(ctx, key, svcs, cached)

	m.mu.Lock()
	defer m.mu.Unlock()
	errs := map[string]error{}
	changed := false
	stillUsed := false
	for i := range svcs {
		s := &svcs[i]
		cur := m.services[s.Name]
		if cur == nil || cur.IsLocal() || keyOf(cur) != key {
			continue
		}
		stillUsed = true
		if !cur.Available || cur.Group != s.Group || cur.Version != s.Version {
			continue // changed while fetching; its own update handled it
		}
		prev := m.results[s.Name]
		next := gvResult{freshness: FreshnessCurrent}
		var err error
		switch {
		case out.err != nil:
			err = out.err
		case out.agg != nil:
			next.resources = out.agg[s.gv()]
		default:
			lo := out.legacy[s.gv()]
			err = lo.err
			next.resources = lo.resources
		}
		if err != nil {
			errs[s.Name] = err
			next = gvResult{freshness: FreshnessStale}
			if prev != nil {
				next.resources = prev.resources
			}
		}
		if prev == nil || !prev.equal(&next) {
			m.results[s.Name] = &next
			changed = true
		}
	}
	if out.err != nil {
		m.logger.Info("discovery: fetch failed", "service", key.String(), "err", out.err)
	}
	for gv, lo := range out.legacy {
		if lo.err != nil {
			m.logger.Info("discovery: legacy fetch failed", "service", key.String(), "groupVersion", gv, "err", lo.err)
		}
	}
	// Keep the cache only while an APIService uses the backend (an update
	// during the fetch may have moved them all away; prune ran then).
	if stillUsed {
		switch {
		case out.cache != nil:
			m.backends[key] = out.cache
		case out.dropCache:
			delete(m.backends, key)
		}
	}
	return changed, errs
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fetchBackend asks a backend for its discovery the way kube-aggregator
// does: GET /apis for aggregated discovery (v2 or v2beta1) as
// system:kube-aggregator/system:masters, with If-None-Match when a
// previous answer is cached. A 304 reuses the cache; a 503 or a transport
// error fails the backend; an aggregated 200 is used directly; anything
// else falls back to GET /apis/<g>/<v> per APIService, as
// system:kube-aggregator with no groups.
func (m *Manager) fetchBackend(ctx context.Context, key serviceKey, svcs []APIService, cached *backendCache) fetchOutcome {
	if m.opts.Fetcher == nil {
		return fetchOutcome{err: errors.New("no discovery fetcher configured")}
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.FetchTimeout)
	defer cancel()

	uctx := request.WithUser(ctx, &authentication.UserInfo{Username: DiscoveryUser, Groups: []string{"system:masters"}})
	req, err := http.NewRequestWithContext(uctx, http.MethodGet, "/apis", nil)
	if err != nil {
		return fetchOutcome{err: err}
	}
	req.Header.Set("Accept", DiscoveryAccept)
	if cached != nil && cached.etag != "" {
		req.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := m.opts.Fetcher.Do(uctx, svcs[0], req)
	if err != nil {
		return fetchOutcome{err: fmt.Errorf("service %s: %w", key, err)}
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBody))
	_ = resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		return fetchOutcome{agg: cached.gvs}
	case resp.StatusCode == http.StatusServiceUnavailable:
		return fetchOutcome{err: fmt.Errorf("service %s returned non-success response code: %d", key, resp.StatusCode)}
	case resp.StatusCode == http.StatusOK && isAggregatedContentType(resp.Header.Get("Content-Type")):
		if readErr != nil {
			return fetchOutcome{err: fmt.Errorf("service %s: read discovery: %w", key, readErr)}
		}
		gvs, err := indexAggregated(body)
		if err != nil {
			return fetchOutcome{err: fmt.Errorf("service %s: %w", key, err)}
		}
		return fetchOutcome{agg: gvs, cache: &backendCache{etag: resp.Header.Get("Etag"), gvs: gvs}}
	}

	out := fetchOutcome{dropCache: true, legacy: make(map[string]legacyOutcome, len(svcs))}
	lctx := request.WithUser(ctx, &authentication.UserInfo{Username: DiscoveryUser})
	for i := range svcs {
		s := &svcs[i]
		if _, done := out.legacy[s.gv()]; done {
			continue
		}
		res, err := m.fetchLegacy(lctx, s)
		out.legacy[s.gv()] = legacyOutcome{resources: res, err: err}
	}
	return out
}

// fetchLegacy gets one APIResourceList and converts it.
func (m *Manager) fetchLegacy(ctx context.Context, s *APIService) ([]byte, error) {
	path := "/apis/" + s.Group + "/" + s.Version
	if s.Group == "" {
		path = "/api/" + s.Version
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.opts.Fetcher.Do(ctx, *s, req)
	if err != nil {
		return nil, fmt.Errorf("failed to download legacy discovery for %s: %w", path, err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBody))
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("failed to download legacy discovery for %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to download legacy discovery for %s: %s", path, body)
	}
	res, err := convertResourceListJSON(body)
	if err != nil {
		return nil, fmt.Errorf("legacy discovery for %s: %w", path, err)
	}
	return res, nil
}

// isAggregatedContentType reports whether a response Content-Type is
// application/json for apidiscovery.k8s.io v2 or v2beta1
// APIGroupDiscoveryList, parameters in any order.
func isAggregatedContentType(ct string) bool {
	base, params, err := mime.ParseMediaType(ct)
	if err != nil || base != "application/json" {
		return false
	}
	return params["g"] == "apidiscovery.k8s.io" && params["as"] == "APIGroupDiscoveryList" &&
		(params["v"] == "v2" || params["v"] == "v2beta1")
}

// indexAggregated decodes a backend's APIGroupDiscoveryList and encodes the
// resources of each group/version, replacing a missing responseKind with an
// empty one, as upstream does.
func indexAggregated(body []byte) (map[string][]byte, error) {
	var list APIGroupDiscoveryList
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decode aggregated discovery: %w", err)
	}
	gvs := map[string][]byte{}
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for i := range v.Resources {
				r := &v.Resources[i]
				if r.ResponseKind == nil {
					r.ResponseKind = &GroupVersionKind{}
				}
				for j := range r.Subresources {
					if r.Subresources[j].ResponseKind == nil {
						r.Subresources[j].ResponseKind = &GroupVersionKind{}
					}
				}
			}
			b, err := encodeResources(v.Resources)
			if err != nil {
				return nil, err
			}
			gvs[g.Metadata.Name+"/"+v.Version] = b
		}
	}
	return gvs, nil
}
