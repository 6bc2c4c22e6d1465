package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestBoltGroupCommit pins group commit: writes that wait while a commit is
// in progress are committed together in the next transaction, in arrival
// order, each successful one taking the next revision; a failing write in
// the batch gets its own error, takes no revision and publishes no event,
// and the others still commit and survive a reopen.
func TestBoltGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "group.db")
	s := openTestBolt(t, path)
	ctx := context.Background()
	events, err := s.Watch(ctx, "/g/", 0)
	if err != nil {
		t.Fatal(err)
	}
	start := s.Revision()

	// A first write whose fn blocks holds the committer inside a
	// transaction; it fails (ErrKeyNotFound), so it takes no revision.
	entered, release := make(chan struct{}), make(chan struct{})
	blocked := make(chan error, 1)
	go func() {
		_, err := s.write(ctx, "/g/blocker", func(*bolt.Bucket, int64) (Event, error) {
			close(entered)
			<-release
			return Event{}, ErrKeyNotFound
		})
		blocked <- err
	}()
	<-entered
	txid := func() (id int) {
		_ = s.db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return id
	}
	txBefore := txid()
	type result struct {
		rev int64
		err error
	}
	results := make([]chan result, 4)
	keys := []string{"/g/a", "/g/b", "/g/b", "/g/c"}
	for i, k := range keys {
		results[i] = make(chan result, 1)
		go func() {
			rev, err := s.Create(ctx, k, []byte(k))
			results[i] <- result{rev, err}
		}()
		// Each write queues in s.writes before the next starts.
		for deadline := time.Now().Add(5 * time.Second); len(s.writes) < i+1; {
			if time.Now().After(deadline) {
				close(release)
				t.Fatalf("write %d never queued", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	if err := <-blocked; !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("blocking write: %v", err)
	}

	want := []result{{start + 1, nil}, {start + 2, nil}, {0, ErrKeyExists}, {start + 3, nil}}
	for i, ch := range results {
		got := <-ch
		if got.rev != want[i].rev || !errors.Is(got.err, want[i].err) || (want[i].err == nil) != (got.err == nil) {
			t.Errorf("write %d (%s) = %d, %v; want %d, %v", i, keys[i], got.rev, got.err, want[i].rev, want[i].err)
		}
	}
	for _, w := range []struct {
		key string
		rev int64
	}{{"/g/a", start + 1}, {"/g/b", start + 2}, {"/g/c", start + 3}} {
		select {
		case ev := <-events:
			if ev.Key != w.key || ev.Revision != w.rev || ev.Type != EventPut {
				t.Errorf("event %+v, want put %s at %d", ev, w.key, w.rev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event for %s", w.key)
		}
	}
	if s.Revision() != start+3 {
		t.Errorf("Revision() = %d, want %d", s.Revision(), start+3)
	}
	if n := txid() - txBefore; n != 1 {
		t.Errorf("the four queued writes took %d committed transactions, want 1", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openTestBolt(t, path)
	if s2.Revision() != start+3 {
		t.Errorf("after reopen Revision() = %d, want %d", s2.Revision(), start+3)
	}
	kvs, _, err := s2.List(ctx, "/g/")
	if err != nil || len(kvs) != 3 || kvs[1].Key != "/g/b" || string(kvs[1].Value) != "/g/b" || kvs[1].ModRevision != start+2 {
		t.Errorf("after reopen List = %+v, %v", kvs, err)
	}
	if _, err := s2.Create(ctx, "/g/d", nil); err != nil {
		t.Fatal(err)
	}
	if s2.Revision() != start+4 {
		t.Errorf("next revision %d, want %d", s2.Revision(), start+4)
	}
}

// TestBoltWriteAfterClose: a write after Close returns ErrClosed and does
// not block.
func TestBoltWriteAfterClose(t *testing.T) {
	s, err := OpenBolt(filepath.Join(t.TempDir(), "closed.db"), BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), "/k", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Create after Close: %v, want ErrClosed", err)
	}
}
