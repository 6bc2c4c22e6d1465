package storage

import (
	"errors"
	"testing"
	"time"
)

// fakeClock is a settable clock for the window's age limit.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestWindowTrim checks the window's rules with a fake clock: at least
// minEvents are always kept, events younger than maxAge are kept up to
// maxEvents, and the floor is the newest dropped revision.
func TestWindowTrim(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	b := newBroadcaster(watchConfig{minEvents: 2, maxEvents: 4, maxAge: time.Minute, buffer: 10, now: clock.now}, 1)
	pub := func(rev int64) { b.publish(Event{Key: "/k", Revision: rev}) }
	window := func() (revs []int64) {
		for _, e := range b.events {
			revs = append(revs, e.ev.Revision)
		}
		return revs
	}
	check := func(wantFloor int64, want ...int64) {
		t.Helper()
		if got := window(); b.floor != wantFloor || len(got) != len(want) || (len(want) > 0 && (got[0] != want[0] || got[len(got)-1] != want[len(want)-1])) {
			t.Fatalf("window %v floor %d, want %v floor %d", got, b.floor, want, wantFloor)
		}
	}
	pub(2)
	pub(3)
	pub(4)
	check(1, 2, 3, 4) // young: kept beyond minEvents
	pub(5)
	pub(6)
	check(2, 3, 4, 5, 6) // maxEvents caps the window
	clock.t = clock.t.Add(2 * time.Minute)
	pub(7)
	check(5, 6, 7) // old ones dropped down to minEvents
	if _, err := b.watch(ctx, "", 4); !errors.Is(err, ErrCompacted) || err.(*CompactedError).Floor != 5 {
		t.Fatalf("watch from 4: %v, want ErrCompacted with floor 5", err)
	}
	ch, err := b.watch(ctx, "", 5)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, ch, `PUT /k="" prev=nil @6`, `PUT /k="" prev=nil @7`)
}

// TestResourceWindow checks each resource's window against upstream's
// watch cache (apiserver/pkg/storage/cacher/watch_cache.go): 100 events
// at first; a full window doubles while its oldest event is younger than
// 75 s; past that the oldest event leaves and a watch from before it is
// compacted, with floor = the oldest kept revision - 1 (upstream's
// `too old resource version: X (oldest-1)`); until an event has left,
// the floor is the opening revision (rv=1 on kube-apiserver 1.33.13 gave
// `too old resource version: 1 (2)`, 2 being its cache's list revision);
// a full window whose newest quarter is older than 75 s halves. Other
// resources' events do not move a resource's floor.
func TestResourceWindow(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	cfg := defaultWatchConfig()
	cfg.now = clock.now
	b := newBroadcaster(cfg, 2)
	const cms, nss = "/registry/core/configmaps/", "/registry/core/namespaces/"
	rev := int64(2)
	pub := func(prefix string, n int, step time.Duration) {
		for i := 0; i < n; i++ {
			rev++
			clock.t = clock.t.Add(step)
			b.publish(Event{Key: prefix + "default/x", Revision: rev})
		}
	}
	floorOf := func(prefix string, from int64) int64 {
		t.Helper()
		_, err := b.watch(ctx, prefix+"default/", from)
		var ce *CompactedError
		if errors.As(err, &ce) {
			return ce.Floor
		}
		if err != nil {
			t.Fatal(err)
		}
		return -1 // not compacted
	}
	if got := floorOf(cms, 1); got != 2 {
		t.Fatalf("rv 1 at opening: floor %d, want 2", got)
	}
	pub(cms, 150, time.Millisecond) // fresh: 100 → 200, nothing leaves
	if got := floorOf(cms, 2); got != -1 {
		t.Fatalf("fresh events: compacted at %d", got)
	}
	if w := b.resources[cms]; w.capacity != 200 || len(w.events) != 150 || w.removed {
		t.Fatalf("window capacity %d len %d removed %v, want 200 150 false", w.capacity, len(w.events), w.removed)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	pub(cms, 51, time.Second) // full at 200, oldest stale: the first one leaves
	if w := b.resources[cms]; w.capacity != 200 || len(w.events) != 200 || w.events[0].rev != 4 {
		t.Fatalf("window capacity %d len %d oldest %d, want 200 200 4", w.capacity, len(w.events), w.events[0].rev)
	}
	if got := floorOf(cms, 2); got != 3 {
		t.Fatalf("watch from 2: floor %d, want 3", got)
	}
	if got := floorOf(cms, 3); got != -1 {
		t.Fatalf("watch from 3 (the floor): compacted at %d", got)
	}
	if got := floorOf(nss, 2); got != -1 {
		t.Fatalf("namespaces moved by configmaps' events: floor %d", got)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	pub(cms, 1, 0) // newest quarter stale: 200 → 100, then the oldest leaves
	if w := b.resources[cms]; w.capacity != 100 || len(w.events) != 100 || w.events[0].rev != rev-99 {
		t.Fatalf("after shrink: capacity %d len %d oldest %d, want 100 100 %d", w.capacity, len(w.events), w.events[0].rev, rev-99)
	}
	if got := floorOf(cms, rev-101); got != rev-100 {
		t.Fatalf("after shrink: floor %d, want %d", got, rev-100)
	}
}

// TestWatchReplayLargerThanBuffer checks that a replay longer than the
// watcher's buffer is delivered whole and live events still fit after it.
func TestWatchReplayLargerThanBuffer(t *testing.T) {
	b := newBroadcaster(watchConfig{minEvents: 100, maxEvents: 100, maxAge: time.Hour, buffer: 2}, 1)
	for rev := int64(2); rev < 12; rev++ {
		b.publish(Event{Key: "/k", Revision: rev})
	}
	ch, err := b.watch(ctx, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	b.publish(Event{Key: "/k", Revision: 12})
	b.publish(Event{Key: "/k", Revision: 13})
	got, closed := drain(ch)
	if len(got) != 12 || closed {
		t.Fatalf("got %d events closed=%v, want 12 open", len(got), closed)
	}
}
