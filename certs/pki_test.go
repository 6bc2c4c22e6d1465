package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixedNow is the injected clock of most tests.
var fixedNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

func mustEnsure(t testing.TB, dir string, opts Options) *PKI {
	t.Helper()
	p, err := EnsurePKI(dir, opts)
	if err != nil {
		t.Fatalf("EnsurePKI: %v", err)
	}
	return p
}

func mustLoad(t testing.TB, certPath, keyPath string) *KeyPair {
	t.Helper()
	kp, err := LoadKeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// relNames returns the base names of paths.
func relNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

var allFiles = []string{
	"ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key",
	"front-proxy-ca.crt", "front-proxy-ca.key", "front-proxy-client.crt", "front-proxy-client.key",
}

func TestEnsurePKICreatesKubeadmLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "pki")
	p := mustEnsure(t, dir, Options{Now: fixedClock, ExtraDNSNames: []string{"aggsim.example.com", "localhost"}, ExtraIPs: []net.IP{net.ParseIP("10.0.0.1"), net.ParseIP("127.0.0.1")}})

	if got := relNames(p.Created); !slices.Equal(got, allFiles) {
		t.Fatalf("Created = %v, want %v", got, allFiles)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		info, _ := e.Info()
		want := os.FileMode(0o644)
		if strings.HasSuffix(e.Name(), ".key") {
			want = 0o600
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s mode = %v, want %v", e.Name(), info.Mode().Perm(), want)
		}
	}
	if want := slices.Sorted(slices.Values(allFiles)); !slices.Equal(names, want) {
		t.Errorf("dir holds %v, want exactly %v (no temp files left)", names, want)
	}

	ca := mustLoad(t, p.CACert, p.CAKey)
	fpca := mustLoad(t, p.FrontProxyCACert, p.FrontProxyCAKey)
	serving := mustLoad(t, p.ServingCert, p.ServingKey)
	admin := mustLoad(t, p.AdminCert, p.AdminKey)
	fpc := mustLoad(t, p.FrontProxyClientCert, p.FrontProxyClientKey)

	for _, c := range []struct {
		kp *KeyPair
		cn string
	}{{ca, "aggsim-ca"}, {fpca, "front-proxy-ca"}} {
		s := Describe(c.kp.Cert)
		if s.Subject != "CN="+c.cn || s.Issuer != "CN="+c.cn || !s.IsCA {
			t.Errorf("CA %s: subject %q issuer %q isCA %v", c.cn, s.Subject, s.Issuer, s.IsCA)
		}
		if want := []string{"digital signature", "cert sign", "crl sign"}; !slices.Equal(s.KeyUsages, want) {
			t.Errorf("CA %s key usages %v, want %v", c.cn, s.KeyUsages, want)
		}
		if !c.kp.Cert.NotBefore.Equal(fixedNow.Add(-5*time.Minute)) || !c.kp.Cert.NotAfter.Equal(fixedNow.Add(10*365*24*time.Hour)) {
			t.Errorf("CA %s validity %v..%v", c.cn, c.kp.Cert.NotBefore, c.kp.Cert.NotAfter)
		}
	}

	s := Describe(serving.Cert)
	if s.Subject != "CN=aggsim-apiserver" || s.Issuer != "CN=aggsim-ca" || s.IsCA {
		t.Errorf("serving subject %q issuer %q isCA %v", s.Subject, s.Issuer, s.IsCA)
	}
	if want := []string{"localhost", "aggsim.example.com", "127.0.0.1", "::1", "10.0.0.1"}; !slices.Equal(s.SANs(), want) {
		t.Errorf("serving SANs %v, want %v", s.SANs(), want)
	}
	if !slices.Equal(s.ExtKeyUsages, []string{"server auth"}) || !slices.Equal(s.KeyUsages, []string{"digital signature"}) {
		t.Errorf("serving usages %v %v", s.KeyUsages, s.ExtKeyUsages)
	}
	if !serving.Cert.NotBefore.Equal(fixedNow.Add(-5*time.Minute)) || !serving.Cert.NotAfter.Equal(fixedNow.Add(365*24*time.Hour)) {
		t.Errorf("serving validity %v..%v", serving.Cert.NotBefore, serving.Cert.NotAfter)
	}

	a := Describe(admin.Cert)
	if a.Subject != "CN=aggsim-admin,O=system:masters" || a.Issuer != "CN=aggsim-ca" || len(a.SANs()) != 0 {
		t.Errorf("admin subject %q issuer %q SANs %v", a.Subject, a.Issuer, a.SANs())
	}
	f := Describe(fpc.Cert)
	if f.Subject != "CN=front-proxy-client" || f.Issuer != "CN=front-proxy-ca" || len(f.Organizations) != 0 {
		t.Errorf("front-proxy-client subject %q issuer %q", f.Subject, f.Issuer)
	}
	if !slices.Equal(a.ExtKeyUsages, []string{"client auth"}) || !slices.Equal(f.ExtKeyUsages, []string{"client auth"}) {
		t.Errorf("client usages %v %v", a.ExtKeyUsages, f.ExtKeyUsages)
	}

	// Chains verify with the right usage, and only against their own CA.
	verify := func(kp *KeyPair, pool *x509.CertPool, usage x509.ExtKeyUsage) error {
		_, err := kp.Cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: fixedNow, KeyUsages: []x509.ExtKeyUsage{usage}})
		return err
	}
	for _, c := range []struct {
		name    string
		kp      *KeyPair
		pool    *x509.CertPool
		usage   x509.ExtKeyUsage
		wantErr bool
	}{
		{"serving/ca/server", serving, p.ClientCAPool, x509.ExtKeyUsageServerAuth, false},
		{"serving/ca/client", serving, p.ClientCAPool, x509.ExtKeyUsageClientAuth, true},
		{"admin/ca/client", admin, p.ClientCAPool, x509.ExtKeyUsageClientAuth, false},
		{"admin/ca/server", admin, p.ClientCAPool, x509.ExtKeyUsageServerAuth, true},
		{"admin/front-proxy-ca", admin, p.FrontProxyCAPool, x509.ExtKeyUsageClientAuth, true},
		{"front-proxy-client/front-proxy-ca", fpc, p.FrontProxyCAPool, x509.ExtKeyUsageClientAuth, false},
		{"front-proxy-client/ca", fpc, p.ClientCAPool, x509.ExtKeyUsageClientAuth, true},
	} {
		if err := verify(c.kp, c.pool, c.usage); (err != nil) != c.wantErr {
			t.Errorf("%s: verify err = %v, wantErr %v", c.name, err, c.wantErr)
		}
	}

	// Keys: ECDSA P-256, PKCS#8 PEM; random 128-bit serials, all distinct.
	serials := map[string]bool{}
	for _, kp := range []*KeyPair{ca, fpca, serving, admin, fpc} {
		k, ok := kp.Key.(*ecdsa.PrivateKey)
		if !ok || k.Curve != elliptic.P256() {
			t.Errorf("%s: key %T, want ECDSA P-256", kp.Cert.Subject, kp.Key)
		}
		if b, _ := pem.Decode(kp.KeyPEM); b == nil || b.Type != "PRIVATE KEY" {
			t.Errorf("%s: key PEM type wrong", kp.Cert.Subject)
		}
		if b, rest := pem.Decode(kp.CertPEM); b == nil || b.Type != "CERTIFICATE" || len(rest) != 0 {
			t.Errorf("%s: cert PEM wrong", kp.Cert.Subject)
		}
		if kp.Cert.SerialNumber.BitLen() > 128 || kp.Cert.SerialNumber.Sign() <= 0 {
			t.Errorf("%s: serial %v not a positive 128-bit number", kp.Cert.Subject, kp.Cert.SerialNumber)
		}
		serials[kp.Cert.SerialNumber.String()] = true
	}
	if len(serials) != 5 {
		t.Errorf("serials not distinct: %v", serials)
	}
}

