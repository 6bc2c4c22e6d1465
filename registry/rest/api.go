package rest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/storage"
)

// GroupVersionInfo is one local group/version and the resources it
// serves, for discovery to list. Group is "" for the legacy core group.
type GroupVersionInfo struct {
	Group     string
	Version   string
	Resources []registry.ResourceInfo
}

// GroupVersion returns "group/version", or "version" for the core group.
func (g GroupVersionInfo) GroupVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// gvEntry is one served group/version.
type gvEntry struct {
	info      GroupVersionInfo
	resources map[string]*registry.Store // by plural resource name
	list      []byte                     // APIResourceList JSON, built once
}

// API serves every local resource over HTTP: the legacy core group under
// /api and /api/v1, named groups under /apis/<group>/<version>. /apis and
// /apis/<group> belong to the discovery package. The route table of the
// static resources is built by NewAPI; group/versions served at run time
// (custom resources, SetGroupVersion) are added by swapping in a new
// table, so ServeHTTP takes no lock.
type API struct {
	tables atomic.Pointer[apiTables]
	mu     sync.Mutex // serialises SetGroupVersion
	st     storage.Storage
	opts   registry.StoreOptions
	log    *slog.Logger

	closeOnce sync.Once
	done      chan struct{} // closed by Shutdown; ends every watch
}

// apiTables is one immutable route table.
type apiTables struct {
	stores map[meta.GroupResource]*registry.Store
	gvs    map[string]*gvEntry // by GroupVersion()
	order  []GroupVersionInfo
	static map[string]bool // group/versions of NewAPI, never replaced
}

func (a *API) t() *apiTables { return a.tables.Load() }

var _ http.Handler = (*API)(nil)

// NewAPI builds the stores of strategies over st and the routes serving
// them. Strategies of the same group/version share one APIResourceList.
func NewAPI(st storage.Storage, strategies []registry.Strategy, opts registry.StoreOptions) *API {
	a := &API{st: st, opts: opts, log: opts.Logger, done: make(chan struct{})}
	if a.log == nil {
		a.log = slog.Default()
	}
	t := &apiTables{stores: map[meta.GroupResource]*registry.Store{}, gvs: map[string]*gvEntry{}, static: map[string]bool{}}
	for _, s := range strategies {
		store := registry.NewStore(st, s, opts)
		info := store.Info()
		t.stores[info.GroupResource()] = store
		gv := GroupVersionInfo{Group: info.Group, Version: info.Version}
		e := t.gvs[gv.GroupVersion()]
		if e == nil {
			e = &gvEntry{info: gv, resources: map[string]*registry.Store{}}
			t.gvs[gv.GroupVersion()] = e
		}
		e.resources[info.Resource] = store
		e.info.Resources = append(e.info.Resources, info)
	}
	for k, e := range t.gvs {
		sort.Slice(e.info.Resources, func(i, j int) bool { return e.info.Resources[i].Resource < e.info.Resources[j].Resource })
		e.list = buildResourceList(e.info)
		t.order = append(t.order, e.info)
		t.static[k] = true
	}
	sort.Slice(t.order, func(i, j int) bool { return t.order[i].GroupVersion() < t.order[j].GroupVersion() })
	a.tables.Store(t)
	return a
}

// NewStore returns a store of strategy over the API's storage and options,
// not yet served (see SetGroupVersion).
func (a *API) NewStore(s registry.Strategy) *registry.Store {
	return registry.NewStore(a.st, s, a.opts)
}

