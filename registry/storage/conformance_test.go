package storage

// The conformance suite: one set of tests that every Storage implementation
// must pass, run below against Memory and Bolt.
//
// Invariants checked:
//   - revisions: an empty store is at revision 1; every successful write
//     gets exactly the previous revision + 1; failed writes (exists, not
//     found, mismatch, cancelled context, closed store) leave the revision
//     and the data unchanged; concurrent writers never share a revision.
//   - reads: Get returns the last written value and its ModRevision; List
//     returns exactly the keys with the prefix, in ascending byte order,
//     with the store revision; "/a/" never matches "/ab/...".
//   - compare-and-swap: Update/Delete with a stale expected revision fail
//     with ErrRevisionMismatch; expected 0 is unconditional.
//   - watch: an event is in the watcher's channel when the write returns
//     (so these tests read channels without waiting); a watcher sees every
//     event under its prefix with revision > fromRevision, in revision
//     order, with Value/PrevValue as documented, and nothing else; watches
//     from below the window fail with ErrCompacted; a full watcher is
//     closed without blocking writers; Close and ctx cancellation close
//     the channel.
//   - ownership: callers may modify the slices they pass and receive.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// newStoreFunc returns a new empty store using cfg as its watch window. The
// store is closed by t.Cleanup.
type newStoreFunc func(t testing.TB, cfg watchConfig) Storage

// backends are the implementations the conformance suite runs against.
var backends = []struct {
	name string
	open newStoreFunc
}{
	{"memory", func(t testing.TB, cfg watchConfig) Storage {
		s := newMemory(cfg)
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"bolt", func(t testing.TB, cfg watchConfig) Storage {
		s, err := openBolt(filepath.Join(t.TempDir(), "aggsim.db"), BoltOptions{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

func TestConformance(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, open newStoreFunc)
	}{
		{"CreateGet", testCreateGet},
		{"InvalidKey", testInvalidKey},
		{"ListOrderAndPrefix", testListOrderAndPrefix},
		{"UpdateCAS", testUpdateCAS},
		{"DeleteCAS", testDeleteCAS},
		{"RevisionMonotonic", testRevisionMonotonic},
		{"CancelledContext", testCancelledContext},
		{"SliceOwnership", testSliceOwnership},
		{"WatchReplay", testWatchReplay},
		{"WatchFromNow", testWatchFromNow},
		{"WatchFuture", testWatchFuture},
		{"WatchCompacted", testWatchCompacted},
		{"WatchPrefixIsolation", testWatchPrefixIsolation},
		{"SlowWatcherClosed", testSlowWatcherClosed},
		{"WatchContextCancel", testWatchContextCancel},
		{"CloseClosesWatches", testCloseClosesWatches},
		{"ConcurrentWriters", testConcurrentWriters},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) { c.run(t, b.open) })
			}
		})
	}
}

// smallWindow keeps exactly n events and gives watchers a buffer of buf.
func smallWindow(n, buf int) watchConfig {
	cfg := defaultWatchConfig()
	cfg.minEvents, cfg.maxEvents, cfg.buffer = n, n, buf
	return cfg
}

var ctx = context.Background()

// mustCreate creates key and checks that it got revision want.
func mustCreate(t *testing.T, s Storage, key, value string, want int64) {
	t.Helper()
	rev, err := s.Create(ctx, key, []byte(value))
	if err != nil || rev != want {
		t.Fatalf("Create(%q) = %d, %v; want %d, nil", key, rev, err, want)
	}
}

// wantErr fails unless err is target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v, want %v", what, err, target)
	}
}

// wantRevision fails unless the store is at revision want.
func wantRevision(t *testing.T, s Storage, want int64) {
	t.Helper()
	if got := s.Revision(); got != want {
		t.Fatalf("Revision() = %d, want %d", got, want)
	}
}

// wantKV fails unless Get(key) returns value at revision mod.
func wantKV(t *testing.T, s Storage, key, value string, mod int64) {
	t.Helper()
	kv, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	if want := (KV{Key: key, Value: []byte(value), ModRevision: mod}); !kvEqual(kv, want) {
		t.Fatalf("Get(%q) = %s, want %s", key, fmtKV(kv), fmtKV(want))
	}
}

func kvEqual(a, b KV) bool {
	return a.Key == b.Key && bytes.Equal(a.Value, b.Value) && a.ModRevision == b.ModRevision
}

func fmtKV(kv KV) string { return fmt.Sprintf("{%q %q @%d}", kv.Key, kv.Value, kv.ModRevision) }

