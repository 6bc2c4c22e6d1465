package storage

import (
	"context"
	"testing"
	"time"
)

// recvN reads n events from ch, failing if it closes or stalls first.
func recvN(t *testing.T, ch <-chan Event, n int) []Event {
	t.Helper()
	var got []Event
	for len(got) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed after %d events, want %d", len(got), n)
			}
			got = append(got, ev)
		case <-time.After(5 * time.Second):
			t.Fatalf("stalled after %d events, want %d", len(got), n)
		}
	}
	return got
}

// TestWatchBacklogBeyondChannel checks that a watcher may fall behind by
// its whole buffer although its channel is made smaller: every event
// arrives once, in revision order, and the watch stays open.
func TestWatchBacklogBeyondChannel(t *testing.T) {
	b := newBroadcaster(watchConfig{minEvents: 10, maxEvents: 10, maxAge: time.Hour, buffer: 1000}, 1)
	ch, err := b.watch(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := cap(ch); got != watchChanInitial {
		t.Fatalf("channel capacity %d, want %d", got, watchChanInitial)
	}
	const n = 1000 // exactly the buffer: nothing is dropped
	for rev := int64(2); rev < 2+n; rev++ {
		b.publish(Event{Key: "/k", Revision: rev})
	}
	for i, ev := range recvN(t, ch, n) {
		if ev.Revision != int64(2+i) {
			t.Fatalf("event %d has revision %d, want %d", i, ev.Revision, 2+i)
		}
	}
	b.publish(Event{Key: "/k", Revision: 2 + n}) // after the backlog: straight into the channel
	if ev := recvN(t, ch, 1)[0]; ev.Revision != 2+n {
		t.Fatalf("live event after the backlog: revision %d, want %d", ev.Revision, 2+n)
	}
}

// TestWatchBacklogOverflowCloses checks that a watcher more than its
// buffer behind is closed after the events it had queued, as when its
// channel held the whole buffer.
func TestWatchBacklogOverflowCloses(t *testing.T) {
	b := newBroadcaster(watchConfig{minEvents: 10, maxEvents: 10, maxAge: time.Hour, buffer: 200}, 1)
	ch, err := b.watch(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for rev := int64(2); rev < 2+201; rev++ {
		b.publish(Event{Key: "/k", Revision: rev})
	}
	got := recvN(t, ch, 200)
	if last := got[199].Revision; last != 201 {
		t.Fatalf("last queued revision %d, want 201", last)
	}
	select {
	case ev, ok := <-ch:
		if ok {
			t.Fatalf("event %d after the overflow, want the channel closed", ev.Revision)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("channel not closed after the overflow")
	}
}

// TestWatchBacklogContextEnds checks that a watch whose consumer stopped
// reading with a backlog ends when its context does: the pump exits and
// the channel closes.
func TestWatchBacklogContextEnds(t *testing.T) {
	b := newBroadcaster(watchConfig{minEvents: 10, maxEvents: 10, maxAge: time.Hour, buffer: 1000}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := b.watch(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for rev := int64(2); rev < 2+300; rev++ {
		b.publish(Event{Key: "/k", Revision: rev})
	}
	cancel()
	deadline := time.After(5 * time.Second)
	for n := 0; ; n++ {
		select {
		case _, ok := <-ch:
			if !ok {
				b.mu.Lock()
				watchers := len(b.watchers)
				b.mu.Unlock()
				if watchers != 0 {
					t.Fatalf("after close: %d watchers registered, want 0", watchers)
				}
				return
			}
			if n > 300 {
				t.Fatalf("more events than published")
			}
		case <-deadline:
			t.Fatal("channel not closed after the context ended")
		}
	}
}
