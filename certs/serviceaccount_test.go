package certs

import (
	"crypto/rsa"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServiceAccountKeysLazy: nothing is written until Load; then sa.key
// (RSA 2048, PKCS#8, 0600) and sa.pub (PKIX PUBLIC KEY, 0644) appear, as
// kubeadm names them, the verification keys start with the signing key's,
// and a second instance reads the same key back.
func TestServiceAccountKeysLazy(t *testing.T) {
	dir := t.TempDir()
	k := NewServiceAccountKeys(dir, "", nil)
	if _, err := os.Stat(filepath.Join(dir, ServiceAccountKeyName)); !os.IsNotExist(err) {
		t.Fatalf("sa.key before Load: %v", err)
	}
	signer, pubs, err := k.Load()
	if err != nil {
		t.Fatal(err)
	}
	rk, ok := signer.(*rsa.PrivateKey)
	if !ok || rk.N.BitLen() != 2048 || len(pubs) != 1 || !rk.PublicKey.Equal(pubs[0]) {
		t.Fatalf("signer %T, %d public keys", signer, len(pubs))
	}
	for name, want := range map[string]struct {
		mode   os.FileMode
		header string
	}{ServiceAccountKeyName: {0o600, "-----BEGIN PRIVATE KEY-----"}, ServiceAccountPublicKeyName: {0o644, "-----BEGIN PUBLIC KEY-----"}} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if fi.Mode().Perm() != want.mode || !strings.HasPrefix(string(b), want.header) {
			t.Errorf("%s: mode %v, starts %q", name, fi.Mode().Perm(), b[:30])
		}
	}
	signer2, _, err := NewServiceAccountKeys(dir, "", nil).Load()
	if err != nil || !rk.Equal(signer2) {
		t.Errorf("second load: %v, same key %v", err, rk.Equal(signer2))
	}
}

// TestServiceAccountKeysFiles: a given signing key file is never
// generated; key files may hold public keys, certificates or private keys.
func TestServiceAccountKeysFiles(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := NewServiceAccountKeys(dir, filepath.Join(dir, "missing.key"), nil).Load(); err == nil || !strings.Contains(err.Error(), "missing.key") {
		t.Errorf("missing signing key: %v", err)
	}
	ref, err := os.ReadFile("../testdata/serviceaccounts/ref-sa.pub") // kube-apiserver 1.33 reference's sa.pub
	if err != nil {
		t.Fatal(err)
	}
	pubs, err := ParsePublicKeysPEM(ref)
	if err != nil || len(pubs) != 1 {
		t.Fatalf("ref-sa.pub: %v %d", err, len(pubs))
	}
	if _, err := ParsePublicKeysPEM([]byte("nothing")); err == nil || err.Error() != "data does not contain any valid RSA or ECDSA public keys" {
		t.Errorf("no keys: %v", err)
	}
	gen := NewServiceAccountKeys(dir, "", nil)
	signer, _, err := gen.Load()
	if err != nil {
		t.Fatal(err)
	}
	refFile := filepath.Join(dir, "ref.pub")
	if err := os.WriteFile(refFile, ref, 0o644); err != nil {
		t.Fatal(err)
	}
	// The PKI's key signs; the reference's and the key file itself
	// (a private key) verify.
	_, got, err := NewServiceAccountKeys(dir, filepath.Join(dir, ServiceAccountKeyName), []string{refFile, filepath.Join(dir, ServiceAccountKeyName)}).Load()
	if err != nil || len(got) != 2 || !signer.Public().(*rsa.PublicKey).Equal(got[0]) || !pubs[0].(*rsa.PublicKey).Equal(got[1]) {
		t.Errorf("keys: %v, %d", err, len(got))
	}
}