func fmtEvent(e Event) string {
	typ := "PUT"
	if e.Type == EventDelete {
		typ = "DELETE"
	}
	prev := "nil"
	if e.PrevValue != nil {
		prev = fmt.Sprintf("%q", e.PrevValue)
	}
	return fmt.Sprintf("%s %s=%q prev=%s @%d", typ, e.Key, e.Value, prev, e.Revision)
}

// drain reads the events already in ch without waiting, and reports whether
// ch was found closed.
func drain(ch <-chan Event) (evs []string, closed bool) {
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return evs, true
			}
			evs = append(evs, fmtEvent(e))
		default:
			return evs, false
		}
	}
}

// wantEvents fails unless ch holds exactly want, and is open.
func wantEvents(t *testing.T, ch <-chan Event, want ...string) {
	t.Helper()
	got, closed := drain(ch)
	if closed {
		t.Fatalf("watch channel closed after %q", got)
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
}

func testCreateGet(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	wantRevision(t, s, 1)
	_, err := s.Get(ctx, "/k")
	wantErr(t, "Get missing", err, ErrKeyNotFound)
	mustCreate(t, s, "/k", "v1", 2)
	wantKV(t, s, "/k", "v1", 2)
	_, err = s.Create(ctx, "/k", []byte("v2"))
	wantErr(t, "Create existing", err, ErrKeyExists)
	wantKV(t, s, "/k", "v1", 2)
	wantRevision(t, s, 2)
	mustCreate(t, s, "/empty", "", 3)
	wantKV(t, s, "/empty", "", 3)
}

func testInvalidKey(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	long := string(bytes.Repeat([]byte("k"), MaxKeySize+1))
	for _, key := range []string{"", long} {
		if _, err := s.Create(ctx, key, nil); err == nil {
			t.Errorf("Create(%.10q...) succeeded", key)
		}
		if _, err := s.Update(ctx, key, nil, 0); err == nil {
			t.Errorf("Update(%.10q...) succeeded", key)
		}
		if _, _, err := s.Delete(ctx, key, 0); err == nil {
			t.Errorf("Delete(%.10q...) succeeded", key)
		}
	}
	wantRevision(t, s, 1)
	mustCreate(t, s, long[:MaxKeySize], "max", 2)
}

func testListOrderAndPrefix(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	keys := []string{"/a/c/d", "/ab/x", "/a/b", "/a", "/a/a", "/b/z", "/a/B"}
	for i, k := range keys {
		mustCreate(t, s, k, "v"+k, int64(i+2))
	}
	mod := map[string]int64{}
	for i, k := range keys {
		mod[k] = int64(i + 2)
	}
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"/a/", []string{"/a/B", "/a/a", "/a/b", "/a/c/d"}},
		{"/ab/", []string{"/ab/x"}},
		{"/a", []string{"/a", "/a/B", "/a/a", "/a/b", "/a/c/d", "/ab/x"}},
		{"", []string{"/a", "/a/B", "/a/a", "/a/b", "/a/c/d", "/ab/x", "/b/z"}},
		{"/zz/", nil},
	} {
		kvs, rev, err := s.List(ctx, c.prefix)
		if err != nil || rev != 8 {
			t.Fatalf("List(%q) revision %d, %v; want 8, nil", c.prefix, rev, err)
		}
		var got []string
		for _, kv := range kvs {
			got = append(got, fmtKV(kv))
		}
		var want []string
		for _, k := range c.want {
			want = append(want, fmtKV(KV{Key: k, Value: []byte("v" + k), ModRevision: mod[k]}))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("List(%q):\n got %v\nwant %v", c.prefix, got, want)
		}
	}
}

func testUpdateCAS(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	_, err := s.Update(ctx, "/k", []byte("x"), 0)
	wantErr(t, "Update missing", err, ErrKeyNotFound)
	mustCreate(t, s, "/k", "v1", 2)
	mustCreate(t, s, "/other", "o", 3)
	for _, stale := range []int64{1, 3, 4} {
		_, err = s.Update(ctx, "/k", []byte("x"), stale)
		wantErr(t, fmt.Sprintf("Update expected=%d", stale), err, ErrRevisionMismatch)
	}
	wantKV(t, s, "/k", "v1", 2)
	if rev, err := s.Update(ctx, "/k", []byte("v2"), 2); err != nil || rev != 4 {
		t.Fatalf("Update expected=2 = %d, %v; want 4, nil", rev, err)
	}
	wantKV(t, s, "/k", "v2", 4)
	_, err = s.Update(ctx, "/k", []byte("x"), 2)
	wantErr(t, "Update with the previous revision", err, ErrRevisionMismatch)
	if rev, err := s.Update(ctx, "/k", []byte("v3"), 0); err != nil || rev != 5 {
		t.Fatalf("Update expected=0 = %d, %v; want 5, nil", rev, err)
	}
	wantKV(t, s, "/k", "v3", 5)
	wantKV(t, s, "/other", "o", 3)
}

