package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/aggsim/aggsim/certs"
)

// The store comes out of preparePKIAndStorage with a fresh store's first
// write made (the service IP range record, at revision 2 after bbolt's own
// first write), so that New does not commit it on the start-up's critical
// path; a second open finds it and writes nothing.
func TestPreparePKIAndStorageMakesTheFirstWrite(t *testing.T) {
	dir := t.TempDir()
	o := &serveOptions{storage: "bbolt"}
	for i, want := range []int64{2, 2} {
		pki, st, err := o.preparePKIAndStorage(filepath.Join(dir, "pki"), dir, certs.Options{}, slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		if pki == nil {
			t.Fatal("no PKI")
		}
		kv, err := st.Get(context.Background(), "/registry/ranges/serviceips")
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if kv.ModRevision != want || st.Revision() != want {
			t.Errorf("open %d: record at revision %d, store at %d, want %d", i, kv.ModRevision, st.Revision(), want)
		}
		st.Close()
	}
}
