package aggregator

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
)

// named is a handler that answers its name, so tests can see who served.
type named string

func (n named) ServeHTTP(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, string(n)) }

func serve(m http.Handler, path string) (int, string, http.Header) {
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://example.test"+path, nil))
	return rec.Code, rec.Body.String(), rec.Header()
}

func TestMuxMatching(t *testing.T) {
	m := NewMux(nil)
	m.Handle("/apis", named("apis"))
	m.Handle("/apis/", named("apis-slash"))
	m.Handle("/apis/wardle.example.com", named("group"))
	m.UnlistedHandle("/apis/wardle.example.com/", named("group-slash"))
	m.Handle("/apis/wardle.example.com/v1alpha1", named("gv"))
	m.UnlistedHandlePrefix("/apis/wardle.example.com/v1alpha1/", named("gv-prefix"))
	m.HandlePrefix("/apis/wardle.example.com/", named("group-prefix"))
	m.HandlePrefix("/a/", named("a-prefix"))
	m.HandlePrefix("/a/b/", named("ab-prefix"))

	tests := []struct {
		name, path, want string
	}{
		{"exact", "/apis", "apis"},
		{"exact trailing slash is its own path", "/apis/", "apis-slash"},
		{"exact wins over prefix on the same path", "/apis/wardle.example.com/", "group-slash"},
		{"group exact", "/apis/wardle.example.com", "group"},
		{"gv exact without slash", "/apis/wardle.example.com/v1alpha1", "gv"},
		{"prefix matches itself", "/apis/wardle.example.com/v1alpha1/", "gv-prefix"},
		{"longest prefix wins", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", "gv-prefix"},
		{"shorter prefix for other versions", "/apis/wardle.example.com/v2/x", "group-prefix"},
		{"prefix /a/ does not match /a", "/a", "404 page not found\n"},
		{"nested prefixes", "/a/b/c/d", "ab-prefix"},
		{"nested prefixes, shorter", "/a/bc", "a-prefix"},
		{"double slash still a prefix match", "/a//b/", "a-prefix"},
		{"unknown group", "/apis/nosuch.example.com/v1/namespaces/default/flunders/c27", "404 page not found\n"},
		{"empty path", "", "404 page not found\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body, _ := serve(m, tt.path)
			if body != tt.want {
				t.Errorf("%q served by %q, want %q", tt.path, body, tt.want)
			}
		})
	}
}

// TestMuxNotFound checks the default answer against c-proxy/c27 and c28:
// 404, text/plain; charset=utf-8, nosniff, body "404 page not found\n".
func TestMuxNotFound(t *testing.T) {
	m := NewMux(nil)
	code, body, h := serve(m, "/apis/nosuch.example.com")
	if code != 404 || body != "404 page not found\n" {
		t.Fatalf("got %d %q", code, body)
	}
	if got := h.Get("Content-Type"); got != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
	m.NotFoundHandler(named("custom"))
	if _, body, _ := serve(m, "/x"); body != "custom" {
		t.Errorf("custom NotFound: %q", body)
	}
	m.NotFoundHandler(nil)
	if code, _, _ := serve(m, "/x"); code != 404 {
		t.Errorf("restored NotFound: %d", code)
	}
}

func TestMuxUnregisterAndReplace(t *testing.T) {
	m := NewMux(nil)
	m.Handle("/apis/g", named("old"))
	m.Handle("/apis/g", named("new")) // duplicate: logged, replaces
	if _, body, _ := serve(m, "/apis/g"); body != "new" {
		t.Fatalf("duplicate registration: %q", body)
	}
	m.HandlePrefix("/apis/g/", named("prefix"))
	m.UnlistedHandle("/apis/g/", named("exact-slash"))
	if got, want := m.ListedPaths(), []string{"/apis/g", "/apis/g", "/apis/g/"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ListedPaths %q, want %q", got, want)
	}
	m.Unregister("/apis/g/") // removes exact and prefix
	if _, body, _ := serve(m, "/apis/g/v1"); body != "404 page not found\n" {
		t.Errorf("after Unregister prefix: %q", body)
	}
	if _, body, _ := serve(m, "/apis/g/"); body != "404 page not found\n" {
		t.Errorf("after Unregister exact: %q", body)
	}
	m.Unregister("/apis/g")
	if got, want := m.ListedPaths(), []string{"/apis/g"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ListedPaths after one Unregister %q, want %q (first occurrence only)", got, want)
	}
	if _, body, _ := serve(m, "/apis/g"); body != "404 page not found\n" {
		t.Errorf("after Unregister: %q", body)
	}
	m.Unregister("/never-registered")
}