func testDeleteCAS(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	_, _, err := s.Delete(ctx, "/k", 0)
	wantErr(t, "Delete missing", err, ErrKeyNotFound)
	mustCreate(t, s, "/k", "v1", 2)
	_, _, err = s.Delete(ctx, "/k", 3)
	wantErr(t, "Delete expected=3", err, ErrRevisionMismatch)
	wantKV(t, s, "/k", "v1", 2)
	rev, old, err := s.Delete(ctx, "/k", 2)
	if err != nil || rev != 3 || !kvEqual(old, KV{Key: "/k", Value: []byte("v1"), ModRevision: 2}) {
		t.Fatalf("Delete expected=2 = %d, %s, %v; want 3, {/k v1 @2}, nil", rev, fmtKV(old), err)
	}
	_, err = s.Get(ctx, "/k")
	wantErr(t, "Get deleted", err, ErrKeyNotFound)
	_, _, err = s.Delete(ctx, "/k", 0)
	wantErr(t, "Delete twice", err, ErrKeyNotFound)
	mustCreate(t, s, "/k", "v2", 4)
	rev, old, err = s.Delete(ctx, "/k", 0)
	if err != nil || rev != 5 || !kvEqual(old, KV{Key: "/k", Value: []byte("v2"), ModRevision: 4}) {
		t.Fatalf("Delete expected=0 = %d, %s, %v; want 5, {/k v2 @4}, nil", rev, fmtKV(old), err)
	}
	if kvs, rev, err := s.List(ctx, ""); err != nil || len(kvs) != 0 || rev != 5 {
		t.Fatalf("List after deletes = %d keys @%d, %v; want 0 @5", len(kvs), rev, err)
	}
}

func testRevisionMonotonic(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	want := int64(1)
	step := func(what string, rev int64, err error) {
		t.Helper()
		if err != nil {
			// A failed write must not move the revision.
			wantRevision(t, s, want)
			return
		}
		want++
		if rev != want {
			t.Fatalf("%s: revision %d, want %d", what, rev, want)
		}
		wantRevision(t, s, want)
	}
	for i := 0; i < 5; i++ {
		k := fmt.Sprintf("/k%d", i%2)
		rev, err := s.Create(ctx, k, nil)
		step("Create "+k, rev, err)
		rev, err = s.Update(ctx, k, []byte("u"), 1)
		step("Update stale "+k, rev, err)
		rev, err = s.Update(ctx, k, []byte("u"), 0)
		step("Update "+k, rev, err)
		if i%3 == 0 {
			rev, _, err = s.Delete(ctx, k, 0)
			step("Delete "+k, rev, err)
		}
	}
	if want != 11 {
		t.Fatalf("ended at revision %d, want 11", want)
	}
}

func testCancelledContext(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	mustCreate(t, s, "/k", "v", 2)
	c, cancel := context.WithCancel(ctx)
	cancel()
	_, err := s.Create(c, "/n", nil)
	wantErr(t, "Create", err, context.Canceled)
	_, err = s.Update(c, "/k", nil, 0)
	wantErr(t, "Update", err, context.Canceled)
	_, _, err = s.Delete(c, "/k", 0)
	wantErr(t, "Delete", err, context.Canceled)
	_, err = s.Get(c, "/k")
	wantErr(t, "Get", err, context.Canceled)
	_, _, err = s.List(c, "")
	wantErr(t, "List", err, context.Canceled)
	_, err = s.Watch(c, "", 0)
	wantErr(t, "Watch", err, context.Canceled)
	wantRevision(t, s, 2)
	wantKV(t, s, "/k", "v", 2)
}

func testSliceOwnership(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	in := []byte("v1")
	mustCreate(t, s, "/k", string(in), 2)
	if _, err := s.Create(ctx, "/j", in); err != nil {
		t.Fatal(err)
	}
	in[0] = 'X'
	wantKV(t, s, "/j", "v1", 3)
	kv, _ := s.Get(ctx, "/j")
	kv.Value[0] = 'Y'
	kvs, _, _ := s.List(ctx, "/j")
	kvs[0].Value[0] = 'Z'
	_, old, _ := s.Delete(ctx, "/k", 0)
	old.Value[0] = 'W'
	wantKV(t, s, "/j", "v1", 3)
}

