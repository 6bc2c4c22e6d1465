package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// apiRegistrationGroup is the aggregator's own group. Legacy /apis always
// lists it first (kube-aggregator handler_apis.go); aggregated discovery gives
// it groupPriorityMinimum 20001 and versionPriority 0
// (kube-aggregator handler_discovery.go APIRegistrationGroupPriority).
const (
	apiRegistrationGroup   = "apiregistration.k8s.io"
	apiRegistrationVersion = "v1"
	apiRegistrationGPM     = 20001
)

// Defaults for the zero values of Options.
const (
	// DefaultRefreshInterval is how often Run refetches every backend
	// (kube-aggregator discoveryRefreshInterval).
	DefaultRefreshInterval = 60 * time.Second
	// DefaultFetchTimeout bounds one backend discovery fetch
	// (kube-aggregator wraps it in http.TimeoutHandler(5s)).
	DefaultFetchTimeout = 5 * time.Second
	// DefaultWorkers is how many backends Run fetches at once
	// (kube-aggregator starts 2 discovery workers).
	DefaultWorkers = 2
)

// ServiceRef names the Service in front of a remote APIService's backend
// (apiregistration/v1 ServiceReference, with the port already defaulted to
// 443 when unset).
type ServiceRef struct {
	Namespace string
	Name      string
	Port      int32
}

// APIService is what discovery needs to know about one APIService
// (apiregistration/v1 APIService, flattened). The registration controller
// builds it from the stored object.
type APIService struct {
	// Name is metadata.name, "<version>.<group>".
	Name string
	// Group and Version are spec.group and spec.version. Group "" is the
	// legacy core "v1." APIService, which /apis never lists.
	Group   string
	Version string
	// GroupPriorityMinimum and VersionPriority are the spec fields of the
	// same names.
	GroupPriorityMinimum int32
	VersionPriority      int32
	// Service is spec.service; nil means a Local APIService, served by aggsim
	// itself.
	Service *ServiceRef
	// CABundle and InsecureSkipTLSVerify are the spec fields; they only take
	// part in the backend cache key (two APIServices share one fetch when
	// they name the same service, port and trust settings).
	CABundle              []byte
	InsecureSkipTLSVerify bool
	// Available is the status condition Available == True. A remote
	// APIService that is not available is not fetched; aggregated discovery
	// lists its version as Stale, with its last good resources if any.
	Available bool
	// Resources is, for a Local APIService of a group aggsim serves itself,
	// the APIResourceList JSON its REST layer answers at /apis/<g>/<v>. A
	// Local APIService with nil Resources (a custom group with no service)
	// appears in legacy /apis and /apis/<g> but not in aggregated discovery,
	// as in kube-apiserver. Ignored for remote APIServices.
	Resources []byte
	// CustomResources marks a Local APIService managed for
	// CustomResourceDefinitions: aggregated discovery names the
	// APIService's group and version in each responseKind of Resources
	// that has none, as apiextensions-apiserver registers its resources
	// (kube-apiserver's own groups leave them empty).
	CustomResources bool

	// key caches keyOf for APIServices the Manager stores.
	key *serviceKey
}

// IsLocal reports whether the APIService has no spec.service.
func (s *APIService) IsLocal() bool { return s.Service == nil }

// gv returns "<group>/<version>".
func (s *APIService) gv() string { return s.Group + "/" + s.Version }

// serviceKey identifies one backend for the fetch cache, like
// kube-aggregator's serviceKey (namespace, name, port) plus the trust
// settings, so that APIServices with different caBundles do not share a
// fetch that one of them could not make.
type serviceKey struct {
	namespace, name string
	port            int32
	caHash          string
	insecure        bool
}

// String formats the key as upstream's error messages do: "<ns>/<name>:<port>".
func (k serviceKey) String() string {
	return fmt.Sprintf("%s/%s:%d", k.namespace, k.name, k.port)
}

// keyOf returns the backend cache key of a remote APIService.
func keyOf(s *APIService) serviceKey {
	if s.key != nil {
		return *s.key
	}
	return computeKey(s)
}

