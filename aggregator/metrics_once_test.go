package aggregator

import (
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
