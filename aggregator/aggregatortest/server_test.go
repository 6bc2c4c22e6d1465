package aggregatortest_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// TestStartServesHTTPS checks the Server a user gets from Start: HTTPS on
// 127.0.0.1 with HTTP/2, ready at once, the admin client authenticated.
func TestStartServesHTTPS(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Errorf("URL %q", srv.URL)
	}
	resp, err := srv.Client().Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Proto != "HTTP/2.0" {
		t.Errorf("GET /readyz: %d over %s; want 200 over HTTP/2.0", resp.StatusCode, resp.Proto)
	}
	// The legacy /apis lists the aggregator's own group first.
	r := get(t, srv.Client(), srv.URL+"/apis")
	if r.code != http.StatusOK || !strings.HasPrefix(r.body, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apiregistration.k8s.io",`) {
		t.Errorf("GET /apis: %d %s", r.code, r.body)
	}
	// The PEM accessors match what the server presents and trusts.
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CAPEM()) {
		t.Fatal("CAPEM holds no certificate")
	}
	admin, err := tls.X509KeyPair(srv.AdminCertPEM(), srv.AdminKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	fromPEM := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{admin}}}}
	wantResponse(t, "client built from the PEMs", get(t, fromPEM, srv.URL+"/readyz"), response{http.StatusOK, "text/plain; charset=utf-8", "ok"})
	fp := x509.NewCertPool()
	if !fp.AppendCertsFromPEM(srv.FrontProxyCAPEM()) {
		t.Fatal("FrontProxyCAPEM holds no certificate")
	}
	kp, err := tls.X509KeyPair(srv.FrontProxyClientCertPEM(), srv.FrontProxyClientKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(kp.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: fp, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil || leaf.Subject.CommonName != "front-proxy-client" {
		t.Errorf("front-proxy client certificate CN %q: %v", leaf.Subject.CommonName, err)
	}
	if srv.PKI().Dir == "" || srv.Aggregator() == nil {
		t.Error("PKI or Aggregator missing")
	}
}

// TestAuthentication checks the authentication options: without
// credentials 401 (anonymous off by default), WithAnonymousAuth lets the
// request in, WithToken adds a bearer token.
func TestAuthentication(t *testing.T) {
	t.Parallel()
	noCert := func(srv *aggregatortest.Server) *http.Client {
		cfg := srv.AdminTLSConfig()
		cfg.Certificates = nil
		return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	}
	unauthorized := response{http.StatusUnauthorized, "application/json",
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"}

	srv := aggregatortest.Start(t, aggregatortest.WithToken("t0ken", "jane", "devs"))
	wantResponse(t, "no credentials", get(t, noCert(srv), srv.URL+"/readyz"), unauthorized)
	wantResponse(t, "unknown token", get(t, noCert(srv), srv.URL+"/readyz", "Authorization", "Bearer nope"), unauthorized)
	wantResponse(t, "token", get(t, noCert(srv), srv.URL+"/readyz", "Authorization", "Bearer t0ken"), response{http.StatusOK, "text/plain; charset=utf-8", "ok"})

	anon := aggregatortest.Start(t, aggregatortest.WithAnonymousAuth())
	wantResponse(t, "anonymous", get(t, noCert(anon), anon.URL+"/readyz"), response{http.StatusOK, "text/plain; charset=utf-8", "ok"})
}

// TestKubeconfigWithClientGoAndKubectl uses the kubeconfig the way a user
// would: client-go from the bytes, kubectl from the file.
func TestKubeconfigWithClientGoAndKubectl(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "kc.example.com", Versions: []string{"v1alpha1"}})

	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != srv.URL {
		t.Errorf("kubeconfig server %q; want %q", cfg.Host, srv.URL)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != "v1.33.0-aggsim.aggregatortest" {
		t.Errorf("gitVersion %q", v.GitVersion)
	}
	data, err := os.ReadFile(srv.KubeconfigPath())
	if err != nil || string(data) != string(srv.Kubeconfig()) {
		t.Fatalf("kubeconfig file differs from Kubeconfig(): %v", err)
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	out, err := exec.Command(kubectl, "--kubeconfig", srv.KubeconfigPath(), "get", "apiservice", "v1alpha1.kc.example.com",
		"-o", `jsonpath={.spec.service.namespace}/{.spec.service.name} {.status.conditions[0].type}={.status.conditions[0].status} {.status.conditions[0].reason}`).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl: %v\n%s", err, out)
	}
	if want := "default/kc-example-com Available=True Passed"; string(out) != want {
		t.Errorf("kubectl printed %q; want %q", out, want)
	}
}

// TestCloseStopsEverything checks NewServer/Close outside of a test's
// cleanup: Close may be called twice, the port stops listening, the
// temporary directory is removed, and AddBackend then fails.
func TestCloseStopsEverything(t *testing.T) {
	t.Parallel()
	srv, err := aggregatortest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "closing.example.com", Versions: []string{"v1"}})
	dir := srv.PKI().Dir
	srv.Close()
	srv.Close()
	addr := strings.TrimPrefix(srv.URL, "https://")
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Close", addr)
	}
	if c, err := net.Dial("tcp", strings.TrimPrefix(b.URL, "https://")); err == nil {
		c.Close()
		t.Errorf("backend %s still accepts connections after the server's Close", b.URL)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("PKI directory %s still there: %v", dir, err)
	}
	_, err = srv.AddBackend(t.Context(), aggregatortest.BackendOptions{Group: "late.example.com", Versions: []string{"v1"}})
	if err == nil || err.Error() != "aggregatortest: server is closed" {
		t.Errorf("AddBackend after Close: %v", err)
	}
}

// TestManyServersInParallel starts 20 Servers at once, each with a backend,
// and checks that each proxies to its own backend only: no shared ports,
// certificates or state.
func TestManyServersInParallel(t *testing.T) {
	t.Parallel()
	for i := range 20 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			srv := aggregatortest.Start(t)
			group := fmt.Sprintf("p%d.example.com", i)
			srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: group, Versions: []string{"v1"}})
			wantResponse(t, "proxied", get(t, srv.Client(), srv.URL+"/apis/"+group+"/v1"), response{http.StatusOK, "application/json",
				`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"` + group + `/v1","resources":[]}` + "\n"})
			// Another server's group is unknown here.
			other := fmt.Sprintf("p%d.example.com", (i+1)%20)
			wantResponse(t, "other server's group", get(t, srv.Client(), srv.URL+"/apis/"+other+"/v1"),
				response{http.StatusNotFound, "text/plain; charset=utf-8", "404 page not found\n"})
		})
	}
}