// storeKey computes and caches the key of an APIService the Manager stores.
func storeKey(s *APIService) {
	s.key = nil
	if !s.IsLocal() {
		k := computeKey(s)
		s.key = &k
	}
}

func computeKey(s *APIService) serviceKey {
	sum := sha256.Sum256(s.CABundle)
	return serviceKey{
		namespace: s.Service.Namespace,
		name:      s.Service.Name,
		port:      s.Service.Port,
		caHash:    hex.EncodeToString(sum[:8]),
		insecure:  s.InsecureSkipTLSVerify,
	}
}

// Options configures a Manager. A zero field means the documented default;
// New checks them all.
type Options struct {
	// Fetcher sends discovery requests to remote backends. Nil means remote
	// versions are never fetched (they show as Stale once Sync or Refresh is
	// called).
	Fetcher Fetcher
	// Logger receives fetch failures at Info level. Nil discards them.
	Logger *slog.Logger
	// RefreshInterval is how often Run refetches every backend. Zero means
	// DefaultRefreshInterval.
	RefreshInterval time.Duration
	// FetchTimeout bounds one backend fetch (the /apis request plus any
	// legacy fallback requests). Zero means DefaultFetchTimeout.
	FetchTimeout time.Duration
	// Workers bounds how many backends are fetched at once. Zero means
	// DefaultWorkers.
	Workers int
	// NewTicker returns a channel that receives every d, and a function
	// that stops it. Nil means time.NewTicker. Tests inject a manual one.
	NewTicker func(d time.Duration) (c <-chan time.Time, stop func())
	// OnRebuild, when set, runs after every rebuild of the documents with
	// the time the rebuild took. It runs with the Manager's lock held: it
	// must be quick and must not call back into the Manager.
	OnRebuild func(d time.Duration)
	// ServeV2Beta1 makes /apis and /api also answer
	// apidiscovery.k8s.io/v2beta1 requests. Off by default: kube-apiserver
	// 1.33 answers them with 406 (capture a-discovery/apis.aggregated.v2beta1).
	ServeV2Beta1 bool
	// APIRegistrationResources is the APIResourceList JSON of
	// apiregistration.k8s.io/v1 for aggregated discovery. Nil means the
	// built-in list (apiservices and apiservices/status, as kube-apiserver
	// 1.33 advertises them).
	APIRegistrationResources []byte
	// CoreResources is the APIResourceList JSON of the core group (/api/v1)
	// for aggregated /api. Nil means v1 is listed with no resources.
	CoreResources []byte
	// ExternalAddress is the serverAddress /api reports for clientCIDR
	// 0.0.0.0/0 (kube-apiserver: advertise address and secure port). Empty
	// means the request's Host.
	ExternalAddress string
}

// defaultAPIRegistrationResources is what kube-apiserver 1.33 lists for
// apiregistration.k8s.io/v1 (capture a-discovery/apis.aggregated.v2.json).
const defaultAPIRegistrationResources = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apiregistration.k8s.io/v1","resources":[` +
	`{"name":"apiservices","singularName":"apiservice","namespaced":false,"kind":"APIService","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},` +
	`{"name":"apiservices/status","singularName":"","namespaced":false,"kind":"APIService","verbs":["get","patch","update"]}]}`

// gvResult is what aggregated discovery shows for one remote or local
// group/version.
type gvResult struct {
	// resources is the JSON array of APIResourceDiscovery, or nil for none.
	resources []byte
	// freshness is FreshnessCurrent or FreshnessStale.
	freshness string
}

func (a *gvResult) equal(b *gvResult) bool {
	return a.freshness == b.freshness && string(a.resources) == string(b.resources)
}

