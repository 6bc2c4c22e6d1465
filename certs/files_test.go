package certs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEnsurePKISyncsDirectoryOnce: a fresh PKI is ten files renamed into
// place and one sync of the PKI directory and one of its parent (the
// directory is new); a PKI that was reused syncs nothing, one repaired
// leaf syncs the directory once; no temporary file is left behind.
func TestEnsurePKISyncsDirectoryOnce(t *testing.T) {
	var synced []string
	orig := syncDir
	syncDir = func(dir string) error { synced = append(synced, dir); return orig(dir) }
	t.Cleanup(func() { syncDir = orig })

	parent := t.TempDir()
	dir := filepath.Join(parent, "pki")
	p := mustEnsure(t, dir, Options{Now: fixedClock})
	if len(p.Created) != 10 || !slices.Equal(synced, []string{dir, parent}) {
		t.Errorf("fresh: created %v, synced %v; want ten files and [%s %s]", relNames(p.Created), synced, dir, parent)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	for _, f := range p.Files() {
		if isTorn(f) {
			t.Errorf("%s is torn", f)
		}
	}

	synced = nil
	if p := mustEnsure(t, dir, Options{Now: fixedClock}); len(p.Created) != 0 || len(synced) != 0 {
		t.Errorf("reused: created %v, synced %v; want nothing", relNames(p.Created), synced)
	}
	if err := os.Truncate(filepath.Join(dir, AdminKeyName), 0); err != nil {
		t.Fatal(err)
	}
	if p := mustEnsure(t, dir, Options{Now: fixedClock}); !slices.Equal(relNames(p.Created), []string{AdminCertName, AdminKeyName}) || !slices.Equal(synced, []string{dir}) {
		t.Errorf("repaired: created %v, synced %v; want admin.crt, admin.key and [%s]", relNames(p.Created), synced, dir)
	}

	synced = nil
	if p := mustEnsure(t, filepath.Join(t.TempDir(), "eph"), Options{Now: fixedClock, Ephemeral: true}); len(p.Created) != 10 || len(synced) != 0 {
		t.Errorf("ephemeral: created %d files, synced %v; want 10 and nothing", len(p.Created), synced)
	}
}

// TestIsTorn: only an empty or all-NUL file is torn; a missing file or
// any other content is not.
func TestIsTorn(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		data []byte
		want bool
	}{
		"empty": {nil, true}, "nul": {make([]byte, 4096), true}, "pem": {[]byte("-----BEGIN"), false},
		"nul then text": {append(make([]byte, 10), 'x'), false},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := isTorn(path); got != tc.want {
			t.Errorf("%s: isTorn %v, want %v", name, got, tc.want)
		}
	}
	if isTorn(filepath.Join(dir, "missing")) {
		t.Error("a missing file is torn")
	}
}
