package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/aggsim/aggsim/certs"
)

var pkiFiles = []string{
	"ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key",
	"front-proxy-ca.crt", "front-proxy-ca.key", "front-proxy-client.crt", "front-proxy-client.key",
}

func loadCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := certs.ParseCertsPEM(b)
	if err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

func TestCertsInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	out, err := runRoot(t, "certs", "init", "--dir", dir, "--server", "https://aggsim.example:7443", "--extra-sans", "10.1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, f := range pkiFiles {
		fmt.Fprintf(&want, "created %s\n", filepath.Join(dir, f))
	}
	fmt.Fprintf(&want, "wrote   %s (server https://aggsim.example:7443, user aggsim-admin)\n", filepath.Join(dir, "kubeconfig"))
	fmt.Fprintf(&want, "backends trust the front proxy with --requestheader-client-ca-file=%s --requestheader-allowed-names=front-proxy-client\n", filepath.Join(dir, "front-proxy-ca.crt"))
	if out != want.String() {
		t.Errorf("output:\n%s\nwant:\n%s", out, want.String())
	}
	for _, f := range append(slices.Clone(pkiFiles), "kubeconfig") {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		wantMode := os.FileMode(0o644)
		if strings.HasSuffix(f, ".key") || f == "kubeconfig" {
			wantMode = 0o600
		}
		if fi.Mode().Perm() != wantMode {
			t.Errorf("%s mode %v, want %v", f, fi.Mode().Perm(), wantMode)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", fi.Mode().Perm())
	}
	s := certs.Describe(loadCert(t, filepath.Join(dir, "apiserver.crt")))
	if got, want := s.SANs(), []string{"localhost", "aggsim.example", "127.0.0.1", "::1", "10.1.2.3"}; !slices.Equal(got, want) {
		t.Errorf("serving SANs %v, want %v", got, want)
	}
	if got := certs.Describe(loadCert(t, filepath.Join(dir, "admin.crt"))).Subject; got != "CN=aggsim-admin,O=system:masters" {
		t.Errorf("admin subject %q", got)
	}

	cfg, err := clientcmd.LoadFromFile(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "aggsim" || cfg.Clusters["aggsim"].Server != "https://aggsim.example:7443" || cfg.Contexts["aggsim"].AuthInfo != "aggsim-admin" {
		t.Errorf("kubeconfig: %+v %+v", cfg.CurrentContext, cfg.Clusters["aggsim"])
	}
	ca, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if !bytes.Equal(cfg.Clusters["aggsim"].CertificateAuthorityData, ca) {
		t.Error("kubeconfig CA differs from ca.crt")
	}

	// Second run: everything kept, same bytes.
	before, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	out, err = runRoot(t, "certs", "init", "--dir", dir, "--server", "https://aggsim.example:7443")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "kept    "); n != 10 || strings.Contains(out, "created") {
		t.Errorf("second run output:\n%s", out)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if !bytes.Equal(before, after) {
		t.Error("ca.crt rewritten on the second run")
	}
}

func TestCertsInitErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"certs", "init"}, `required flag(s) "dir" not set`},
		{[]string{"certs", "init", "--dir", dir, "--key-type", "dsa"}, `--key-type: unsupported key type "dsa": use "ecdsa" or "rsa"`},
		{[]string{"certs", "init", "--dir", dir, "--server", "http://127.0.0.1:6443"}, `--server: want an https:// URL with a host, got "http://127.0.0.1:6443"`},
		{[]string{"certs", "init", "--dir", dir, "--validity", "-1h"}, "--validity and --ca-validity must be positive"},
	} {
		_, err := runRoot(t, tt.args...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestCertsInitEndToEnd serves HTTPS with apiserver.crt, requiring clients
// from ca.crt, and talks to it through the written kubeconfig with
// client-go and the real kubectl.
func TestCertsInitEndToEnd(t *testing.T) {
	for _, keyType := range []string{"ecdsa", "rsa"} {
		t.Run(keyType, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := runRoot(t, "certs", "init", "--dir", dir, "--key-type", keyType); err != nil {
				t.Fatal(err)
			}
			serving, err := tls.LoadX509KeyPair(filepath.Join(dir, "apiserver.crt"), filepath.Join(dir, "apiserver.key"))
			if err != nil {
				t.Fatal(err)
			}
			pool := x509.NewCertPool()
			pool.AddCert(loadCert(t, filepath.Join(dir, "ca.crt")))
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(r.TLS.PeerCertificates[0].Subject.String()))
			}))
			srv.TLS = &tls.Config{Certificates: []tls.Certificate{serving}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.StartTLS()
			defer srv.Close()

			// Re-run with the real server URL: certificates kept, kubeconfig rewritten.
			out, err := runRoot(t, "certs", "init", "--dir", dir, "--server", srv.URL)
			if err != nil || strings.Contains(out, "created") {
				t.Fatalf("re-run: %v\n%s", err, out)
			}
			kubeconfig := filepath.Join(dir, "kubeconfig")
			restCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			if restCfg.Host != srv.URL {
				t.Fatalf("kubeconfig host %q, want %q", restCfg.Host, srv.URL)
			}
			kubectl, err := exec.LookPath("kubectl")
			if err != nil {
				t.Skip("kubectl not on PATH")
			}
			got, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "--raw", "/").CombinedOutput()
			if err != nil || string(got) != "CN=aggsim-admin,O=system:masters" {
				t.Errorf("kubectl: %v: %s", err, got)
			}
		})
	}
}