// Manager keeps the discovery documents for a set of APIServices and
// serves them. Create it with New. A Manager must not be copied.
//
// Writers (Set, Update, Remove, SetCoreResources, fetch results) take mu and
// rebuild; readers (the Serve methods) only load the current snapshot.
type Manager struct {
	opts          Options
	logger        *slog.Logger
	notAcceptable []byte // the 406 Status body, built once

	mu sync.Mutex // guards services, results, localCache, backends, dirty, core, and rebuilds
	// services holds every APIService by name.
	services map[string]*APIService
	// results holds the aggregated entry of every remote APIService that was
	// fetched (or found unavailable) and of every Local one with Resources,
	// by APIService name.
	results map[string]*gvResult
	// localCache maps a Local APIService name to the converted resources of
	// its Resources bytes, so unchanged bytes are not converted again.
	localCache map[string]localEntry
	// backends holds the last aggregated document of each backend.
	backends map[serviceKey]*backendCache
	// dirty holds the backends that Run must fetch.
	dirty map[serviceKey]struct{}
	// apiregResources and coreResources are the converted resources of the
	// aggregator's own group and of /api/v1.
	apiregResources []byte
	coreResources   []byte

	// wake has capacity 1; a send tells Run there is dirty work.
	wake chan struct{}
	// synced is closed when Run's initial sync is done.
	synced     chan struct{}
	syncedOnce sync.Once

	snap atomic.Pointer[snapshot]
}

type localEntry struct {
	raw    []byte
	result gvResult
}

// New returns a Manager with no APIServices: /apis lists only
// apiregistration.k8s.io. It fails when an option is invalid, naming the
// field.
func New(opts Options) (*Manager, error) {
	switch {
	case opts.RefreshInterval < 0:
		return nil, errors.New("discovery: RefreshInterval must not be negative")
	case opts.FetchTimeout < 0:
		return nil, errors.New("discovery: FetchTimeout must not be negative")
	case opts.Workers < 0:
		return nil, errors.New("discovery: Workers must not be negative")
	}
	if opts.RefreshInterval == 0 {
		opts.RefreshInterval = DefaultRefreshInterval
	}
	if opts.FetchTimeout == 0 {
		opts.FetchTimeout = DefaultFetchTimeout
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.NewTicker == nil {
		opts.NewTicker = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Manager{
		opts:       opts,
		logger:     logger,
		services:   map[string]*APIService{},
		results:    map[string]*gvResult{},
		localCache: map[string]localEntry{},
		backends:   map[serviceKey]*backendCache{},
		dirty:      map[serviceKey]struct{}{},
		wake:       make(chan struct{}, 1),
		synced:     make(chan struct{}),
	}
	apireg := opts.APIRegistrationResources
	if apireg == nil {
		apireg = []byte(defaultAPIRegistrationResources)
	}
	var err error
	if m.apiregResources, err = convertResourceListJSON(apireg); err != nil {
		return nil, fmt.Errorf("discovery: APIRegistrationResources: %w", err)
	}
	if opts.CoreResources != nil {
		if m.coreResources, err = convertResourceListJSON(opts.CoreResources); err != nil {
			return nil, fmt.Errorf("discovery: CoreResources: %w", err)
		}
	}
	st := meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   "Failure",
		Message:  "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
		Reason:   "NotAcceptable",
		Code:     406,
	}
	if m.notAcceptable, err = json.MarshalIndent(st, "", "  "); err != nil {
		return nil, fmt.Errorf("discovery: encode 406 status: %w", err)
	}
	m.mu.Lock()
	m.rebuildLocked()
	m.mu.Unlock()
	return m, nil
}

// Set replaces the whole set of APIServices (a full resync) and rebuilds
// the documents once. Every backend is marked for fetching.
func (m *Manager) Set(apiServices []APIService) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.services = make(map[string]*APIService, len(apiServices))
	for i := range apiServices {
		s := apiServices[i]
		storeKey(&s)
		m.services[s.Name] = &s
	}
	m.dirty = map[serviceKey]struct{}{}
	for _, s := range m.services {
		m.updateResultLocked(s)
		if !s.IsLocal() {
			m.dirty[keyOf(s)] = struct{}{}
		}
	}
	m.pruneLocked()
	m.rebuildLocked()
	m.poke()
}

