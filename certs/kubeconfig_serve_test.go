package certs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteServeKubeconfig: the file holds PKI.Kubeconfig's bytes with
// mode 0600; a second call with the same server leaves it alone, another
// server rewrites it, and so does a changed mode.
func TestWriteServeKubeconfig(t *testing.T) {
	dir := t.TempDir()
	p := mustEnsure(t, filepath.Join(dir, "pki"), Options{Now: fixedClock})
	path := filepath.Join(dir, KubeconfigName)
	check := func(server string, wantWrote, wrote bool) {
		t.Helper()
		want, err := p.Kubeconfig(server)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); !bytes.Equal(got, want) || fi.Mode().Perm() != 0o600 || wrote != wantWrote {
			t.Errorf("%s: wrote %v (want %v), mode %v, bytes equal %v", server, wrote, wantWrote, fi.Mode().Perm(), bytes.Equal(got, want))
		}
	}
	for _, step := range []struct {
		server string
		prep   func()
		wrote  bool
	}{
		{"https://127.0.0.1:6443", func() {}, true},
		{"https://127.0.0.1:6443", func() {}, false},
		{"https://127.0.0.1:7443", func() {}, true},
		{"https://127.0.0.1:7443", func() { os.Chmod(path, 0o644) }, true},
	} {
		step.prep()
		wrote, err := p.WriteServeKubeconfig(path, step.server)
		if err != nil {
			t.Fatal(err)
		}
		check(step.server, step.wrote, wrote)
	}
}
