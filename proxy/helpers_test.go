package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// testCA is a throw-away certificate authority, backed by certs.CA; pem
// is its certificate as PEM (a caBundle).
type testCA struct {
	ca  *certs.CA
	pem []byte
}

func newCA(t testing.TB, cn string) *testCA {
	t.Helper()
	ca, err := certs.NewCA(cn, certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{ca: ca, pem: ca.CertPEM}
}

func (ca *testCA) pool() *x509.CertPool { return ca.ca.Pool() }

// issue signs a leaf: a serving certificate for dnsNames plus 127.0.0.1
// and ::1, or a client certificate when client is true.
func (ca *testCA) issue(t testing.TB, cn string, client bool, dnsNames ...string) *tls.Certificate {
	t.Helper()
	var kp *certs.KeyPair
	var err error
	if client {
		kp, err = ca.ca.IssueClient(cn, nil)
	} else {
		kp, err = ca.ca.IssueServing(cn, dnsNames, []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")})
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// pki is the set of certificates most tests share: a serving CA with a
// certificate for api.wardle.svc and localhost, and a front-proxy CA with
// the proxy's client certificate.
type pki struct {
	servingCA, frontProxyCA *testCA
	serving, client         *tls.Certificate
}

var (
	pkiOnce   sync.Once
	sharedPKI *pki
)

func testPKI(t testing.TB) *pki {
	pkiOnce.Do(func() {
		p := &pki{servingCA: newCA(t, "serving-ca"), frontProxyCA: newCA(t, "front-proxy-ca")}
		p.serving = p.servingCA.issue(t, "api", false, "api.wardle.svc", "localhost")
		p.client = p.frontProxyCA.issue(t, "front-proxy-client", true)
		sharedPKI = p
	})
	return sharedPKI
}

// received is what a recording backend saw of one request.
type received struct {
	Method, Host, Path, Query, Proto string
	Header                           http.Header
	Body                             string
	ServerName                       string
	ClientCN                         string
	ClientSerial                     string
}

// testBackend is a TLS test backend that records every request it receives.
type testBackend struct {
	*httptest.Server
	mu   sync.Mutex // guards reqs
	reqs []received
}

func (b *testBackend) received() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.reqs...)
}

// port returns the backend's port as a string.
func (b *testBackend) port() string {
	u, _ := url.Parse(b.URL)
	return u.Port()
}

type backendOption func(*httptest.Server)

// withServingCert makes the backend present cert.
func withServingCert(cert *tls.Certificate) backendOption {
	return func(s *httptest.Server) { s.TLS.Certificates = []tls.Certificate{*cert} }
}

// withClientCA makes the backend require client certificates from ca.
func withClientCA(ca *testCA) backendOption {
	return func(s *httptest.Server) { s.TLS.ClientCAs = ca.pool() }
}

// unstartedBackend returns a TLS backend server, not started: HTTP/2
// enabled, the api.wardle.svc serving certificate, a client certificate
// required from the front-proxy CA, server errors not logged.
func unstartedBackend(t testing.TB, h http.Handler) *httptest.Server {
	p := testPKI(t)
	s := httptest.NewUnstartedServer(h)
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.TLS = &tls.Config{
		Certificates: []tls.Certificate{*p.serving},
		ClientCAs:    p.frontProxyCA.pool(),
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}
	return s
}

// newBackend starts a TLS backend (HTTP/2 enabled, serving certificate for
// api.wardle.svc, client certificate required from the front-proxy CA)
// that records each request, reads the body in full unless h does, and
// then runs h (nil answers 200 with {"ok":true}).
func newBackend(t testing.TB, h http.HandlerFunc, opts ...backendOption) *testBackend {
	t.Helper()
	b := &testBackend{}
	s := unstartedBackend(t, nil)
	for _, o := range opts {
		o(s)
	}
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := received{
			Method: r.Method, Host: r.Host, Path: r.URL.Path, Query: r.URL.RawQuery,
			Proto: r.Proto, Header: r.Header.Clone(),
		}
		if r.TLS != nil {
			rec.ServerName = r.TLS.ServerName
			if len(r.TLS.PeerCertificates) > 0 {
				rec.ClientCN = r.TLS.PeerCertificates[0].Subject.CommonName
				rec.ClientSerial = r.TLS.PeerCertificates[0].SerialNumber.String()
			}
		}
		if h == nil {
			body, _ := io.ReadAll(r.Body)
			rec.Body = string(body)
		}
		b.mu.Lock()
		b.reqs = append(b.reqs, rec)
		b.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	s.StartTLS()
	t.Cleanup(s.Close)
	b.Server = s
	return b
}

// staticResolver resolves every service to host:port.
func staticResolver(host, port string) ResolverFunc {
	return func(string, string, int32) (*url.URL, error) {
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, port)}, nil
	}
}

// testUser is the identity of most tests (the kubectl admin of c01).
func testUser() *authentication.UserInfo {
	return &authentication.UserInfo{
		Username: "kubernetes-admin",
		Groups:   []string{"system:masters", "system:authenticated"},
		Extra: map[string][]string{
			"authentication.kubernetes.io/credential-id": {"X509SHA256=7b4d03751b02e075b880f617744c05725fae3a3fffc3b44ba0a856f59fae8fdf"},
		},
	}
}

// target builds a Target for the wardle APIService on service wardle/api,
// changed by opts.
func target(opts ...func(*Target)) Target {
	t := Target{
		APIServiceName: "v1alpha1.wardle.example.com", Group: "wardle.example.com", Version: "v1alpha1",
		Service:   &ServiceRef{Namespace: "wardle", Name: "api", Port: 443},
		Available: true,
	}
	for _, o := range opts {
		o(&t)
	}
	return t
}

func withCABundle(pem []byte) func(*Target) { return func(t *Target) { t.CABundle = pem } }

// newTestHandler returns a Handler resolving to b (by host, e.g.
// "localhost" or "127.0.0.1"), presenting the shared client certificate,
// updated with target(opts...) trusting the serving CA unless opts change
// that.
func newTestHandler(t testing.TB, b *testBackend, host string, opts Options, topts ...func(*Target)) *Handler {
	t.Helper()
	p := testPKI(t)
	if opts.Resolver == nil {
		opts.Resolver = staticResolver(host, b.port())
	}
	if opts.Transports == nil && opts.GetClientCertificate == nil {
		opts.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return p.client, nil }
	}
	h := NewHandler(opts)
	h.Update(target(append([]func(*Target){withCABundle(p.servingCA.pem)}, topts...)...))
	t.Cleanup(h.Close)
	return h
}

// front serves h over TLS (HTTP/2 enabled) with user put in each request's
// context, standing in for the aggregator's authentication filter.
func front(t testing.TB, h http.Handler, user *authentication.UserInfo) *httptest.Server {
	t.Helper()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), user)))
	}))
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// serve runs one request through h directly with user in its context.
func serve(h http.Handler, r *http.Request, user *authentication.UserInfo) *httptest.ResponseRecorder {
	if user != nil {
		r = r.WithContext(request.WithUser(r.Context(), user))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// guard fails the test if done is not closed within a generous bound; it
// only keeps a broken streaming path from hanging the test run, it does
// not measure anything.
func guard(t testing.TB, done <-chan struct{}, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s: did not happen (the stream is buffered somewhere)", what)
	}
}
