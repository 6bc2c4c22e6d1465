package aggregator

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// testCA is a throw-away certificate authority for one test, backed by
// certs.CA; pool trusts only it.
type testCA struct {
	ca   *certs.CA
	pool *x509.CertPool
}

func newTestCA(t testing.TB, cn string) *testCA {
	t.Helper()
	ca, err := certs.NewCA(cn, certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{ca: ca, pool: ca.Pool()}
}

// issue returns a client certificate (client-auth usage) for cn/orgs.
func (ca *testCA) issue(t testing.TB, cn string, orgs ...string) tls.Certificate {
	t.Helper()
	kp, err := ca.ca.IssueClient(cn, orgs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func certID(c tls.Certificate) string {
	sum := sha256.Sum256(c.Certificate[0])
	return "X509SHA256=" + hex.EncodeToString(sum[:])
}

// seen is what the innermost handler observed.
type seen struct {
	User   *authentication.UserInfo `json:"user"`
	Header http.Header              `json:"header"`
}

// echoUser answers the context user and the request headers as JSON.
var echoUser = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	u, _ := request.UserFrom(r.Context())
	h := r.Header.Clone()
	for _, k := range []string{"Accept-Encoding", "User-Agent", "Audit-Id"} {
		delete(h, k)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(seen{User: u, Header: h})
})

// authnServer starts a TLS server running the full chain around echoUser.
// Clients may present any certificate; the filters decide (as kube-apiserver
// does with tls.RequestClientCert).
func authnServer(t *testing.T, opts ChainOptions) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(BuildHandlerChain(echoUser, opts))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func clientWith(srv *httptest.Server, certs ...tls.Certificate) *http.Client {
	c := srv.Client()
	tr := c.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = certs
	return &http.Client{Transport: tr}
}

type result struct {
	code int
	body string
	seen seen
}

func do(t *testing.T, c *http.Client, url string, hdr map[string][]string) result {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, vs := range hdr {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	res := result{code: resp.StatusCode, body: string(b)}
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(b, &res.seen); err != nil {
			t.Fatalf("decode %q: %v", b, err)
		}
	}
	return res
}

const unauthorizedBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"

func TestAuthentication(t *testing.T) {
	clientCA := newTestCA(t, "client-ca")
	frontCA := newTestCA(t, "front-proxy-ca")
	otherCA := newTestCA(t, "untrusted")
	admin := clientCA.issue(t, "kubernetes-admin", "system:masters")
	bob := clientCA.issue(t, "bob", "devs")
	noCN := clientCA.issue(t, "", "devs")
	untrusted := otherCA.issue(t, "kubernetes-admin", "system:masters")
	proxyCert := frontCA.issue(t, "front-proxy-client")
	wrongProxyCN := frontCA.issue(t, "not-allowed")

	tokens, err := ParseTokenFile("tokens.csv", strings.NewReader("realkube-admin-token,token-admin,uid-token-admin,\"system:masters\"\nplain-token,plain,uid-plain\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	authn := AuthnOptions{
		ClientCA:  func() *x509.CertPool { return clientCA.pool },
		TokenFile: tokens,
		RequestHeader: &RequestHeaderOptions{
			ClientCA:     func() *x509.CertPool { return frontCA.pool },
			AllowedNames: []string{"front-proxy-client"},
		},
	}
	anonAuthn := authn
	anonAuthn.Anonymous = true
	srv := authnServer(t, ChainOptions{Authn: authn})
	anonSrv := authnServer(t, ChainOptions{Authn: anonAuthn})
	path := "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x"

	tests := []struct {
		name     string
		srv      *httptest.Server
		certs    []tls.Certificate
		hdr      map[string][]string
		wantCode int
		wantUser *authentication.UserInfo
		// wantHeader is the full request header the handler saw.
		wantHeader http.Header
	}{
		{
			name: "cert user", srv: srv, certs: []tls.Certificate{admin}, wantCode: 200,
			wantUser: &authentication.UserInfo{Username: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"},
				Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {certID(admin)}}},
			wantHeader: http.Header{},
		},
		{
			name: "cert user sending X-Remote-* is not believed", srv: srv, certs: []tls.Certificate{bob},
			hdr:      map[string][]string{"X-Remote-User": {"evil"}, "X-Remote-Group": {"system:masters"}, "X-Remote-Extra-Foo": {"bar"}, "X-Custom": {"kept"}},
			wantCode: 200,
			wantUser: &authentication.UserInfo{Username: "bob", Groups: []string{"devs", "system:authenticated"},
				Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {certID(bob)}}},
			wantHeader: http.Header{"X-Custom": {"kept"}},
		},
		{name: "untrusted cert", srv: srv, certs: []tls.Certificate{untrusted}, wantCode: 401},
		{name: "untrusted cert is not anonymous even when enabled", srv: anonSrv, certs: []tls.Certificate{untrusted}, wantCode: 401},
		{name: "cert without CN authenticates nobody", srv: srv, certs: []tls.Certificate{noCN}, wantCode: 401},
		{name: "no credentials", srv: srv, wantCode: 401},
		{
			name: "no credentials, anonymous enabled", srv: anonSrv, wantCode: 200,
			wantUser:   &authentication.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}},
			wantHeader: http.Header{},
		},
		{
			name: "token user", srv: srv, hdr: map[string][]string{"Authorization": {"Bearer realkube-admin-token"}}, wantCode: 200,
			wantUser:   &authentication.UserInfo{Username: "token-admin", UID: "uid-token-admin", Groups: []string{"system:masters", "system:authenticated"}},
			wantHeader: http.Header{},
		},
		{
			name: "token user without groups", srv: srv, hdr: map[string][]string{"Authorization": {"bearer plain-token"}}, wantCode: 200,
			wantUser:   &authentication.UserInfo{Username: "plain", UID: "uid-plain", Groups: []string{"system:authenticated"}},
			wantHeader: http.Header{},
		},
		{name: "unknown token", srv: srv, hdr: map[string][]string{"Authorization": {"Bearer nope"}}, wantCode: 401},
		{name: "unknown token is not anonymous", srv: anonSrv, hdr: map[string][]string{"Authorization": {"Bearer nope"}}, wantCode: 401},
		{
			name: "basic auth is ignored, anonymous", srv: anonSrv, hdr: map[string][]string{"Authorization": {"Basic Zm9vOmJhcg=="}}, wantCode: 200,
			wantUser:   &authentication.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}},
			wantHeader: http.Header{},
		},
		{
			name: "front-proxy", srv: srv, certs: []tls.Certificate{proxyCert}, wantCode: 200,
			hdr: map[string][]string{
				"X-Remote-User": {"alice"}, "X-Remote-Uid": {"uid-1"}, "X-Remote-Group": {"devs", "", "qa"},
				"X-Remote-Extra-Acme.com%2fproject": {"p1", "p2"}, "X-Remote-Extra-Reason": {"ticket 42"},
				"Authorization": {"Bearer realkube-admin-token"},
			},
			wantUser: &authentication.UserInfo{Username: "alice", UID: "uid-1", Groups: []string{"devs", "qa", "system:authenticated"},
				Extra: map[string][]string{"acme.com/project": {"p1", "p2"}, "reason": {"ticket 42"}}},
			wantHeader: http.Header{},
		},
		{
			name: "front-proxy cert without X-Remote-User", srv: srv, certs: []tls.Certificate{proxyCert},
			hdr: map[string][]string{"X-Remote-Group": {"system:masters"}}, wantCode: 401,
		},
		{
			name: "front-proxy CA but CN not allowed", srv: srv, certs: []tls.Certificate{wrongProxyCN},
			hdr: map[string][]string{"X-Remote-User": {"alice"}}, wantCode: 401,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, clientWith(tt.srv, tt.certs...), tt.srv.URL+path, tt.hdr)
			if res.code != tt.wantCode {
				t.Fatalf("code %d, want %d; body %s", res.code, tt.wantCode, res.body)
			}
			if tt.wantCode == 401 {
				if res.body != unauthorizedBody {
					t.Errorf("body %q\nwant %q", res.body, unauthorizedBody)
				}
				return
			}
			if !reflect.DeepEqual(res.seen.User, tt.wantUser) {
				t.Errorf("user %+v\nwant %+v", res.seen.User, tt.wantUser)
			}
			if !reflect.DeepEqual(res.seen.Header, tt.wantHeader) {
				t.Errorf("handler saw header %v\nwant %v", res.seen.Header, tt.wantHeader)
			}
		})
	}
}