// SetGroupVersion serves exactly stores (resources of group/version, in
// any order; their Info must name group and version) under
// /apis/<group>/<version>, replacing what was served there; no stores
// stops serving it. A group/version of NewAPI's cannot be changed: false.
// Requests already running finish with the stores they found; open
// watches of a removed store end at Shutdown or when their client goes.
func (a *API) SetGroupVersion(group, version string, stores []*registry.Store) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.t()
	key := GroupVersionInfo{Group: group, Version: version}.GroupVersion()
	if old.static[key] {
		return false
	}
	t := &apiTables{stores: maps.Clone(old.stores), gvs: maps.Clone(old.gvs), static: old.static}
	if prev := old.gvs[key]; prev != nil {
		for _, r := range prev.info.Resources {
			if t.stores[r.GroupResource()] == prev.resources[r.Resource] {
				delete(t.stores, r.GroupResource())
			}
		}
	}
	delete(t.gvs, key)
	if len(stores) > 0 {
		e := &gvEntry{info: GroupVersionInfo{Group: group, Version: version}, resources: map[string]*registry.Store{}}
		for _, st := range stores {
			info := st.Info()
			e.resources[info.Resource] = st
			e.info.Resources = append(e.info.Resources, info)
			// Store(gr) finds the store of the version set last
			t.stores[info.GroupResource()] = st
		}
		sort.Slice(e.info.Resources, func(i, j int) bool { return e.info.Resources[i].Resource < e.info.Resources[j].Resource })
		e.list = buildResourceList(e.info)
		t.gvs[key] = e
	}
	t.order = make([]GroupVersionInfo, 0, len(t.gvs))
	for _, e := range t.gvs {
		t.order = append(t.order, e.info)
	}
	sort.Slice(t.order, func(i, j int) bool { return t.order[i].GroupVersion() < t.order[j].GroupVersion() })
	a.tables.Store(t)
	return true
}

// GroupVersionStore returns the store of resource in group/version, or
// nil when it is not served.
func (a *API) GroupVersionStore(group, version, resource string) *registry.Store {
	e := a.t().gvs[GroupVersionInfo{Group: group, Version: version}.GroupVersion()]
	if e == nil {
		return nil
	}
	return e.resources[resource]
}

// buildResourceList encodes the APIResourceList of gv as kube-apiserver
// 1.33 does: the core group's /api/v1 document has no apiVersion (upstream
// serves it with an empty TypeMeta.APIVersion), named groups' have "v1";
// resources without storage (reviews) list no storageVersionHash.
func buildResourceList(gv GroupVersionInfo) []byte {
	apiVersion := "v1"
	if gv.Group == "" {
		apiVersion = ""
	}
	l := meta.APIResourceList{TypeMeta: meta.TypeMeta{Kind: "APIResourceList", APIVersion: apiVersion}, GroupVersion: gv.GroupVersion(), APIResources: []meta.APIResource{}}
	for _, r := range gv.Resources {
		hash := ""
		if !r.NotStored {
			v := r.Version
			if r.StorageVersion != "" {
				v = r.StorageVersion
			}
			hash = meta.StorageVersionHash(r.Group, v, r.Kind)
		}
		l.APIResources = append(l.APIResources, meta.APIResource{
			Name: r.Resource, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: nonNil(r.Verbs), ShortNames: r.ShortNames, Categories: r.Categories,
			StorageVersionHash: hash,
		})
		subs := slices.Clone(r.Subresources)
		if r.HasStatus {
			subs = append(subs, registry.SubresourceInfo{Name: "status", Kind: r.Kind, Verbs: r.StatusVerbs})
		}
		if r.StatusFirst && r.HasStatus {
			subs = append(subs[len(subs)-1:], subs[:len(subs)-1]...)
		} else if !r.StatusFirst {
			slices.SortFunc(subs, func(a, b registry.SubresourceInfo) int { return strings.Compare(a.Name, b.Name) })
		}
		for _, sub := range subs {
			l.APIResources = append(l.APIResources, meta.APIResource{
				Name: r.Resource + "/" + sub.Name, Namespaced: r.Namespaced, Group: sub.Group, Version: sub.Version, Kind: sub.Kind, Verbs: nonNil(sub.Verbs),
			})
		}
	}
	b, _ := json.Marshal(l)
	return append(b, '\n')
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Store returns the store of a resource, or nil if the API does not serve it.
func (a *API) Store(gr meta.GroupResource) *registry.Store { return a.t().stores[gr] }

// GroupVersions returns the local group/versions, sorted by
// "group/version", with their resources sorted by name.
func (a *API) GroupVersions() []GroupVersionInfo { return a.t().order }

// APIResourceList returns the JSON APIResourceList of a local group/version
// (group "" for core) and whether it is served. The bytes are shared: do
// not modify them.
func (a *API) APIResourceList(group, version string) ([]byte, bool) {
	gv := GroupVersionInfo{Group: group, Version: version}.GroupVersion()
	e, ok := a.t().gvs[gv]
	if !ok {
		return nil, false
	}
	return e.list, true
}

// Shutdown ends every open watch (their responses finish cleanly) and
// makes later watches end at once. It is safe to call more than once.
func (a *API) Shutdown() { a.closeOnce.Do(func() { close(a.done) }) }

// ServeHTTP serves /api, /api/v1[/...] and /apis/<group>/<version>[/...]
// for the local group/versions; other paths are 404 Status.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/api" || p == "/api/":
		if _, ok := a.t().gvs["v1"]; !ok {
			negotiation.WriteStatus(w, r, meta.NewPathNotFound())
			return
		}
		a.serveAPIVersions(w, r)
		return
	case strings.HasPrefix(p, "/api/"):
		rest := strings.TrimPrefix(p, "/api/")
		version, tail, _ := strings.Cut(rest, "/")
		a.serveGroupVersion(w, r, "", version, tail, strings.HasSuffix(rest, "/") && tail == "")
		return
	case strings.HasPrefix(p, "/apis/"):
		parts := strings.SplitN(strings.TrimPrefix(p, "/apis/"), "/", 3)
		if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
			tail := ""
			if len(parts) == 3 {
				tail = parts[2]
			}
			a.serveGroupVersion(w, r, parts[0], parts[1], tail, false)
			return
		}
	}
	negotiation.WriteStatus(w, r, meta.NewPathNotFound())
}