func TestCertsBackend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "backend")
	out, err := runRoot(t, "certs", "backend", "--service", "api", "--namespace", "wardle", "--dir", dir,
		"--group", "wardle.example.com", "--version", "v1alpha1", "--port", "8443")
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	bundle := base64.StdEncoding.EncodeToString(caPEM)
	want := "" +
		"wrote   " + filepath.Join(dir, "ca.crt") + "\n" +
		"wrote   " + filepath.Join(dir, "ca.key") + "\n" +
		"wrote   " + filepath.Join(dir, "tls.crt") + "\n" +
		"wrote   " + filepath.Join(dir, "tls.key") + "\n" +
		"serverName: api.wardle.svc\n" +
		"caBundle: " + bundle + "\n" +
		"\n" +
		"# kubectl apply -f - <<EOF\n" +
		"apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1alpha1.wardle.example.com\n" +
		"spec:\n  group: wardle.example.com\n  version: v1alpha1\n  groupPriorityMinimum: 1000\n  versionPriority: 15\n" +
		"  service:\n    name: api\n    namespace: wardle\n    port: 8443\n  caBundle: " + bundle + "\n" +
		"# a backend on this machine is reached through Service wardle/api of type ExternalName, externalName: localhost,\n" +
		"# with spec.service.port set to the port it listens on\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	for name, mode := range map[string]os.FileMode{"ca.crt": 0o644, "ca.key": 0o600, "tls.crt": 0o644, "tls.key": 0o600} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %v", name, err, mode)
		}
	}
	leaf := loadCert(t, filepath.Join(dir, "tls.crt"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	if err := certs.VerifyFor([]*x509.Certificate{leaf}, pool, "api.wardle.svc"); err != nil {
		t.Error(err)
	}

	// Second run reuses <dir>/ca.*: same caBundle, new serving certificate.
	out, err = runRoot(t, "certs", "backend", "--service", "api", "--namespace", "wardle", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "reusing "+filepath.Join(dir, "ca.crt")+"\nwrote   "+filepath.Join(dir, "tls.crt")+"\nwrote   "+filepath.Join(dir, "tls.key")+"\n") ||
		!strings.Contains(out, "caBundle: "+bundle+"\n") || !strings.Contains(out, "# APIService spec (add group, version, groupPriorityMinimum, versionPriority):\nspec:\n  service:\n") {
		t.Errorf("second run output:\n%s", out)
	}
	if loadCert(t, filepath.Join(dir, "tls.crt")).Equal(leaf) {
		t.Error("tls.crt not reissued")
	}

	// An explicit CA elsewhere: its certificate is copied, its key is not.
	other := t.TempDir()
	out, err = runRoot(t, "certs", "backend", "--service", "s", "--namespace", "n", "--dir", other,
		"--ca-cert", filepath.Join(dir, "ca.crt"), "--ca-key", filepath.Join(dir, "ca.key"), "--key-type", "rsa")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(other, "ca.key")); !os.IsNotExist(err) {
		t.Errorf("ca.key copied: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(other, "ca.crt")); !bytes.Equal(got, caPEM) {
		t.Error("ca.crt not copied")
	}
	if !strings.Contains(out, "caBundle: "+bundle+"\n") {
		t.Errorf("explicit CA output:\n%s", out)
	}
}

func TestCertsBackendErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"certs", "backend", "--dir", dir}, `required flag(s) "namespace", "service" not set`},
		{[]string{"certs", "backend", "--service", "s", "--namespace", "n", "--dir", dir, "--ca-cert", "x"}, "--ca-cert and --ca-key must be given together"},
		{[]string{"certs", "backend", "--service", "s", "--namespace", "n", "--dir", dir, "--group", "g"}, "--group and --version must be given together"},
		{[]string{"certs", "backend", "--service", "s", "--namespace", "n", "--dir", dir, "--ca-cert", filepath.Join(dir, "no.crt"), "--ca-key", filepath.Join(dir, "no.key")}, "open " + filepath.Join(dir, "no.crt") + ": no such file or directory"},
	} {
		_, err := runRoot(t, tt.args...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
}