func TestMuxHandlePrefixNeedsSlash(t *testing.T) {
	defer func() {
		if got := recover(); got != `"/apis/g" must end in a trailing slash` {
			t.Fatalf("panic %v", got)
		}
	}()
	NewMux(nil).HandlePrefix("/apis/g", named("x"))
}

// TestMuxConcurrentSwap checks, under -race, that lookups take no lock and
// never see a half-built table: while one writer keeps adding and removing a
// group's routes in batches, a stable route always resolves to its own
// handler, and a toggled path resolves either to its registered prefix
// handler or to NotFound, never to anything else.
func TestMuxConcurrentSwap(t *testing.T) {
	m := NewMux(nil)
	m.Handle("/apis/stable.example.com/v1", named("stable"))
	stop := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				m.Update(func(tx *MuxTx) {
					tx.Handle("/apis/flip.example.com/v1", named("flip-v1"))
					tx.UnlistedHandlePrefix("/apis/flip.example.com/v1/", named("flip-v1"))
					tx.Handle("/apis/flip.example.com", named("flip-group"))
				})
			} else {
				m.Update(func(tx *MuxTx) {
					tx.Unregister("/apis/flip.example.com/v1")
					tx.Unregister("/apis/flip.example.com/v1/")
					tx.Unregister("/apis/flip.example.com")
				})
			}
		}
	}()
	var readers sync.WaitGroup
	for r := 0; r < 4; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := 0; i < 2000; i++ {
				if h, _ := m.Handler("/apis/stable.example.com/v1"); h != named("stable") {
					t.Errorf("stable route resolved to %v", h)
					return
				}
				h, pattern := m.Handler("/apis/flip.example.com/v1/x")
				switch {
				case pattern == "/apis/flip.example.com/v1/" && h == named("flip-v1"):
				case pattern == "":
				default:
					t.Errorf("toggled route resolved to %v via %q", h, pattern)
					return
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	<-writerDone
}

// TestMuxBatchIsAtomic checks that a batch is invisible until Update returns.
func TestMuxBatchIsAtomic(t *testing.T) {
	m := NewMux(nil)
	m.Update(func(tx *MuxTx) {
		tx.Handle("/apis/g/v1", named("v1"))
		tx.HandlePrefix("/apis/g/v1/", named("v1"))
		if _, pattern := m.Handler("/apis/g/v1"); pattern != "" {
			t.Errorf("change visible before the batch ended")
		}
	})
	if h, _ := m.Handler("/apis/g/v1/x"); h != named("v1") {
		t.Errorf("after batch: %v", h)
	}
}

func registerAPIServices(m *Mux, n int) {
	m.Update(func(tx *MuxTx) {
		for i := 0; i < n; i++ {
			g := fmt.Sprintf("/apis/g%d.example.com", i)
			tx.Handle(g, named("group"))
			tx.UnlistedHandle(g+"/", named("group"))
			tx.Handle(g+"/v1", named("gv"))
			tx.UnlistedHandlePrefix(g+"/v1/", named("gv"))
		}
	})
}

func TestMuxLookupDoesNotAllocate(t *testing.T) {
	m := NewMux(nil)
	registerAPIServices(m, 10000)
	paths := []string{
		"/apis/g9999.example.com/v1/namespaces/default/flunders/foo",
		"/apis/g1.example.com",
		"/apis/nosuch.example.com/v1/x",
		"/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p",
	}
	for _, p := range paths {
		if n := testing.AllocsPerRun(100, func() { m.Handler(p) }); n != 0 {
			t.Errorf("Handler(%q) allocates %v times", p, n)
		}
	}
	if h, pattern := m.Handler(paths[0]); h != named("gv") || pattern != "/apis/g9999.example.com/v1/" {
		t.Errorf("got %v %q", h, pattern)
	}
	// Registering one more APIService one call at a time still works.
	m.Handle("/apis/extra.example.com/v1", named("extra"))
	if h, _ := m.Handler("/apis/extra.example.com/v1"); h != named("extra") {
		t.Errorf("extra: %v", h)
	}
}

// BenchmarkMuxLookup10000 measures a proxied-path lookup with 10,000
// APIServices registered (4 routes each, as the registration controller adds).
func BenchmarkMuxLookup10000(b *testing.B) {
	m := NewMux(nil)
	registerAPIServices(m, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Handler("/apis/g5000.example.com/v1/namespaces/default/flunders/foo")
	}
}

// BenchmarkMuxRegister10000 measures registering 10,000 APIServices one
// route at a time (the registration controller's worst case).
func BenchmarkMuxRegister10000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := NewMux(nil)
		for j := 0; j < 10000; j++ {
			g := fmt.Sprintf("/apis/g%d.example.com", j)
			m.Handle(g+"/v1", named("gv"))
			m.UnlistedHandlePrefix(g+"/v1/", named("gv"))
		}
	}
}