// TestAuthenticationCAReload checks that the CA func is consulted per
// request, so a reloaded --client-ca-file takes effect without a restart.
func TestAuthenticationCAReload(t *testing.T) {
	ca1, ca2 := newTestCA(t, "one"), newTestCA(t, "two")
	current := ca1.pool
	srv := authnServer(t, ChainOptions{Authn: AuthnOptions{ClientCA: func() *x509.CertPool { return current }}})
	user2 := ca2.issue(t, "carol")
	c := clientWith(srv, user2)
	if res := do(t, c, srv.URL+"/x", nil); res.code != 401 {
		t.Fatalf("before reload: %d", res.code)
	}
	current = ca2.pool
	c.CloseIdleConnections()
	if res := do(t, c, srv.URL+"/x", nil); res.code != 200 || res.seen.User.Username != "carol" {
		t.Fatalf("after reload: %d %+v", res.code, res.seen.User)
	}
}

func TestUnauthorizedPretty(t *testing.T) {
	h := WithAuthentication(echoUser, AuthnOptions{}, nil)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/apis", nil)
	req.Header.Set("User-Agent", "curl/8.5.0")
	h.ServeHTTP(rec, req)
	want := "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"Unauthorized\",\n  \"reason\": \"Unauthorized\",\n  \"code\": 401\n}"
	if rec.Code != 401 || rec.Body.String() != want {
		t.Errorf("%d %q", rec.Code, rec.Body.String())
	}
	if got := rec.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}
