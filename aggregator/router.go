package aggregator

import (
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// muxShards is the number of immutable maps the route table is split into.
// A change copies one shard, so registering n routes costs O(n * n/muxShards)
// instead of O(n²) map copies.
const muxShards = 256

// route is what one path is registered as: an exact handler, a prefix
// handler, or both (upstream keeps two maps; one entry per path halves the
// lookups).
type route struct {
	exact  http.Handler
	prefix http.Handler
	// proxied marks the routes of a remote APIService: their handler
	// proxies to a backend (see Route).
	proxied bool
}

// muxTable is one immutable snapshot of the routing table. Nothing mutates a
// published muxTable; the writer copies what it changes and publishes a new
// one.
type muxTable struct {
	shards [muxShards]map[string]route
	// prefixLens[n] is true when at least one prefix of length n is
	// registered; len(prefixLens)-1 is the longest prefix. Lookups only probe
	// the map at those lengths, so a path of many slashes costs one byte scan.
	prefixLens []bool
	notFound   http.Handler
}

// Mux is the aggregator's path router, mirroring upstream's PathRecorderMux
// (k8s.io/apiserver/pkg/server/mux/pathrecorder.go): exact paths win over
// prefixes, the longest matching prefix wins, and anything else goes to the
// NotFound handler.
//
// The table is an immutable value swapped atomically on every change
// (copy-on-write under a writer mutex), so ServeHTTP takes no lock and a
// request never sees a half-built table. A lookup costs one map probe for
// the exact path plus one per registered prefix length that fits the path,
// independent of how many APIServices are registered, and allocates nothing.
//
// A Mux must not be copied after first use.
type Mux struct {
	seed   maphash.Seed
	logger *slog.Logger
	table  atomic.Pointer[muxTable]

	mu sync.Mutex // guards listed, prefixLenCount and every write of table
	// listed counts how many times each path was registered as listed
	// (Handle, HandlePrefix); ListedPaths repeats duplicates as upstream.
	listed         map[string]int
	prefixLenCount map[int]int
	// apiServices is the routing state of every APIService by name (see
	// SetAPIService); groupRefs counts the APIServices routing each
	// /apis/<group>; builtin holds the /apis/<g>/<v> paths aggsim serves
	// itself, which no remote APIService may take (see Builtin).
	apiServices map[string]APIServiceRoute
	groupRefs   map[string]int
	builtin     map[string]bool
	// legacy serves the /api tree while the v1. APIService is local (see
	// Legacy); nil until Legacy is called.
	legacy http.Handler
}

// APIServiceRoute is what the router serves for one APIService, as
// upstream's APIHandlerManager registers it (kube-aggregator
// pkg/apiserver/apiserver.go AddAPIService): Handler serves the
// /apis/<Group>/<Version> subtree (nil: the group is listed but nothing
// serves the version, as for a Local APIService of a group aggsim does not
// serve), Proxied says Handler proxies to a remote backend, and
// GroupHandler serves /apis/<Group> while any APIService of the group
// exists. The legacy core group (Group "") is the /api tree: see Legacy.
type APIServiceRoute struct {
	Name, Group, Version string
	Handler              http.Handler
	Proxied              bool
	GroupHandler         http.Handler
}

// NewMux returns an empty Mux whose NotFound handler is Go's
// http.NotFoundHandler (404 text/plain `404 page not found`, as
// kube-apiserver answers an unknown /apis/<group>). logger receives
// duplicate-registration messages; nil means slog.Default().
func NewMux(logger *slog.Logger) *Mux {
	if logger == nil {
		logger = slog.Default()
	}
	m := &Mux{
		seed:           maphash.MakeSeed(),
		logger:         logger,
		listed:         map[string]int{},
		prefixLenCount: map[int]int{},
		apiServices:    map[string]APIServiceRoute{},
		groupRefs:      map[string]int{},
		builtin:        map[string]bool{},
	}
	t := &muxTable{notFound: http.NotFoundHandler()}
	for i := range t.shards {
		t.shards[i] = map[string]route{}
	}
	m.table.Store(t)
	return m
}

func (m *Mux) shard(path string) int {
	return int(maphash.String(m.seed, path) % muxShards)
}

// MuxTx is a batch of changes applied by Mux.Update and published as one
// table swap. It is valid only inside the Update callback.
type MuxTx struct {
	m      *Mux
	t      *muxTable
	copied [muxShards]bool
	lens   bool
}

// Update runs fn with a transaction; all changes made through tx become
// visible to requests at once, when fn returns. Use it to register many
// routes (for example every APIService at start-up) with one copy of each
// touched shard. fn must not call other Mux methods (the writer lock is
// held).
func (m *Mux) Update(fn func(tx *MuxTx)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.table.Load()
	nt := *old
	tx := &MuxTx{m: m, t: &nt}
	fn(tx)
	if tx.lens {
		nt.prefixLens = m.buildPrefixLens()
	}
	m.table.Store(&nt)
}

func (m *Mux) buildPrefixLens() []bool {
	maxLen := -1
	for n := range m.prefixLenCount {
		if n > maxLen {
			maxLen = n
		}
	}
	lens := make([]bool, maxLen+1)
	for n := range m.prefixLenCount {
		lens[n] = true
	}
	return lens
}

// writable returns the (copied once per transaction) shard for path.
func (tx *MuxTx) writable(path string) map[string]route {
	i := tx.m.shard(path)
	if !tx.copied[i] {
		old := tx.t.shards[i]
		cp := make(map[string]route, len(old)+1)
		for k, v := range old {
			cp[k] = v
		}
		tx.t.shards[i] = cp
		tx.copied[i] = true
	}
	return tx.t.shards[i]
}

func (tx *MuxTx) set(path string, h http.Handler, prefix, listed bool) {
	tx.setRoute(path, h, prefix, listed, false)
}

func (tx *MuxTx) setRoute(path string, h http.Handler, prefix, listed, proxied bool) {
	if h == nil {
		panic(fmt.Sprintf("nil handler for %q", path))
	}
	if prefix && !strings.HasSuffix(path, "/") {
		panic(fmt.Sprintf("%q must end in a trailing slash", path))
	}
	sh := tx.writable(path)
	r := sh[path]
	if (prefix && r.prefix != nil) || (!prefix && r.exact != nil) {
		// Upstream logs and replaces instead of panicking.
		tx.m.logger.Warn(fmt.Sprintf("duplicate path registration of %q", path))
	}
	if prefix {
		if r.prefix == nil {
			tx.m.prefixLenCount[len(path)]++
			tx.lens = true
		}
		r.prefix = h
	} else {
		r.exact = h
	}
	r.proxied = proxied
	sh[path] = r
	if listed {
		tx.m.listed[path]++
	}
}

// Handle registers h for exactly path (listed in ListedPaths). `/a` does not
// match `/a/`. A second registration replaces the first and is logged.
func (tx *MuxTx) Handle(path string, h http.Handler) { tx.set(path, h, false, true) }

// UnlistedHandle is Handle without listing path in ListedPaths.
func (tx *MuxTx) UnlistedHandle(path string, h http.Handler) { tx.set(path, h, false, false) }

// HandlePrefix registers h for every path starting with prefix (listed).
// prefix must end in "/" (it panics otherwise, as upstream does); `/p/`
// matches `/p/` and `/p/x` but not `/p`.
func (tx *MuxTx) HandlePrefix(prefix string, h http.Handler) { tx.set(prefix, h, true, true) }

// UnlistedHandlePrefix is HandlePrefix without listing prefix.
func (tx *MuxTx) UnlistedHandlePrefix(prefix string, h http.Handler) {
	tx.set(prefix, h, true, false)
}

// Unregister removes both the exact and the prefix handler of path and one
// listing of it; unknown paths are ignored.
func (tx *MuxTx) Unregister(path string) {
	i := tx.m.shard(path)
	r, ok := tx.t.shards[i][path]
	if !ok {
		return
	}
	sh := tx.writable(path)
	delete(sh, path)
	if r.prefix != nil {
		if tx.m.prefixLenCount[len(path)]--; tx.m.prefixLenCount[len(path)] <= 0 {
			delete(tx.m.prefixLenCount, len(path))
		}
		tx.lens = true
	}
	if n := tx.m.listed[path]; n > 1 {
		tx.m.listed[path] = n - 1
	} else {
		delete(tx.m.listed, path)
	}
}

// NotFoundHandler sets the handler for unmatched paths; nil restores Go's
// http.NotFoundHandler.
func (tx *MuxTx) NotFoundHandler(h http.Handler) {
	if h == nil {
		h = http.NotFoundHandler()
	}
	tx.t.notFound = h
}

// Handle registers h for exactly path; see MuxTx.Handle.
func (m *Mux) Handle(path string, h http.Handler) { m.Update(func(tx *MuxTx) { tx.Handle(path, h) }) }

// HandleFunc registers f for exactly path; see MuxTx.Handle.
func (m *Mux) HandleFunc(path string, f func(http.ResponseWriter, *http.Request)) {
	m.Handle(path, http.HandlerFunc(f))
}

// UnlistedHandle registers h for exactly path without listing it.
func (m *Mux) UnlistedHandle(path string, h http.Handler) {
	m.Update(func(tx *MuxTx) { tx.UnlistedHandle(path, h) })
}

// HandlePrefix registers h for every path under prefix; see
// MuxTx.HandlePrefix. It panics if prefix does not end in "/".
func (m *Mux) HandlePrefix(prefix string, h http.Handler) {
	m.Update(func(tx *MuxTx) { tx.HandlePrefix(prefix, h) })
}

// UnlistedHandlePrefix registers h under prefix without listing it.
func (m *Mux) UnlistedHandlePrefix(prefix string, h http.Handler) {
	m.Update(func(tx *MuxTx) { tx.UnlistedHandlePrefix(prefix, h) })
}

// Unregister removes path's exact and prefix handlers; see MuxTx.Unregister.
func (m *Mux) Unregister(path string) { m.Update(func(tx *MuxTx) { tx.Unregister(path) }) }

// NotFoundHandler sets the handler for unmatched paths (nil: Go's default).
func (m *Mux) NotFoundHandler(h http.Handler) {
	m.Update(func(tx *MuxTx) { tx.NotFoundHandler(h) })
}

// ListedPaths returns the listed paths sorted, a path registered twice
// appearing twice, as upstream's ListedPaths does (used for the `/` index).
func (m *Mux) ListedPaths() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.listed))
	for p, n := range m.listed {
		for range n {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Handler returns the handler that would serve path and the pattern it was
// registered under ("" for the NotFound handler). It takes no lock and does
// not allocate.
func (m *Mux) Handler(path string) (h http.Handler, pattern string) {
	h, pattern, _ = m.lookup(path)
	return h, pattern
}

// Route returns the handler that serves r and whether it proxies to a
// remote APIService: the one routing decision of a request. The handler
// chain asks once, before its filters, and then serves that handler (see
// BuildHandlerChain), so nothing works the route out a second time.
func (m *Mux) Route(r *http.Request) (h http.Handler, proxied bool) {
	h, _, proxied = m.lookup(r.URL.Path)
	return h, proxied
}

// lookup is Handler plus the route's proxied flag.
func (m *Mux) lookup(path string) (h http.Handler, pattern string, proxied bool) {
	t := m.table.Load()
	r, ok := t.shards[m.shard(path)][path]
	if ok && r.exact != nil {
		return r.exact, path, r.proxied
	}
	if ok && r.prefix != nil {
		return r.prefix, path, r.proxied // a prefix "/p/" matches "/p/" itself
	}
	// Longer candidates have more slashes, so scanning the '/' boundaries from
	// the end finds upstream's winner (most slashes, then longest) first.
	end := len(path) - 2 // path itself was checked above
	if end > len(t.prefixLens)-2 {
		end = len(t.prefixLens) - 2
	}
	for i := end; i >= 0; i-- {
		if path[i] != '/' || !t.prefixLens[i+1] {
			continue
		}
		cand := path[:i+1]
		if r, ok := t.shards[m.shard(cand)][cand]; ok && r.prefix != nil {
			return r.prefix, cand, r.proxied
		}
	}
	return t.notFound, "", false
}

// ServeHTTP dispatches on r.URL.Path (the decoded path).
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, _, _ := m.lookup(r.URL.Path)
	h.ServeHTTP(w, r)
}

// Legacy registers h for the legacy core group's /api tree: /api, /api/
// and every path under /api/. A remote v1. APIService replaces h with its
// proxy for the whole tree, as upstream's aggregator proxies /api for the
// APIService named "v1." (legacyAPIServiceName in kube-aggregator
// pkg/apiserver/apiserver.go); a local one, or none, restores h.
func (m *Mux) Legacy(h http.Handler) {
	m.Update(func(tx *MuxTx) {
		m.legacy = h
		// Listed in / as upstream's: /api and /api/v1, not /api/.
		tx.Handle("/api", h)
		tx.UnlistedHandle("/api/", h)
		tx.UnlistedHandlePrefix("/api/", h)
		tx.Handle("/api/v1", h)
	})
}

// routeLegacy points the /api tree Legacy registered at h, keeping its
// listing. Called inside Update.
func (tx *MuxTx) routeLegacy(h http.Handler, proxied bool) {
	if tx.m.legacy == nil {
		return
	}
	for _, p := range []string{"/api", "/api/", "/api/v1"} {
		sh := tx.writable(p)
		r := sh[p]
		if r.exact != nil {
			r.exact = h
		}
		if r.prefix != nil {
			r.prefix = h
		}
		r.proxied = proxied
		sh[p] = r
	}
}

// Builtin marks /apis/<group>/<version> as served by aggsim itself: an
// APIService with a spec.service for that group/version is listed in the
// router's state but never takes the path (SetAPIService keeps the built-in
// handler), as upstream's aggregator serves its own groups before any
// proxy (kube-aggregator pkg/apiserver/apiserver.go installs apiregistration
// on its own handler). The path's handler is h; it is registered at once.
func (m *Mux) Builtin(group, version string, h http.Handler) {
	gvPath := "/apis/" + group + "/" + version
	m.Update(func(tx *MuxTx) {
		tx.m.builtin[gvPath] = true
		tx.Handle(gvPath, h)
		tx.UnlistedHandlePrefix(gvPath+"/", h) // not in / upstream
	})
}

// LocalGroup claims every path under /apis/<group>/ that nothing more
// specific routes, with h (an unlisted prefix, so /apis/<group>/<version>/
// routes win): upstream serves the groups it implements itself from
// go-restful web services rooted at /apis/<group>, which answer any other
// path below them with a JSON 404 Status, where a path under a group no
// web service owns reaches the NotFound handler's text/plain 404
// (apiserver pkg/server/handler.go director).
func (m *Mux) LocalGroup(group string, h http.Handler) {
	m.Update(func(tx *MuxTx) { tx.UnlistedHandlePrefix("/apis/"+group+"/", h) })
}

// SetAPIService routes one APIService, replacing what it routed before
// (also when its group or version changed): /apis/<g>/<v> and its subtree
// to rt.Handler, and /apis/<g> to rt.GroupHandler while any APIService of
// the group is routed. A remote APIService (rt.Proxied) for a Builtin
// group/version keeps the built-in handler and is logged. The change is
// published as one table swap.
func (m *Mux) SetAPIService(rt APIServiceRoute) {
	m.Update(func(tx *MuxTx) {
		prev, had := m.apiServices[rt.Name]
		if had && (prev.Group != rt.Group || prev.Version != rt.Version) {
			tx.removeAPIService(prev)
			had = false
		}
		m.apiServices[rt.Name] = rt
		if rt.Group == "" {
			if rt.Proxied && rt.Handler != nil {
				tx.routeLegacy(rt.Handler, true)
			} else {
				tx.routeLegacy(m.legacy, false)
			}
			return
		}
		gvPath := "/apis/" + rt.Group + "/" + rt.Version
		switch {
		case m.builtin[gvPath]:
			if rt.Proxied {
				m.logger.Warn("APIService names a group/version aggsim serves itself; its spec.service is not used", "apiservice", rt.Name)
			}
		case rt.Handler == nil:
			if had && prev.Handler != nil {
				tx.Unregister(gvPath)
				tx.Unregister(gvPath + "/")
			}
		case !had || prev.Handler != rt.Handler || prev.Proxied != rt.Proxied:
			if had && prev.Handler != nil {
				tx.Unregister(gvPath)
				tx.Unregister(gvPath + "/")
			}
			tx.setRoute(gvPath, rt.Handler, false, true, rt.Proxied)
			tx.setRoute(gvPath+"/", rt.Handler, true, false, rt.Proxied)
		}
		if !had && rt.GroupHandler != nil {
			if m.groupRefs[rt.Group]++; m.groupRefs[rt.Group] == 1 {
				tx.Handle("/apis/"+rt.Group, rt.GroupHandler)
				tx.UnlistedHandle("/apis/"+rt.Group+"/", rt.GroupHandler)
			}
		}
	})
}

// RemoveAPIService removes what SetAPIService routed for name; unknown
// names are ignored.
func (m *Mux) RemoveAPIService(name string) {
	m.Update(func(tx *MuxTx) {
		if rt, ok := m.apiServices[name]; ok {
			tx.removeAPIService(rt)
		}
	})
}

// removeAPIService unroutes rt. Called inside Update.
func (tx *MuxTx) removeAPIService(rt APIServiceRoute) {
	m := tx.m
	delete(m.apiServices, rt.Name)
	if rt.Group == "" {
		tx.routeLegacy(m.legacy, false)
		return
	}
	gvPath := "/apis/" + rt.Group + "/" + rt.Version
	if rt.Handler != nil && !m.builtin[gvPath] {
		tx.Unregister(gvPath)
		tx.Unregister(gvPath + "/")
	}
	if rt.GroupHandler != nil {
		if m.groupRefs[rt.Group]--; m.groupRefs[rt.Group] <= 0 {
			delete(m.groupRefs, rt.Group)
			tx.Unregister("/apis/" + rt.Group)
			tx.Unregister("/apis/" + rt.Group + "/")
		}
	}
}

// APIService returns what SetAPIService last routed for name.
func (m *Mux) APIService(name string) (APIServiceRoute, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rt, ok := m.apiServices[name]
	return rt, ok
}

var _ http.Handler = (*Mux)(nil)
