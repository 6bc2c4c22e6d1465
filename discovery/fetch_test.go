package discovery

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func remote(version, group string, port int32) APIService {
	return APIService{
		Name: version + "." + group, Group: group, Version: version,
		GroupPriorityMinimum: 1000, VersionPriority: 15,
		Service:   &ServiceRef{Namespace: "wardle", Name: "api", Port: port},
		Available: true,
	}
}

// aggEntry returns the aggregated item of group as compact JSON.
func aggEntry(t testing.TB, m http.Handler, group string) string {
	t.Helper()
	doc := decodeMap(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes())
	filterGroups(doc, map[string]bool{group: true})
	items := doc["items"].([]any)
	if len(items) == 0 {
		return ""
	}
	b, _ := jsonMarshal(items[0])
	return string(b)
}

// switchable serves whatever handler is current.
type switchable struct{ h atomic.Pointer[http.Handler] }

func (s *switchable) set(h http.Handler)                               { s.h.Store(&h) }
func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }

var unavailable = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "service unavailable", http.StatusServiceUnavailable)
})

// TestStaleKeepsLastGood: a failing backend turns its versions Stale but
// keeps their last good resources; an unavailable APIService is not fetched.
func TestStaleKeepsLastGood(t *testing.T) {
	f := newFakeBackends()
	sw := &switchable{}
	sw.set(legacyBackend(t))
	f.set("api", 8443, sw)
	svc := remote("v1", "wardle.example.com", 8443)
	m := newTestManager(t, f, []APIService{svc})
	good := aggEntry(t, m, "wardle.example.com")
	if !strings.Contains(good, `"freshness":"Current"`) || !strings.Contains(good, `"resource":"flunders"`) {
		t.Fatalf("first fetch: %s", good)
	}

	sw.set(unavailable)
	err := m.Refresh(context.Background(), svc.Name)
	if err == nil || err.Error() != "service wardle/api:8443 returned non-success response code: 503" {
		t.Errorf("Refresh error = %v", err)
	}
	stale := aggEntry(t, m, "wardle.example.com")
	if want := strings.Replace(good, `"freshness":"Current"`, `"freshness":"Stale"`, 1); stale != want {
		t.Errorf("after failure\n got %s\nwant %s", stale, want)
	}
	// 503 from /apis does not fall back to /apis/<g>/<v>.
	reqs := f.requests("api", 8443)
	if last := reqs[len(reqs)-1]; last.Path != "/apis" {
		t.Errorf("fallback after 503: %v", last)
	}

	sw.set(legacyBackend(t))
	if err := m.Refresh(context.Background(), svc.Name); err != nil {
		t.Fatal(err)
	}
	if got := aggEntry(t, m, "wardle.example.com"); got != good {
		t.Errorf("after recovery\n got %s\nwant %s", got, good)
	}

	n := len(f.requests("api", 8443))
	svc.Available = false
	m.Update(svc)
	if err := m.Refresh(context.Background(), svc.Name); err != nil {
		t.Fatal(err)
	}
	if got := len(f.requests("api", 8443)); got != n {
		t.Errorf("unavailable APIService was fetched (%d requests, had %d)", got, n)
	}
	if got := aggEntry(t, m, "wardle.example.com"); got != strings.Replace(good, "Current", "Stale", 1) {
		t.Errorf("unavailable: %s", got)
	}

	// Never fetched and unavailable: listed, no resources, Stale.
	other := remote("v1", "never.example.com", 9999)
	other.Available = false
	m.Update(other)
	if got := aggEntry(t, m, "never.example.com"); got != `{"metadata":{"creationTimestamp":null,"name":"never.example.com"},"versions":[{"freshness":"Stale","version":"v1"}]}` {
		t.Errorf("never fetched: %s", got)
	}
}