func TestEnsurePKIRSA(t *testing.T) {
	p := mustEnsure(t, t.TempDir(), Options{KeyType: KeyTypeRSA})
	for _, pair := range [][2]string{{p.CACert, p.CAKey}, {p.ServingCert, p.ServingKey}, {p.FrontProxyClientCert, p.FrontProxyClientKey}} {
		kp := mustLoad(t, pair[0], pair[1])
		k, ok := kp.Key.(*rsa.PrivateKey)
		if !ok || k.N.BitLen() != 2048 {
			t.Errorf("%s: key %T, want RSA 2048", pair[1], kp.Key)
		}
	}
	serving := mustLoad(t, p.ServingCert, p.ServingKey)
	if want := []string{"digital signature", "key encipherment"}; !slices.Equal(Describe(serving.Cert).KeyUsages, want) {
		t.Errorf("RSA serving key usages %v, want %v", Describe(serving.Cert).KeyUsages, want)
	}
}

func TestParseKeyType(t *testing.T) {
	for in, want := range map[string]KeyType{"": KeyTypeECDSA, "ecdsa": KeyTypeECDSA, "rsa": KeyTypeRSA} {
		if got, err := ParseKeyType(in); err != nil || got != want {
			t.Errorf("ParseKeyType(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseKeyType("ed25519"); err == nil || err.Error() != `unsupported key type "ed25519": use "ecdsa" or "rsa"` {
		t.Errorf("ParseKeyType(ed25519) err = %v", err)
	}
}

// snapshot returns every file's content in dir.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range allFiles {
		out[n] = readFile(t, filepath.Join(dir, n))
	}
	return out
}

