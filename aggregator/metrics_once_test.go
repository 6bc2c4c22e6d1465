package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aggsim/aggsim/proxy"
)

// newProxiedPathServer returns a Server whose registration controller has
// published one remote APIService, v1.example.com.
func newProxiedPathServer() *Server {
	s := &Server{}
	s.registration = newRegistrationController(s)
	s.registration.handlers["v1.example.com"] = proxy.NewHandler(proxy.Options{})
	s.registration.gvOf["v1.example.com"] = [2]string{"example.com", "v1"}
	s.registration.publish()
	return s
}

func TestIsProxiedPath(t *testing.T) {
	s := newProxiedPathServer()
	for p, want := range map[string]bool{
		"/apis/example.com/v1":            true,
		"/apis/example.com/v1/":           true,
		"/apis/example.com/v1/namespaces": true,
		"/apis/example.com/v2":            false,
		"/apis/example.com":               false,
		"/apis/example.com/":              false,
		"/apis//v1":                       false,
		"/apis/":                          false,
		"/api/v1":                         false,
		"/apisx/example.com/v1":           false,
	} {
		if got := s.isProxiedPath(p); got != want {
			t.Errorf("isProxiedPath(%q) = %v, want %v", p, got, want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { s.isProxiedPath("/apis/example.com/v1/foos") }); n != 0 {
		t.Errorf("isProxiedPath allocates %v times, want 0", n)
	}
	if h := s.registration.proxyHandler("v1.example.com"); h == nil || h != s.registration.proxyHandlerFor("example.com", "v1") {
		t.Errorf("proxyHandler and proxyHandlerFor disagree")
	}
}

// TestInstrumentClassifiesOnce checks that the timeout filter's
// AnswersOwnDeadline reuses instrument's answer (stored on the context)
// instead of classifying the path again, and that the RequestInfo
// instrument parsed stays visible to RequestInfoFrom.
func TestInstrumentClassifiesOnce(t *testing.T) {
	s := newProxiedPathServer()
	s.metrics = newMetrics(nil, nil)
	var answered, sawRI, riPath = false, false, ""
	h := s.instrument(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Unpublish: a second classification would now say "not proxied".
		s.registration.published.Store(&publishedHandlers{})
		answered = s.answersOwnDeadline(r)
		ri, ok := RequestInfoFrom(r.Context())
		sawRI = ok
		if ok {
			riPath = ri.Path
		}
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/apis/example.com/v1/namespaces/a/foos", nil))
	if !answered || !sawRI || riPath != "/apis/example.com/v1/namespaces/a/foos" {
		t.Fatalf("answersOwnDeadline = %v, RequestInfo found = %v path %q", answered, sawRI, riPath)
	}
	// Without instrument's context, the path is classified directly.
	r := httptest.NewRequest("GET", "/apis/example.com/v1", nil)
	if s.answersOwnDeadline(r) {
		t.Errorf("answersOwnDeadline without instrument: true after unpublish")
	}
}

func TestInstrumentedContextDelegates(t *testing.T) {
	type k struct{}
	parent := context.WithValue(context.Background(), k{}, "v")
	parent = WithRequestInfoContext(parent, &RequestInfo{Path: "/outer"})
	c := &instrumentedContext{Context: parent}
	if c.Value(k{}) != "v" {
		t.Errorf("other keys are not delegated")
	}
	if ri, ok := RequestInfoFrom(c); !ok || ri.Path != "/outer" {
		t.Errorf("nil ri must delegate to the parent's RequestInfo, got %v %v", ri, ok)
	}
	c.ri = &RequestInfo{Path: "/inner"}
	if ri, ok := RequestInfoFrom(c); !ok || ri.Path != "/inner" {
		t.Errorf("RequestInfoFrom = %v %v, want /inner", ri, ok)
	}
}

func TestCodeLabel(t *testing.T) {
	for code, want := range map[int]string{100: "100", 200: "200", 504: "504", 599: "599", 600: "600", 42: "42", -1: "-1"} {
		if got := codeLabel(code); got != want {
			t.Errorf("codeLabel(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestDryRunLabelSkipsQueryWithoutDryRun(t *testing.T) {
	for q, want := range map[string]string{
		"":                           "",
		"limit=500":                  "",
		"dryRun=All":                 "All",
		"dryRun=b&dryRun=a&dryRun=b": "a,b",
	} {
		r := httptest.NewRequest("GET", "/api/v1/pods?"+q, nil)
		if got := dryRunLabel(r); got != want {
			t.Errorf("dryRunLabel(%q) = %q, want %q", q, got, want)
		}
	}
}