// TestMuxAPIServiceRoutes: the router is the one place that knows what is
// routed for each APIService: SetAPIService routes /apis/<g>/<v> (and its
// subtree) and /apis/<g> while any version of the group is routed, Route
// says whether the handler proxies, a changed group/version moves the
// routes, and RemoveAPIService undoes it all.
func TestMuxAPIServiceRoutes(t *testing.T) {
	m := NewMux(nil)
	remote := namedHandler("remote")
	local := namedHandler("local")
	group := namedHandler("group")
	route := func(p string) (string, bool) {
		h, proxied := m.Route(httptest.NewRequest("GET", p, nil))
		if n, ok := h.(namedHandler); ok {
			return string(n), proxied
		}
		return "404", proxied
	}
	check := func(step string, want map[string]string) {
		t.Helper()
		for p, w := range want {
			name, proxied := route(p)
			got := name
			if proxied {
				got += " proxied"
			}
			if got != w {
				t.Errorf("%s: Route(%q) = %q, want %q", step, p, got, w)
			}
		}
	}
	m.SetAPIService(APIServiceRoute{Name: "v1.example.com", Group: "example.com", Version: "v1", Handler: remote, Proxied: true, GroupHandler: group})
	m.SetAPIService(APIServiceRoute{Name: "v2.example.com", Group: "example.com", Version: "v2", Handler: local, GroupHandler: group})
	check("both", map[string]string{
		"/apis/example.com/v1":            "remote proxied",
		"/apis/example.com/v1/":           "remote proxied",
		"/apis/example.com/v1/namespaces": "remote proxied",
		"/apis/example.com/v2/foos":       "local",
		"/apis/example.com":               "group",
		"/apis/example.com/":              "group",
		"/apis/example.com/v3":            "404",
	})
	req := httptest.NewRequest("GET", "/apis/example.com/v1/foos", nil)
	if n := testing.AllocsPerRun(10, func() { m.Route(req) }); n != 0 {
		t.Errorf("Route allocates %v times, want 0", n)
	}
	// v1 moves to another version; v2 goes away; the group stays while v1 exists.
	m.SetAPIService(APIServiceRoute{Name: "v1.example.com", Group: "example.com", Version: "v1beta1", Handler: remote, Proxied: true, GroupHandler: group})
	m.RemoveAPIService("v2.example.com")
	check("moved", map[string]string{
		"/apis/example.com/v1":           "404",
		"/apis/example.com/v1beta1/foos": "remote proxied",
		"/apis/example.com/v2/foos":      "404",
		"/apis/example.com":              "group",
	})
	if rt, ok := m.APIService("v1.example.com"); !ok || rt.Version != "v1beta1" || rt.Handler != remote {
		t.Errorf("APIService(v1.example.com) = %+v, %v", rt, ok)
	}
	m.RemoveAPIService("v1.example.com")
	check("removed", map[string]string{"/apis/example.com/v1beta1": "404", "/apis/example.com": "404"})
	if got := m.ListedPaths(); len(got) != 0 {
		t.Errorf("ListedPaths after removing everything = %v", got)
	}
}

// TestMuxBuiltinWins: a remote APIService for a group/version aggsim
// serves itself never takes its path, so it cannot hijack, say, the
// APIService API; removing it leaves the built-in route in place.
func TestMuxBuiltinWins(t *testing.T) {
	m := NewMux(nil)
	builtin, remote := namedHandler("builtin"), namedHandler("remote")
	m.Builtin("apiregistration.k8s.io", "v1", builtin)
	m.SetAPIService(APIServiceRoute{Name: "v1.apiregistration.k8s.io", Group: "apiregistration.k8s.io", Version: "v1", Handler: remote, Proxied: true})
	for _, p := range []string{"/apis/apiregistration.k8s.io/v1", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apiregistration.k8s.io"} {
		h, proxied := m.Route(httptest.NewRequest("DELETE", p, nil))
		if h != builtin || proxied {
			t.Errorf("Route(%q) = %v proxied %v, want the built-in handler", p, h, proxied)
		}
	}
	m.RemoveAPIService("v1.apiregistration.k8s.io")
	if h, _ := m.Route(httptest.NewRequest("GET", "/apis/apiregistration.k8s.io/v1", nil)); h != builtin {
		t.Errorf("after removal Route = %v, want the built-in handler", h)
	}
}

// namedHandler is a comparable handler that answers its name.
type namedHandler string

func (n namedHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(n)) }