// changed lists the files whose content differs between two snapshots.
func changed(before, after map[string][]byte) []string {
	var out []string
	for _, n := range allFiles {
		if !bytes.Equal(before[n], after[n]) {
			out = append(out, n)
		}
	}
	return out
}

func TestEnsurePKIReuseAndRepair(t *testing.T) {
	tests := []struct {
		name        string
		mutate      func(dir string)
		opts        Options
		wantCreated []string
	}{
		{name: "nothing missing", mutate: func(string) {}, wantCreated: nil},
		{
			name:        "leaf key missing",
			mutate:      func(dir string) { os.Remove(filepath.Join(dir, "admin.key")) },
			wantCreated: []string{"admin.crt", "admin.key"},
		},
		{
			name: "leaf key mismatched",
			mutate: func(dir string) {
				os.WriteFile(filepath.Join(dir, "front-proxy-client.key"), readFileNoT(filepath.Join(dir, "admin.key")), 0o600)
			},
			wantCreated: []string{"front-proxy-client.crt", "front-proxy-client.key"},
		},
		{
			name:        "leaf cert garbage",
			mutate:      func(dir string) { os.WriteFile(filepath.Join(dir, "apiserver.crt"), []byte("garbage"), 0o644) },
			wantCreated: []string{"apiserver.crt", "apiserver.key"},
		},
		{
			name: "CA missing: its leaves are reissued too",
			mutate: func(dir string) {
				os.Remove(filepath.Join(dir, "ca.crt"))
				os.Remove(filepath.Join(dir, "ca.key"))
			},
			wantCreated: []string{"ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key"},
		},
		{
			name:        "only the front-proxy CA key left",
			mutate:      func(dir string) { os.Remove(filepath.Join(dir, "front-proxy-ca.crt")) },
			wantCreated: []string{"front-proxy-ca.crt", "front-proxy-ca.key", "front-proxy-client.crt", "front-proxy-client.key"},
		},
		{
			name:        "external CA (no ca.key) with valid leaves is kept",
			mutate:      func(dir string) { os.Remove(filepath.Join(dir, "ca.key")) },
			wantCreated: nil,
		},
		// Torn files: what a crash can leave of a file written without
		// fsync (EnsurePKI syncs the directory only): empty, or NUL bytes.
		{
			name:        "torn CA key (empty): a new CA, its leaves reissued",
			mutate:      func(dir string) { os.Truncate(filepath.Join(dir, "ca.key"), 0) },
			wantCreated: []string{"ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key"},
		},
		{
			name: "torn CA certificate (NUL bytes): a new CA, its leaves reissued",
			mutate: func(dir string) {
				os.WriteFile(filepath.Join(dir, "front-proxy-ca.crt"), make([]byte, 700), 0o644)
			},
			wantCreated: []string{"front-proxy-ca.crt", "front-proxy-ca.key", "front-proxy-client.crt", "front-proxy-client.key"},
		},
		{
			name:        "torn leaf certificate (empty) is reissued",
			mutate:      func(dir string) { os.Truncate(filepath.Join(dir, "admin.crt"), 0) },
			wantCreated: []string{"admin.crt", "admin.key"},
		},
		{
			name:        "new extra SAN reissues the serving certificate only",
			mutate:      func(string) {},
			opts:        Options{ExtraDNSNames: []string{"new.example.com"}},
			wantCreated: []string{"apiserver.crt", "apiserver.key"},
		},
		{
			name:        "expired leaves are reissued, CAs kept",
			mutate:      func(string) {},
			opts:        Options{Now: func() time.Time { return fixedNow.Add(400 * 24 * time.Hour) }},
			wantCreated: []string{"apiserver.crt", "apiserver.key", "admin.crt", "admin.key", "front-proxy-client.crt", "front-proxy-client.key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mustEnsure(t, dir, Options{Now: fixedClock})
			before := snapshot(t, dir)
			tt.mutate(dir)
			if tt.opts.Now == nil {
				tt.opts.Now = fixedClock
			}
			p := mustEnsure(t, dir, tt.opts)
			if got := relNames(p.Created); !slices.Equal(got, tt.wantCreated) {
				t.Errorf("Created = %v, want %v", got, tt.wantCreated)
			}
			after := map[string][]byte{}
			for _, n := range allFiles {
				after[n], _ = os.ReadFile(filepath.Join(dir, n))
			}
			var wantChanged []string
			for _, n := range allFiles {
				if slices.Contains(tt.wantCreated, n) || (n == "ca.key" && tt.name == "external CA (no ca.key) with valid leaves is kept") {
					wantChanged = append(wantChanged, n)
				}
			}
			if got := changed(before, after); !slices.Equal(got, wantChanged) {
				t.Errorf("changed files = %v, want %v", got, wantChanged)
			}
			// Whatever happened, the result is consistent.
			checkConsistent(t, p, tt.opts.Now())
		})
	}
}

