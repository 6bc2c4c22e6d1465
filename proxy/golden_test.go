package proxy

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// capturedRequest is one entry of a c-proxy/*.backend.json capture: what
// the backend behind a real kube-apiserver 1.33 received.
type capturedRequest struct {
	Method  string      `json:"method"`
	Host    string      `json:"host"`
	Path    string      `json:"path"`
	Query   string      `json:"query"`
	Proto   string      `json:"proto"`
	Headers http.Header `json:"headers"`
	TLS     struct {
		ServerName string `json:"serverName"`
		Peer       []struct {
			Subject string `json:"subject"`
		} `json:"peerCertificates"`
	} `json:"tls"`
}

func loadCapture(t *testing.T, name string) capturedRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "proxy", name+".backend.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []capturedRequest
	if err := json.Unmarshal(data, &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 {
		t.Fatalf("%s: %d requests captured, want 1", name, len(reqs))
	}
	return reqs[0]
}

// TestGoldenCaptures replays client requests of the c-proxy captures and
// checks that the backend receives exactly what the real aggregator's
// backend received: method, Host, decoded path, re-encoded query, HTTP/2,
// SNI, the proxy client certificate and the FULL header map (so any header
// leaked from the client, or missing, fails). The client side of each case
// sends the non-forwarding headers the capture shows plus the hostile
// headers of the case (spoofed identity, credentials, impersonation),
// which must not reach the backend.
func TestGoldenCaptures(t *testing.T) {
	admin := testUser()
	cases := []struct {
		name   string
		target string // request URI as the client sent it
		body   string
		extra  http.Header // client-sent headers beyond the capture's
		user   *authentication.UserInfo
	}{
		{name: "c01-admin-kubectl", user: admin,
			extra: http.Header{"Authorization": {"Bearer admin-token"}}},
		{name: "c04-impersonate-extra",
			user: &authentication.UserInfo{Username: "jane", Groups: []string{"devs", "system:authenticated"},
				Extra: map[string][]string{"reason": {"change ticket 42"}, "acme.com/project": {"p1"}}},
			extra: http.Header{"Impersonate-User": {"jane"}, "Impersonate-Group": {"devs"},
				"Impersonate-Extra-Reason": {"change ticket 42"}, "Impersonate-Extra-Acme.com%2fproject": {"p1"}}},
		{name: "c05-token-user",
			user:  &authentication.UserInfo{Username: "token-admin", UID: "uid-token-admin", Groups: []string{"system:masters", "system:authenticated"}},
			extra: http.Header{"Authorization": {"Bearer realkube-admin-token"}}},
		{name: "c06-spoofed-headers", user: admin,
			extra: http.Header{"X-Remote-User": {"evil"}, "X-Remote-Group": {"evil-group"}, "X-Remote-Extra-Foo": {"bar"},
				"X-Remote-Uid": {"0"}, "X-Forwarded-For": {"192.0.2.99"}, "X-Forwarded-Host": {"spoofed.example"},
				"X-Forwarded-Proto": {"http"}, "X-Forwarded-Uri": {"/elsewhere"}}},
		{name: "c10-query-reencoding", user: admin,
			target: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/c10-query-reencoding?zeta=1&alpha=a%20b&labelSelector=app%3Dx,tier!%3Dfe&empty=&dup=2&dup=1&plus=a+b&semi=x;y"},
		{name: "c11-encoded-path", user: admin,
			target: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/c11%2Fencoded%20path"},
		{name: "c12-post-body", user: admin,
			body: `{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"c12-post-body"}}`},
	}
	b := newBackend(t, nil)
	h := newTestHandler(t, b, "localhost", Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := loadCapture(t, tc.name)
			target := tc.target
			if target == "" {
				target = want.Path
			}
			r := httptest.NewRequest(want.Method, "https://127.0.0.1:6443"+target, strings.NewReader(tc.body))
			r.RemoteAddr = "127.0.0.1:45732"
			for k, v := range want.Headers {
				if strings.HasPrefix(k, "X-Forwarded-") || strings.HasPrefix(k, "X-Remote-") || k == "Content-Length" {
					continue
				}
				r.Header[k] = v
			}
			for k, v := range tc.extra {
				r.Header[k] = v
			}
			before := len(b.received())
			w := serve(h, r, tc.user)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d, body %q", w.Code, w.Body.String())
			}
			reqs := b.received()
			if len(reqs) != before+1 {
				t.Fatalf("backend received %d requests, want 1", len(reqs)-before)
			}
			got := reqs[before]

			hostPort := "localhost:" + b.port()
			wantHeader := want.Headers.Clone()
			wantHeader["X-Forwarded-Host"] = []string{strings.Replace(wantHeader.Get("X-Forwarded-Host"), "localhost:8443", hostPort, 1)}
			if !reflect.DeepEqual(got.Header, wantHeader) {
				t.Errorf("backend headers differ from the capture:\n%s", headerDiff(got.Header, wantHeader))
			}
			wantHost := strings.Replace(want.Host, "localhost:8443", hostPort, 1)
			for _, c := range []struct{ what, got, want string }{
				{"method", got.Method, want.Method},
				{"host", got.Host, wantHost},
				{"path", got.Path, want.Path},
				{"query", got.Query, want.Query},
				{"proto", got.Proto, want.Proto},
				{"SNI", got.ServerName, want.TLS.ServerName},
				{"client cert", "CN=" + got.ClientCN, want.TLS.Peer[0].Subject},
				{"body", got.Body, tc.body},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

// headerDiff lists the header fields that differ between got and want.
func headerDiff(got, want http.Header) string {
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		if !reflect.DeepEqual(got[k], want[k]) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, k := range names {
		sb.WriteString("  " + k + ": got " + jsonString(got[k]) + ", want " + jsonString(want[k]) + "\n")
	}
	return sb.String()
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
