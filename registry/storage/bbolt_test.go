package storage

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// openTestBolt opens path with default options and closes it at cleanup.
func openTestBolt(t testing.TB, path string) *Bolt {
	t.Helper()
	s, err := OpenBolt(path, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestBoltReopen checks that data, ModRevisions and the store revision
// survive Close and OpenBolt, that revisions continue from the stored one,
// and that the watch window restarts empty: from the stored revision works,
// from anything older is compacted.
func TestBoltReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aggsim.db")
	s := openTestBolt(t, path)
	mustCreate(t, s, "/a", "a1", 2)
	mustCreate(t, s, "/b", "b1", 3)
	if _, err := s.Update(ctx, "/a", []byte("a2"), 2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(ctx, "/b", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTestBolt(t, path)
	wantRevision(t, s, 5)
	wantKV(t, s, "/a", "a2", 4)
	if _, rev, err := s.List(ctx, ""); err != nil || rev != 5 {
		t.Fatalf("List revision = %d, %v; want 5", rev, err)
	}
	_, err := s.Watch(ctx, "", 4)
	wantErr(t, "Watch from before the restart", err, ErrCompacted)
	from5, err := s.Watch(ctx, "", 5)
	if err != nil {
		t.Fatalf("Watch from the stored revision: %v", err)
	}
	now, err := s.Watch(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/b", "b2", 6)
	wantEvents(t, from5, `PUT /b="b2" prev=nil @6`)
	wantEvents(t, now, `PUT /b="b2" prev=nil @6`)
	// The create revision kept in the record does not leak into ModRevision.
	if _, err := s.Update(ctx, "/b", []byte("b3"), 6); err != nil {
		t.Fatal(err)
	}
	wantKV(t, s, "/b", "b3", 7)
}

// TestBoltInUse checks that a second open of a held file fails with
// ErrInUse and a message naming the file, and that the file opens once the
// holder closes it.
func TestBoltInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aggsim.db")
	first, err := OpenBolt(path, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenBolt(path, BoltOptions{LockTimeout: 1})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second OpenBolt: %v, want ErrInUse", err)
	}
	want := fmt.Sprintf("storage: data file is in use by another aggsim: %s (lock not acquired within 1ns)", path)
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	first.Close()
	openTestBolt(t, path)
}

func TestBoltRejectsUnknownFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aggsim.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		return b.Put(keyFormat, []byte("2"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenBolt(path, BoltOptions{})
	if err == nil || !strings.Contains(err.Error(), `unsupported format "2"`) {
		t.Fatalf("OpenBolt: %v, want unsupported format", err)
	}
}

func TestBoltOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aggsim.db")
	for _, o := range []BoltOptions{{LockTimeout: -1}, {WatchWindow: -1}, {WatchWindowAge: -1}, {WatchBuffer: -1}} {
		if _, err := OpenBolt(path, o); err == nil {
			t.Errorf("OpenBolt(%+v) succeeded", o)
		}
	}
	o := BoltOptions{WatchWindow: 3, WatchWindowAge: 7, WatchBuffer: 5}
	cfg, err := o.watchConfig()
	if err != nil || cfg.minEvents != 3 || cfg.maxEvents != 30 || cfg.maxAge != 7 || cfg.buffer != 5 {
		t.Fatalf("watchConfig = %+v, %v", cfg, err)
	}
	cfg, _ = BoltOptions{}.watchConfig()
	if cfg.minEvents != DefaultWatchWindow || cfg.maxEvents != 10*DefaultWatchWindow ||
		cfg.maxAge != DefaultWatchWindowAge || cfg.buffer != DefaultWatchBuffer {
		t.Fatalf("default watchConfig = %+v", cfg)
	}
}
