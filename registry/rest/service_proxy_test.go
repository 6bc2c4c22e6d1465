package rest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServiceProxy pins services/<id>/proxy: the errors are
// kube-apiserver 1.33.13's answers (curl -A kubectl
// .../services/<id>/proxy/x?y=1 for a missing Service, a Service without
// Endpoints, an unknown port number, Endpoints whose address upstream
// cannot use, and a malformed id); a loopback endpoint is proxied to
// with the path and query; the root without a slash is redirected (301);
// a dead endpoint is upstream's plain-error 500.
func TestServiceProxy(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s?%s auth=%q", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"))
	}))
	defer backend.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(backend.URL, "http://"))

	a := coreAPI(t)
	for _, c := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"metadata":{"name":"default"}}`},
		{"/api/v1/namespaces/default/services", `{"metadata":{"name":"px"},"spec":{"ports":[{"name":"80-8080","port":80,"targetPort":8080}]}}`},
		{"/api/v1/namespaces/default/services", `{"metadata":{"name":"px2"},"spec":{"ports":[{"name":"81-8081","port":81,"targetPort":8081}]}}`},
		{"/api/v1/namespaces/default/endpoints", `{"metadata":{"name":"px2"},"subsets":[{"addresses":[{"ip":"10.99.0.1"}],"ports":[{"name":"81-8081","port":8081}]}]}`},
		{"/api/v1/namespaces/default/services", `{"metadata":{"name":"web"},"spec":{"ports":[{"port":80}]}}`},
		{"/api/v1/namespaces/default/endpoints", `{"metadata":{"name":"web"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"port":` + port + `}]}]}`},
		{"/api/v1/namespaces/default/services", `{"metadata":{"name":"dead"},"spec":{"ports":[{"port":80}]}}`},
		{"/api/v1/namespaces/default/endpoints", `{"metadata":{"name":"dead"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"port":1}]}]}`},
	} {
		if w := coreDo(a, "POST", c.path, "application/json", c.body); w.Code != 201 {
			t.Fatalf("POST %s: %d %s", c.path, w.Code, w.Body)
		}
	}
	status := func(code int, reason, msg, details string) string {
		if reason != "" {
			reason = `,"reason":"` + reason + `"`
		}
		return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":%q%s%s,"code":%d}`+"\n", msg, reason, details, code)
	}
	for _, tc := range []struct {
		method, id, rest string
		code             int
		body             string
	}{
		{"GET", "nope", "/x?y=1", 404, status(404, "NotFound", `services "nope" not found`, `,"details":{"name":"nope","kind":"services"}`)},
		{"GET", "px", "/x?y=1", 404, status(404, "NotFound", `services "px" not found`, `,"details":{"name":"px","kind":"services"}`)},
		{"GET", "px:99", "/x?y=1", 503, status(503, "ServiceUnavailable", `no service port 99 found for service "px"`, "")},
		{"GET", "px2", "/x?y=1", 503, status(503, "ServiceUnavailable", `no endpoints available for service "px2"`, "")},
		{"GET", "px2:81", "/x?y=1", 503, status(503, "ServiceUnavailable", `no endpoints available for service "px2:81"`, "")},
		{"GET", "a:b:c:d", "/x?y=1", 400, status(400, "BadRequest", `invalid service request "a:b:c:d"`, "")},
		{"GET", "web", "/a/b/?q=1", 200, `GET /a/b/?q=1 auth=""`},
		{"POST", "http:web:80", "/post", 200, `POST /post? auth=""`},
		{"GET", "web", "?q=1", 301, ""},
		{"GET", "dead", "/", 500, status(500, "", "dial tcp 127.0.0.1:1: connect: connection refused", "")},
	} {
		r := httptest.NewRequest(tc.method, "/api/v1/namespaces/default/services/"+tc.id+"/proxy"+tc.rest, nil)
		r.Header.Set("User-Agent", "kubectl/v1.33.1")
		r.Header.Set("Authorization", "Bearer secret")
		w := httptest.NewRecorder()
		a.ServeHTTP(w, r)
		if w.Code != tc.code || w.Body.String() != tc.body {
			t.Errorf("%s %s%s: %d %s\nwant %d %s", tc.method, tc.id, tc.rest, w.Code, w.Body, tc.code, tc.body)
		}
		if tc.code == 301 && w.Header().Get("Location") != "/api/v1/namespaces/default/services/web/proxy/?q=1" {
			t.Errorf("redirect Location %q", w.Header().Get("Location"))
		}
	}
}
