package storage

import (
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
	if _, err := b.watch(ctx, "", 4); err != ErrCompacted {
		t.Fatalf("watch from 4: %v, want ErrCompacted", err)
	}
	ch, err := b.watch(ctx, "", 5)
	if err != nil {
		t.Fatal(err)
	}
	wantEvents(t, ch, `PUT /k="" prev=nil @6`, `PUT /k="" prev=nil @7`)
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