// negotiateDiscovery checks that a discovery document is asked for with
// GET or HEAD (else 405) and negotiates its output format.
func negotiateDiscovery(r *http.Request) (negotiation.Format, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return negotiation.Format{}, meta.NewPathMethodNotAllowed()
	}
	if err := negotiation.RouteAccept(r, negotiation.ObjectMediaTypes); err != nil {
		return negotiation.Format{}, err
	}
	return negotiation.Output(r, negotiation.TargetObject)
}

func (a *API) serveAPIVersions(w http.ResponseWriter, r *http.Request) {
	f, err := negotiateDiscovery(r)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	v := meta.APIVersions{
		TypeMeta:                   meta.TypeMeta{Kind: "APIVersions"},
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []meta.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
	}
	negotiation.WriteObject(w, f, http.StatusOK, v)
}

func (a *API) serveGroupVersion(w http.ResponseWriter, r *http.Request, group, version, tail string, trailingSlash bool) {
	e, ok := a.t().gvs[GroupVersionInfo{Group: group, Version: version}.GroupVersion()]
	if !ok {
		negotiation.WriteStatus(w, r, meta.NewPathNotFound())
		return
	}
	if tail == "" {
		f, err := negotiateDiscovery(r)
		if err != nil {
			negotiation.WriteStatus(w, r, err)
			return
		}
		if f.As != "" {
			negotiation.WriteStatus(w, r, meta.NewNotAcceptable(negotiation.SupportedMediaTypes))
			return
		}
		if f.Protobuf {
			if b, ok := encodeProtobufResponse(e.list); ok {
				w.Header().Set("Content-Type", negotiation.MediaProtobuf)
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(b)
				return
			}
		}
		if f.Pretty && !f.YAML && !f.Protobuf {
			// Indent the ready bytes: decoding them into a map would sort
			// the keys, and upstream keeps APIResource's field order.
			var buf bytes.Buffer
			_ = json.Indent(&buf, bytes.TrimSuffix(e.list, []byte("\n")), "", "  ")
			w.Header().Set("Content-Type", negotiation.MediaJSON)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(buf.Bytes())
			return
		}
		if f.YAML {
			var v any
			_ = json.Unmarshal(e.list, &v)
			negotiation.WriteObject(w, f, http.StatusOK, v)
			return
		}
		w.Header().Set("Content-Type", negotiation.MediaJSON)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(e.list)
		return
	}
	if group == "" {
		if ns, id, path, ok := serviceProxyPath(tail); ok {
			a.serveServiceProxy(w, r, ns, id, path)
			return
		}
	}
	rq, err := parseResourcePath(e, tail)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	if warning, ok := deprecatedResources[rq.store.Info().GroupResource()]; ok && version == "v1" {
		negotiation.AddWarning(w, warning)
	}
	a.serveResource(w, r, rq)
}

// deprecatedResources are the resources kube-apiserver 1.33 answers every
// request of (any verb, errors included) with a deprecation Warning
// header; the text is the reference's, word for word.
var deprecatedResources = map[meta.GroupResource]string{
	{Group: "", Resource: "endpoints"}: "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
}
