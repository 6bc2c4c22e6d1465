package certs

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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

// TestLoadKubeconfigClientRoundTrip reads back what WriteKubeconfig wrote.
func TestLoadKubeconfigClientRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := WriteKubeconfig(path, "https://127.0.0.1:6443", []byte("CA"), []byte("CERT"), []byte("KEY"), "ctx1"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "ctx1"} {
		got, err := LoadKubeconfigClient(path, name)
		if err != nil {
			t.Fatal(err)
		}
		want := &KubeconfigClient{Server: "https://127.0.0.1:6443", CAPEM: []byte("CA"), CertPEM: []byte("CERT"), KeyPEM: []byte("KEY")}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("context %q: %+v, want %+v", name, got, want)
		}
	}
}

// TestLoadKubeconfigClient resolves contexts, embedded data, files
// relative to the kubeconfig's directory, tokens and the insecure flag,
// and reports each failure.
func TestLoadKubeconfigClient(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"ca.crt": "FILE-CA", "sub/client.crt": "FILE-CERT", "sub/client.key": "FILE-KEY", "token": "  file-token\n"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const kubeconfig = `apiVersion: v1
kind: Config
current-context: files
preferences: {colors: true}
clusters:
- name: c-files
  cluster: {server: "https://files:6443", certificate-authority: ca.crt}
- name: c-data
  cluster: {server: "https://data:6443", certificate-authority: nosuch, certificate-authority-data: REFUQS1DQQ==, insecure-skip-tls-verify: true}
- name: c-bad
  cluster: {server: "https://bad:6443", certificate-authority-data: "!!"}
- name: c-missing
  cluster: {server: "https://missing:6443", certificate-authority: nosuch.crt}
users:
- name: u-files
  user: {client-certificate: sub/client.crt, client-key: sub/client.key, tokenFile: token}
- name: u-data
  user: {client-certificate-data: REFUQS1DRVJU, client-key-data: REFUQS1LRVk=, client-key: nosuch, token: data-token, tokenFile: nosuch}
- name: u-bad-key
  user: {client-key-data: "??"}
contexts:
- name: files
  context: {cluster: c-files, user: u-files}
- name: data
  context: {cluster: c-data, user: u-data}
- name: no-entries
  context: {cluster: nosuch, user: nosuch}
- name: bad-ca
  context: {cluster: c-bad, user: u-data}
- name: bad-key
  context: {cluster: c-data, user: u-bad-key}
- name: missing-ca
  context: {cluster: c-missing, user: u-data}
`
	path := filepath.Join(dir, "config")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		context string
		want    *KubeconfigClient
		wantErr string
	}{
		{context: "", want: &KubeconfigClient{Server: "https://files:6443", CAPEM: []byte("FILE-CA"), CertPEM: []byte("FILE-CERT"), KeyPEM: []byte("FILE-KEY"), Token: "file-token"}},
		{context: "data", want: &KubeconfigClient{Server: "https://data:6443", CAPEM: []byte("DATA-CA"), CertPEM: []byte("DATA-CERT"), KeyPEM: []byte("DATA-KEY"), Token: "data-token", InsecureSkipTLSVerify: true}},
		{context: "no-entries", want: &KubeconfigClient{}},
		{context: "nosuch", wantErr: `kubeconfig ` + path + `: context "nosuch" not found`},
		{context: "bad-ca", wantErr: `kubeconfig ` + path + `: certificate-authority-data: illegal base64 data at input byte 0`},
		{context: "bad-key", wantErr: `kubeconfig ` + path + `: client-key-data: illegal base64 data at input byte 0`},
		{context: "missing-ca", wantErr: `open ` + filepath.Join(dir, "nosuch.crt") + `: no such file or directory`},
	}
	for _, tc := range cases {
		got, err := LoadKubeconfigClient(path, tc.context)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("context %q: err %v, want %s", tc.context, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("context %q: %+v %v, want %+v", tc.context, got, err, tc.want)
		}
	}
	var ce base64.CorruptInputError
	if _, err := LoadKubeconfigClient(path, "bad-ca"); !errors.As(err, &ce) {
		t.Errorf("bad base64: %#v, want a base64.CorruptInputError", err)
	}
	if _, err := LoadKubeconfigClient(path, "missing-ca"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing CA file: %v, want fs.ErrNotExist", err)
	}
	if _, err := LoadKubeconfigClient(filepath.Join(dir, "absent"), ""); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing kubeconfig: %v, want fs.ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("clusters: [\n"), 0o600)
	if _, err := LoadKubeconfigClient(bad, ""); err == nil || !strings.HasPrefix(err.Error(), "kubeconfig "+bad+": ") {
		t.Errorf("bad YAML: %v, want kubeconfig %s: ...", err, bad)
	}
}

// TestParseKubeconfigWriteRead: the model reads back what it writes,
// field for field.
func TestParseKubeconfigWriteRead(t *testing.T) {
	kc, err := NewKubeconfig("https://x:1", []byte("CA"), nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	data, err := kc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseKubeconfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, kc) {
		t.Errorf("read back %+v, want %+v", back, kc)
	}
}