func readFileNoT(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

func checkConsistent(t *testing.T, p *PKI, now time.Time) {
	t.Helper()
	for _, c := range []struct {
		cert, key string
		pool      *x509.CertPool
		usage     x509.ExtKeyUsage
	}{
		{p.ServingCert, p.ServingKey, p.ClientCAPool, x509.ExtKeyUsageServerAuth},
		{p.AdminCert, p.AdminKey, p.ClientCAPool, x509.ExtKeyUsageClientAuth},
		{p.FrontProxyClientCert, p.FrontProxyClientKey, p.FrontProxyCAPool, x509.ExtKeyUsageClientAuth},
	} {
		kp := mustLoad(t, c.cert, c.key)
		if _, err := kp.Cert.Verify(x509.VerifyOptions{Roots: c.pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{c.usage}}); err != nil {
			t.Errorf("%s does not verify: %v", c.cert, err)
		}
	}
}

func TestEnsurePKIExternalCACannotReissue(t *testing.T) {
	dir := t.TempDir()
	mustEnsure(t, dir, Options{})
	os.Remove(filepath.Join(dir, "ca.key"))
	os.Remove(filepath.Join(dir, "admin.crt"))
	_, err := EnsurePKI(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "admin.crt needs to be reissued") || !strings.Contains(err.Error(), "has no key "+filepath.Join(dir, "ca.key")) {
		t.Fatalf("err = %v", err)
	}
}

// TestTLSHandshake proves the generated files work together over a real
// loopback connection: the server presents apiserver.crt and requires a
// client certificate from ca.crt; the client trusts ca.crt and presents
// admin.crt; every loopback name in the SANs verifies.
func TestTLSHandshake(t *testing.T) {
	p := mustEnsure(t, t.TempDir(), Options{})
	srv := newPKIServer(t, p)
	client := adminClient(t, p, "")
	for _, host := range []string{"localhost", "127.0.0.1"} {
		u := strings.Replace(srv.URL, "127.0.0.1", host, 1)
		resp, err := client.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		body := new(bytes.Buffer)
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if got, want := body.String(), "CN=aggsim-admin,O=system:masters"; got != want {
			t.Errorf("GET %s: server saw %q, want %q", host, got, want)
		}
	}

	// A certificate from the front-proxy CA is not a valid client here.
	fp, _ := tls.LoadX509KeyPair(p.FrontProxyClientCert, p.FrontProxyClientKey)
	bad := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.ClientCAPool, Certificates: []tls.Certificate{fp}}}}
	if resp, err := bad.Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Fatalf("front-proxy client certificate accepted by a server requiring ca.crt clients")
	}
}

// newPKIServer is a loopback TLS server using apiserver.crt that requires a
// client certificate signed by ca.crt and answers with the client's subject.
func newPKIServer(t *testing.T, p *PKI) *httptest.Server {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(p.ServingCert, p.ServingKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"major":"1","minor":"33","gitVersion":"v1.33.0-aggsim.test"}`))
			return
		}
		w.Write([]byte(r.TLS.PeerCertificates[0].Subject.String()))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.ClientCAPool}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // rejected handshakes are expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func adminClient(t *testing.T, p *PKI, serverName string) *http.Client {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.ClientCAPool, ServerName: serverName, Certificates: []tls.Certificate{cert}}}}
}

// TestEnsurePKIEphemeral: an ephemeral PKI has the same files, modes and
// trees as a durable one (only the fsync differs), and a later durable
// EnsurePKI keeps all of them.
func TestEnsurePKIEphemeral(t *testing.T) {
	dir := t.TempDir()
	p, err := EnsurePKI(dir, Options{Ephemeral: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Created, p.Files()) {
		t.Fatalf("Created %v, want %v", p.Created, p.Files())
	}
	for _, f := range p.Files() {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o644)
		if strings.HasSuffix(f, ".key") {
			want = 0o600
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", f, st.Mode().Perm(), want)
		}
	}
	again, err := EnsurePKI(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Created) != 0 {
		t.Errorf("durable EnsurePKI over an ephemeral one rewrote %v", again.Created)
	}
}