func testWatchReplay(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	mustCreate(t, s, "/w/a", "a1", 2)
	mustCreate(t, s, "/other/x", "x1", 3)
	mustCreate(t, s, "/w/b", "b1", 4)
	if _, err := s.Update(ctx, "/w/a", []byte("a2"), 2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(ctx, "/w/b", 0); err != nil {
		t.Fatal(err)
	}
	all := []string{
		`PUT /w/a="a1" prev=nil @2`,
		`PUT /w/b="b1" prev=nil @4`,
		`PUT /w/a="a2" prev="a1" @5`,
		`DELETE /w/b="b1" prev="b1" @6`,
	}
	for from, want := range map[int64][]string{1: all, 2: all[1:], 3: all[1:], 4: all[2:], 6: nil} {
		ch, err := s.Watch(ctx, "/w/", from)
		if err != nil {
			t.Fatalf("Watch from %d: %v", from, err)
		}
		wantEvents(t, ch, want...)
	}
	// Replay continues with live events, in order.
	ch, err := s.Watch(ctx, "/w/", 4)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/w/c", "c1", 7)
	wantEvents(t, ch, append(all[2:], `PUT /w/c="c1" prev=nil @7`)...)
}

func testWatchFromNow(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	mustCreate(t, s, "/k", "v1", 2)
	ch, err := s.Watch(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, ch)
	if _, err := s.Update(ctx, "/k", []byte("v2"), 0); err != nil {
		t.Fatal(err)
	}
	wantEvents(t, ch, `PUT /k="v2" prev="v1" @3`)
	// Watching from the revision a List returned misses nothing.
	_, rev, _ := s.List(ctx, "")
	ch2, err := s.Watch(ctx, "", rev)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/n", "n", 4)
	wantEvents(t, ch2, `PUT /n="n" prev=nil @4`)
	wantEvents(t, ch, `PUT /n="n" prev=nil @4`)
}

func testWatchFuture(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	ch, err := s.Watch(ctx, "", 3)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/a", "", 2)
	mustCreate(t, s, "/b", "", 3)
	wantEvents(t, ch) // only revisions > 3
	mustCreate(t, s, "/c", "", 4)
	wantEvents(t, ch, `PUT /c="" prev=nil @4`)
}

func testWatchCompacted(t *testing.T, open newStoreFunc) {
	s := open(t, smallWindow(4, 100))
	for i := 0; i < 10; i++ {
		mustCreate(t, s, fmt.Sprintf("/k/%02d", i), "", int64(i+2))
	}
	// Revisions 2..11 were written; the window keeps 8..11.
	for _, from := range []int64{1, 2, 6} {
		_, err := s.Watch(ctx, "/k/", from)
		wantErr(t, fmt.Sprintf("Watch from %d", from), err, ErrCompacted)
	}
	ch, err := s.Watch(ctx, "/k/", 7)
	if err != nil {
		t.Fatalf("Watch from 7: %v", err)
	}
	wantEvents(t, ch,
		`PUT /k/06="" prev=nil @8`, `PUT /k/07="" prev=nil @9`,
		`PUT /k/08="" prev=nil @10`, `PUT /k/09="" prev=nil @11`)
	for _, from := range []int64{0, 11} {
		ch, err := s.Watch(ctx, "/k/", from)
		if err != nil {
			t.Fatalf("Watch from %d: %v", from, err)
		}
		wantEvents(t, ch)
	}
}

func testWatchPrefixIsolation(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	a, _ := s.Watch(ctx, "/a/", 0)
	ab, _ := s.Watch(ctx, "/ab/", 0)
	all, _ := s.Watch(ctx, "", 0)
	mustCreate(t, s, "/ab/x", "1", 2)
	mustCreate(t, s, "/a/x", "2", 3)
	mustCreate(t, s, "/a", "3", 4)
	mustCreate(t, s, "/b/x", "4", 5)
	wantEvents(t, a, `PUT /a/x="2" prev=nil @3`)
	wantEvents(t, ab, `PUT /ab/x="1" prev=nil @2`)
	wantEvents(t, all,
		`PUT /ab/x="1" prev=nil @2`, `PUT /a/x="2" prev=nil @3`,
		`PUT /a="3" prev=nil @4`, `PUT /b/x="4" prev=nil @5`)
}

func testSlowWatcherClosed(t *testing.T, open newStoreFunc) {
	s := open(t, smallWindow(100, 3))
	slow, _ := s.Watch(ctx, "/s/", 0)
	other, _ := s.Watch(ctx, "/o/", 0)
	for i := 0; i < 5; i++ {
		// Each write returns although nobody reads slow.
		mustCreate(t, s, fmt.Sprintf("/s/%d", i), "", int64(i+2))
	}
	got, closed := drain(slow)
	want := []string{`PUT /s/0="" prev=nil @2`, `PUT /s/1="" prev=nil @3`, `PUT /s/2="" prev=nil @4`}
	if !closed || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("slow watcher: got %q closed=%v; want %q closed=true", got, closed, want)
	}
	mustCreate(t, s, "/o/1", "", 7)
	wantEvents(t, other, `PUT /o/1="" prev=nil @7`)
	// The caller re-lists and watches again from the list's revision.
	_, rev, _ := s.List(ctx, "/s/")
	again, err := s.Watch(ctx, "/s/", rev)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/s/9", "", 8)
	wantEvents(t, again, `PUT /s/9="" prev=nil @8`)
}