// Update adds or replaces one APIService (by Name) and rebuilds the
// documents once, unless nothing they show changed (a status-only update).
// A remote APIService's backend is marked for fetching.
func (m *Manager) Update(s APIService) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.services[s.Name]
	prev := m.results[s.Name]
	storeKey(&s)
	m.services[s.Name] = &s
	if old != nil && (old.IsLocal() != s.IsLocal() || old.Group != s.Group || old.Version != s.Version) {
		delete(m.results, s.Name)
	}
	m.updateResultLocked(&s)
	if !s.IsLocal() {
		m.dirty[keyOf(&s)] = struct{}{}
	}
	if old != nil && !old.IsLocal() && (s.IsLocal() || keyOf(old) != keyOf(&s)) {
		m.pruneLocked()
	}
	// Status-only updates (the availability controller's) change nothing
	// the documents show unless they change the aggregated entry: skip the
	// rebuild then.
	next := m.results[s.Name]
	sameEntry := (prev == nil && next == nil) || (prev != nil && next != nil && prev.equal(next))
	if old == nil || !sameListing(old, &s) || !sameEntry {
		m.rebuildLocked()
	}
	m.poke()
}

// sameListing reports whether two versions of an APIService list the same
// way in every document (resources aside).
func sameListing(a, b *APIService) bool {
	return a.Group == b.Group && a.Version == b.Version && a.IsLocal() == b.IsLocal() &&
		a.GroupPriorityMinimum == b.GroupPriorityMinimum && a.VersionPriority == b.VersionPriority
}

// Remove deletes the APIService called name, if present, and rebuilds the
// documents once.
func (m *Manager) Remove(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.services[name]; !ok {
		return
	}
	delete(m.services, name)
	delete(m.results, name)
	delete(m.localCache, name)
	m.pruneLocked()
	m.rebuildLocked()
}

// SetCoreResources replaces the APIResourceList JSON of the core group
// (/api/v1) and rebuilds the documents once.
func (m *Manager) SetCoreResources(apiResourceList []byte) error {
	res, err := convertResourceListJSON(apiResourceList)
	if err != nil {
		return fmt.Errorf("discovery: core resources: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.coreResources = res
	m.rebuildLocked()
	return nil
}

// HasGroup reports whether /apis/<group> has a document (some APIService
// of that group exists, or group is apiregistration.k8s.io).
func (m *Manager) HasGroup(group string) bool {
	_, ok := m.snap.Load().groups[group]
	return ok
}

// updateResultLocked sets the aggregated entry that follows from s alone:
// Local APIServices with Resources get their converted resources; an
// unavailable remote APIService becomes Stale, keeping its last resources.
func (m *Manager) updateResultLocked(s *APIService) {
	if s.IsLocal() {
		if s.Resources == nil {
			delete(m.results, s.Name)
			delete(m.localCache, s.Name)
			return
		}
		if e, ok := m.localCache[s.Name]; ok && string(e.raw) == string(s.Resources) {
			r := e.result
			m.results[s.Name] = &r
			return
		}
		r := gvResult{freshness: FreshnessCurrent}
		convert := convertResourceListJSON
		if s.CustomResources {
			convert = func(data []byte) ([]byte, error) { return convertCustomResourceListJSON(data, s.Group, s.Version) }
		}
		res, err := convert(s.Resources)
		if err != nil {
			m.logger.Info("discovery: cannot convert local resources", "apiservice", s.Name, "err", err)
			r.freshness = FreshnessStale
		} else {
			r.resources = res
		}
		m.localCache[s.Name] = localEntry{raw: s.Resources, result: r}
		m.results[s.Name] = &r
		return
	}
	delete(m.localCache, s.Name)
	if !s.Available {
		prev := m.results[s.Name]
		r := gvResult{freshness: FreshnessStale}
		if prev != nil {
			r.resources = prev.resources
		}
		m.results[s.Name] = &r
	}
}

// pruneLocked drops cache entries of backends no APIService uses any more.
func (m *Manager) pruneLocked() {
	used := map[serviceKey]struct{}{}
	for _, s := range m.services {
		if !s.IsLocal() {
			used[keyOf(s)] = struct{}{}
		}
	}
	for k := range m.backends {
		if _, ok := used[k]; !ok {
			delete(m.backends, k)
		}
	}
	for k := range m.dirty {
		if _, ok := used[k]; !ok {
			delete(m.dirty, k)
		}
	}
}

// poke tells Run there is dirty work, without blocking.
func (m *Manager) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}
