package certs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func TestKubeconfigBytesExact(t *testing.T) {
	got, err := KubeconfigBytes("https://127.0.0.1:6443", []byte("CA"), []byte("CERT"), []byte("KEY"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: Q0E=
    server: https://127.0.0.1:6443
  name: aggsim
contexts:
- context:
    cluster: aggsim
    user: aggsim-admin
  name: aggsim
current-context: aggsim
kind: Config
preferences: {}
users:
- name: aggsim-admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
`
	if string(got) != want {
		t.Errorf("kubeconfig:\n%s\nwant:\n%s", got, want)
	}
}

func TestKubeconfigBytesErrors(t *testing.T) {
	for _, tt := range []struct {
		name       string
		server     string
		cert, key  []byte
		wantErrMsg string
	}{
		{"no server", "", nil, nil, "kubeconfig: server is required"},
		{"cert without key", "https://x", []byte("c"), nil, "kubeconfig: client certificate and key must be given together"},
	} {
		_, err := KubeconfigBytes(tt.server, nil, tt.cert, tt.key, "")
		if err == nil || err.Error() != tt.wantErrMsg {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.wantErrMsg)
		}
	}
}

// TestKubeconfigWithClientGo writes the PKI's kubeconfig, loads it with
// clientcmd and makes a real request through client-go's transport.
func TestKubeconfigWithClientGo(t *testing.T) {
	dir := t.TempDir()
	p := mustEnsure(t, dir, Options{})
	srv := newPKIServer(t, p)
	path := filepath.Join(dir, "kubeconfig")
	if err := WriteKubeconfig(path, srv.URL, readFile(t, p.CACert), readFile(t, p.AdminCert), readFile(t, p.AdminKey), "ctx1"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode %v, want 0600", fi.Mode().Perm())
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "ctx1" || cfg.Contexts["ctx1"].Cluster != "aggsim" || cfg.Contexts["ctx1"].AuthInfo != "aggsim-admin" {
		t.Errorf("contexts: current %q, %+v", cfg.CurrentContext, cfg.Contexts["ctx1"])
	}
	if !bytes.Equal(cfg.Clusters["aggsim"].CertificateAuthorityData, readFile(t, p.CACert)) || cfg.Clusters["aggsim"].Server != srv.URL {
		t.Errorf("cluster: %+v", cfg.Clusters["aggsim"])
	}
	if !bytes.Equal(cfg.AuthInfos["aggsim-admin"].ClientKeyData, readFile(t, p.AdminKey)) {
		t.Errorf("user key data differs")
	}
	restCfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rc.Get(srv.URL + "/whoami")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if b.String() != "CN=aggsim-admin,O=system:masters" {
		t.Errorf("server saw %q", b.String())
	}
}

// TestKubectlAndCurlReadTheFiles runs the real kubectl (PKCS#8 EC and RSA
// keys in an embedded kubeconfig) and curl (key files) against a server
// using the generated serving certificate.
func TestKubectlAndCurlReadTheFiles(t *testing.T) {
	for _, kt := range []KeyType{KeyTypeECDSA, KeyTypeRSA} {
		t.Run(string(kt), func(t *testing.T) {
			dir := t.TempDir()
			p := mustEnsure(t, dir, Options{KeyType: kt})
			srv := newPKIServer(t, p)
			kc, err := p.Kubeconfig(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "kubeconfig")
			os.WriteFile(path, kc, 0o600)
			if kubectl, err := exec.LookPath("kubectl"); err == nil {
				out, err := exec.CommandContext(context.Background(), kubectl, "--kubeconfig", path, "get", "--raw", "/whoami").CombinedOutput()
				if err != nil || string(out) != "CN=aggsim-admin,O=system:masters" {
					t.Errorf("kubectl: %v: %s", err, out)
				}
			} else {
				t.Log("kubectl not on PATH; skipped")
			}
			if curl, err := exec.LookPath("curl"); err == nil {
				out, err := exec.Command(curl, "-sS", "--cacert", p.CACert, "--cert", p.AdminCert, "--key", p.AdminKey,
					strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/whoami").CombinedOutput()
				if err != nil || string(out) != "CN=aggsim-admin,O=system:masters" {
					t.Errorf("curl: %v: %s", err, out)
				}
			} else {
				t.Log("curl not on PATH; skipped")
			}
		})
	}
}