func testWatchContextCancel(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	c, cancel := context.WithCancel(ctx)
	ch, err := s.Watch(c, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/k", "", 2)
	cancel()
	var got []string
	for e := range ch { // ends when the channel closes
		got = append(got, fmtEvent(e))
	}
	if want := []string{`PUT /k="" prev=nil @2`}; fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("events before close: %q, want %q", got, want)
	}
	mustCreate(t, s, "/j", "", 3) // publishing to no watcher is fine
}

func testCloseClosesWatches(t *testing.T, open newStoreFunc) {
	s := open(t, defaultWatchConfig())
	ch, err := s.Watch(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/k", "v", 2)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got, closed := drain(ch)
	if !closed || len(got) != 1 {
		t.Fatalf("after Close: events %q closed=%v; want 1 event and closed", got, closed)
	}
	_, err = s.Get(ctx, "/k")
	wantErr(t, "Get", err, ErrClosed)
	_, _, err = s.List(ctx, "")
	wantErr(t, "List", err, ErrClosed)
	_, err = s.Create(ctx, "/n", nil)
	wantErr(t, "Create", err, ErrClosed)
	_, err = s.Update(ctx, "/k", nil, 0)
	wantErr(t, "Update", err, ErrClosed)
	_, _, err = s.Delete(ctx, "/k", 0)
	wantErr(t, "Delete", err, ErrClosed)
	_, err = s.Watch(ctx, "", 0)
	wantErr(t, "Watch", err, ErrClosed)
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func testConcurrentWriters(t *testing.T, open newStoreFunc) {
	const writers, perWriter = 4, 40
	s := open(t, defaultWatchConfig())
	ch, err := s.Watch(ctx, "/c/", 1)
	if err != nil {
		t.Fatal(err)
	}
	type write struct{ key, value string }
	var (
		mu      sync.Mutex
		written = map[int64]write{} // revision → the write that got it
		wg      sync.WaitGroup
	)
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last int64
			key := fmt.Sprintf("/c/%d", w)
			for i := 0; i < perWriter; i++ {
				value := fmt.Sprintf("%d-%d", w, i)
				var rev int64
				var err error
				if i == 0 {
					rev, err = s.Create(ctx, key, []byte(value))
				} else {
					// CAS on our own key always succeeds: nobody else writes it.
					rev, err = s.Update(ctx, key, []byte(value), last)
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d op %d: %w", w, i, err)
					return
				}
				if rev <= last {
					errs <- fmt.Errorf("writer %d: revision %d after %d", w, rev, last)
					return
				}
				last = rev
				mu.Lock()
				prev, dup := written[rev]
				written[rev] = write{key, value}
				mu.Unlock()
				if dup {
					errs <- fmt.Errorf("revision %d given to %v and %s=%s", rev, prev, key, value)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const total = writers * perWriter
	wantRevision(t, s, 1+total)
	for i := 0; i < total; i++ {
		e, ok := <-ch
		if !ok {
			t.Fatalf("watch closed after %d events", i)
		}
		want, found := written[e.Revision]
		if e.Revision != int64(i+2) || !found || e.Key != want.key || string(e.Value) != want.value {
			t.Fatalf("event %d = %s; want revision %d = %v", i, fmtEvent(e), i+2, written[int64(i+2)])
		}
	}
	wantEvents(t, ch)
}