// TestLegacyFallbackError: a failing /apis/<g>/<v> makes only that version Stale.
func TestLegacyFallbackError(t *testing.T) {
	f := newFakeBackends()
	f.set("api", 8443, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis/a.example.com/v1" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		legacyBackend(t).ServeHTTP(w, r)
	}))
	a, b := remote("v1", "a.example.com", 8443), remote("v1", "b.example.com", 8443)
	m := newTestManager(t, f, []APIService{a, b})
	if err := m.Refresh(context.Background(), a.Name); err == nil || err.Error() != "failed to download legacy discovery for /apis/a.example.com/v1: boom\n" {
		t.Errorf("error = %q", err)
	}
	if got := aggEntry(t, m, "a.example.com"); got != `{"metadata":{"creationTimestamp":null,"name":"a.example.com"},"versions":[{"freshness":"Stale","version":"v1"}]}` {
		t.Errorf("a: %s", got)
	}
	if got := aggEntry(t, m, "b.example.com"); !strings.Contains(got, `"freshness":"Current"`) {
		t.Errorf("b: %s", got)
	}
}

// TestOneFetchPerBackend: APIServices on one service share one /apis
// request; a different caBundle is a different backend.
func TestOneFetchPerBackend(t *testing.T) {
	f := newFakeBackends()
	f.set("api", 8470, aggregatedBackend(readFile(t, "h-backend-aggregated", "backend-aggd.apis.json"), "v2", `"e1"`))
	a, b, c := remote("v1", "aggd.example.com", 8470), remote("v2", "aggd.example.com", 8470), remote("v1", "extra.example.com", 8470)
	c.CABundle = []byte("other CA")
	newTestManager(t, f, []APIService{a, b, c})
	if got := len(f.requests("api", 8470)); got != 2 {
		t.Errorf("%d requests, want 2 (one per service key): %v", got, f.requests("api", 8470))
	}
}

