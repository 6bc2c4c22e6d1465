package certs

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestIssueBackendNewCA(t *testing.T) {
	b, err := IssueBackend(BackendOptions{Service: "api", Namespace: "wardle", Options: Options{ExtraDNSNames: []string{"api.example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !b.CACreated || b.ServerName != "api.wardle.svc" || b.CA.Cert.Subject.CommonName != "aggsim-backend-ca" {
		t.Errorf("CACreated %v ServerName %q CA %q", b.CACreated, b.ServerName, b.CA.Cert.Subject)
	}
	s := Describe(b.Serving.Cert)
	if want := []string{"api.wardle.svc", "api.wardle.svc.cluster.local", "localhost", "api.example.com", "127.0.0.1", "::1"}; !slices.Equal(s.SANs(), want) {
		t.Errorf("SANs %v, want %v", s.SANs(), want)
	}
	if s.CommonName != "api.wardle.svc" || !slices.Equal(s.ExtKeyUsages, []string{"server auth"}) {
		t.Errorf("CN %q usages %v", s.CommonName, s.ExtKeyUsages)
	}
	bundle, err := base64.StdEncoding.DecodeString(b.CABundle)
	if err != nil || !bytes.Equal(bundle, b.CA.CertPEM) {
		t.Fatalf("CABundle does not decode to the CA PEM: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(bundle)
	if err := VerifyFor([]*x509.Certificate{b.Serving.Cert}, pool, "api.wardle.svc"); err != nil {
		t.Errorf("VerifyFor: %v", err)
	}

	dir := filepath.Join(t.TempDir(), "backend")
	written, err := b.WriteDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := relNames(written), []string{"ca.crt", "ca.key", "tls.crt", "tls.key"}; !slices.Equal(got, want) {
		t.Errorf("written %v, want %v", got, want)
	}
	for name, mode := range map[string]os.FileMode{"ca.crt": 0o644, "ca.key": 0o600, "tls.crt": 0o644, "tls.key": 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v mode %v, want %v", name, err, fi.Mode().Perm(), mode)
		}
	}
	kp := mustLoad(t, filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if !kp.Cert.Equal(b.Serving.Cert) {
		t.Error("tls.crt differs from the issued certificate")
	}
}

func TestIssueBackendGivenCA(t *testing.T) {
	dir := t.TempDir()
	ca, err := NewCA("my-ca", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ca.WriteFiles(filepath.Join(dir, "my-ca.crt"), filepath.Join(dir, "my-ca.key"))
	for name, opts := range map[string]BackendOptions{
		"files":     {Service: "s", Namespace: "n", CACertFile: filepath.Join(dir, "my-ca.crt"), CAKeyFile: filepath.Join(dir, "my-ca.key")},
		"in-memory": {Service: "s", Namespace: "n", CA: ca},
	} {
		b, err := IssueBackend(opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b.CACreated || !b.CA.Cert.Equal(ca.Cert) || b.Serving.Cert.Issuer.CommonName != "my-ca" {
			t.Errorf("%s: CACreated %v issuer %v", name, b.CACreated, b.Serving.Cert.Issuer)
		}
		out := filepath.Join(t.TempDir(), name)
		written, err := b.WriteDir(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := relNames(written); !slices.Equal(got, []string{"tls.crt", "tls.key"}) {
			t.Errorf("%s: written %v", name, got)
		}
	}
}

func TestIssueBackendErrors(t *testing.T) {
	for _, tt := range []struct {
		opts BackendOptions
		want string
	}{
		{BackendOptions{Namespace: "n"}, "backend certificate: service and namespace are required"},
		{BackendOptions{Service: "s"}, "backend certificate: service and namespace are required"},
		{BackendOptions{Service: "s", Namespace: "n", CACertFile: "x"}, "backend certificate: CA certificate and key files must be given together"},
	} {
		if _, err := IssueBackend(tt.opts); err == nil || err.Error() != tt.want {
			t.Errorf("IssueBackend(%+v) err = %v, want %q", tt.opts, err, tt.want)
		}
	}
}