// TestNilResponseKind: a backend's aggregated document without
// responseKind gets an empty one, as upstream fills it in.
func TestNilResponseKind(t *testing.T) {
	doc := []byte(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"n.example.com"},"versions":[{"version":"v1","resources":[{"resource":"things","scope":"Cluster","singularResource":"thing","verbs":["get"],"subresources":[{"subresource":"status","verbs":["get"]}],"unknownField":1}]}]}]}`)
	f := newFakeBackends()
	f.set("api", 1, aggregatedBackend(doc, "v2", `"x"`))
	m := newTestManager(t, f, []APIService{remote("v1", "n.example.com", 1)})
	want := `{"metadata":{"creationTimestamp":null,"name":"n.example.com"},"versions":[{"freshness":"Current","resources":[{"resource":"things","responseKind":{"group":"","kind":"","version":""},"scope":"Cluster","singularResource":"thing","subresources":[{"responseKind":{"group":"","kind":"","version":""},"subresource":"status","verbs":["get"]}],"verbs":["get"]}],"version":"v1"}]}`
	if got := aggEntry(t, m, "n.example.com"); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestRebuildOnlyOnChange: documents are rebuilt once per change, and a
// refresh that brings the same resources does not rebuild.
func TestRebuildOnlyOnChange(t *testing.T) {
	var rebuilds atomic.Int32
	f := newFakeBackends()
	f.set("api", 8443, legacyBackend(t))
	m, err := New(Options{Fetcher: f, OnRebuild: func(time.Duration) { rebuilds.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func()
		want int32
	}{
		{"New", func() {}, 1},
		{"Set", func() { m.Set([]APIService{remote("v1", "a.example.com", 8443), remote("v1", "b.example.com", 8443)}) }, 2},
		{"first Sync", func() { m.Sync(context.Background()) }, 3},
		{"same resources", func() { m.Sync(context.Background()) }, 3},
		{"Update", func() { m.Update(remote("v2", "a.example.com", 8443)) }, 4},
		{"status-only Update", func() { s := remote("v1", "b.example.com", 8443); s.CABundle = nil; m.Update(s) }, 4},
		{"priority Update", func() { s := remote("v1", "b.example.com", 8443); s.VersionPriority = 1; m.Update(s) }, 5},
		{"Update to unavailable", func() {
			s := remote("v1", "b.example.com", 8443)
			s.VersionPriority = 1
			s.Available = false
			m.Update(s)
		}, 6},
		{"Update unavailable again", func() {
			s := remote("v1", "b.example.com", 8443)
			s.VersionPriority = 1
			s.Available = false
			m.Update(s)
		}, 6},
		{"Refresh of new version", func() { _ = m.Refresh(context.Background(), "v2.a.example.com") }, 7},
		{"Remove", func() { m.Remove("v2.a.example.com") }, 8},
		{"Remove unknown", func() { m.Remove("nope") }, 8},
	}
	for _, s := range steps {
		s.do()
		if got := rebuilds.Load(); got != s.want {
			t.Errorf("after %s: %d rebuilds, want %d", s.name, got, s.want)
		}
	}
	if m.HasGroup("b.example.com") != true || m.HasGroup("c.example.com") {
		t.Errorf("HasGroup wrong")
	}
}

// TestRun: Run fetches everything first (then Synced closes), again on
// every tick and whenever an Update marks a backend, and returns when ctx
// is done. The ticker is injected; nothing here waits on wall time.
func TestRun(t *testing.T) {
	tick := make(chan time.Time)
	var stopped atomic.Bool
	fetched := make(chan string, 100)
	f := newFakeBackends()
	f.set("api", 8443, legacyBackend(t))
	fetcher := FetcherFunc(func(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error) {
		fetched <- req.URL.Path
		return f.Do(ctx, svc, req)
	})
	var interval time.Duration
	m, err := New(Options{Fetcher: fetcher, NewTicker: func(d time.Duration) (<-chan time.Time, func()) {
		interval = d
		return tick, func() { stopped.Store(true) }
	}})
	if err != nil {
		t.Fatal(err)
	}
	m.Set([]APIService{remote("v1", "a.example.com", 8443)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	<-m.Synced()
	expect := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			if got := <-fetched; got != p {
				t.Errorf("fetched %s, want %s", got, p)
			}
		}
	}
	expect("/apis", "/apis/a.example.com/v1")
	if interval != DefaultRefreshInterval {
		t.Errorf("interval = %v", interval)
	}
	if got := aggEntry(t, m, "a.example.com"); !strings.Contains(got, "Current") {
		t.Errorf("after initial sync: %s", got)
	}
	tick <- time.Now()
	expect("/apis", "/apis/a.example.com/v1")
	m.Update(remote("v1", "b.example.com", 8443))
	expect("/apis", "/apis/a.example.com/v1", "/apis/b.example.com/v1")
	cancel()
	<-done
	if !stopped.Load() {
		t.Error("ticker not stopped")
	}
}

// TestWorkersBound: no more than Workers backends are fetched at once.
func TestWorkersBound(t *testing.T) {
	var inFlight, maxInFlight atomic.Int32
	entered := make(chan struct{}, 10)
	release := make(chan struct{})
	fetcher := FetcherFunc(func(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error) {
		n := inFlight.Add(1)
		for {
			old := maxInFlight.Load()
			if n <= old || maxInFlight.CompareAndSwap(old, n) {
				break
			}
		}
		entered <- struct{}{}
		<-release
		inFlight.Add(-1)
		return nil, context.Canceled
	})
	m, err := New(Options{Fetcher: fetcher, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var svcs []APIService
	for i := range 6 {
		svcs = append(svcs, remote("v1", "g"+string(rune('a'+i))+".example.com", int32(1000+i)))
	}
	m.Set(svcs)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); m.Sync(context.Background()) }()
	<-entered
	<-entered
	close(release)
	wg.Wait()
	if got := maxInFlight.Load(); got != 2 {
		t.Errorf("max in flight = %d, want 2", got)
	}
}

// TestFetchTimeout: a backend that does not answer within FetchTimeout is Stale.
func TestFetchTimeout(t *testing.T) {
	fetcher := FetcherFunc(func(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	m, err := New(Options{Fetcher: fetcher, FetchTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m.Set([]APIService{remote("v1", "slow.example.com", 8449)})
	if err := m.Refresh(context.Background(), "v1.slow.example.com"); err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("error = %v", err)
	}
	if got := aggEntry(t, m, "slow.example.com"); !strings.Contains(got, `"freshness":"Stale"`) {
		t.Errorf("got %s", got)
	}
}

// TestLocalAndSpecialGroups: Local APIServices with resources are in
// aggregated discovery with their priorities; the core "v1." APIService
// and an APIService for apiregistration.k8s.io are not listed twice.
func TestLocalAndSpecialGroups(t *testing.T) {
	m, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := []byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authorization.k8s.io/v1","resources":[{"name":"subjectaccessreviews","singularName":"subjectaccessreview","namespaced":false,"kind":"SubjectAccessReview","verbs":["create"]}]}`)
	m.Set([]APIService{
		{Name: "v1.", Version: "v1", GroupPriorityMinimum: 18000, VersionPriority: 1, Available: true},
		{Name: "v1.apiregistration.k8s.io", Group: apiRegistrationGroup, Version: "v1", GroupPriorityMinimum: 18000, Available: true},
		{Name: "v1.authorization.k8s.io", Group: "authorization.k8s.io", Version: "v1", GroupPriorityMinimum: 17600, VersionPriority: 15, Available: true, Resources: res},
		{Name: "v1.localx.example.com", Group: "localx.example.com", Version: "v1", GroupPriorityMinimum: 20000, Available: true},
	})
	legacy := groupNames(decodeMap(t, get(m, "/apis").Body.Bytes()))
	if want := []string{apiRegistrationGroup, "localx.example.com", "authorization.k8s.io"}; !slices.Equal(legacy, want) {
		t.Errorf("legacy = %v, want %v", legacy, want)
	}
	agg := groupNames(decodeMap(t, get(m, "/apis", "Accept", aggAccept).Body.Bytes()))
	if want := []string{apiRegistrationGroup, "authorization.k8s.io"}; !slices.Equal(agg, want) {
		t.Errorf("aggregated = %v, want %v", agg, want)
	}
	want := `{"metadata":{"creationTimestamp":null,"name":"authorization.k8s.io"},"versions":[{"freshness":"Current","resources":[{"resource":"subjectaccessreviews","responseKind":{"group":"","kind":"SubjectAccessReview","version":""},"scope":"Cluster","singularResource":"subjectaccessreview","verbs":["create"]}],"version":"v1"}]}`
	if got := aggEntry(t, m, "authorization.k8s.io"); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if rec := get(m, "/apis/localx.example.com/v1"); rec.Code != http.StatusNotFound {
		t.Errorf("/apis/<g>/<v> is not discovery's: %d", rec.Code)
	}
}

func TestConvertAPIResourcesScopeMismatch(t *testing.T) {
	_, err := ConvertAPIResources([]APIResource{
		{Name: "things", Namespaced: true, Kind: "Thing"},
		{Name: "things/status", Namespaced: false, Kind: "Thing"},
	})
	if err == nil || err.Error() != "parent things (scope: Namespaced) and subresource status (scope: Cluster) scope do not match" {
		t.Errorf("err = %v", err)
	}
	got, err := ConvertAPIResources([]APIResource{{Name: "orphans/scale", Namespaced: true, Verbs: []string{"get"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := jsonMarshal(got)
	if want := `[{"resource":"orphans","responseKind":{"group":"","version":"","kind":""},"scope":"Namespaced","singularResource":"","verbs":null,"subresources":[{"subresource":"scale","responseKind":{"group":"","version":"","kind":""},"verbs":["get"]}]}]`; string(b) != want {
		t.Errorf("\n got %s\nwant %s", b, want)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{RefreshInterval: -1}, {FetchTimeout: -1}, {Workers: -1}, {CoreResources: []byte("{")}, {APIRegistrationResources: []byte("x")}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}
