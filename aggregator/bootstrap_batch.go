package aggregator

import (
	"context"
	"sync"

	"github.com/aggsim/aggsim/registry/storage"
)

// writeExpecterKey carries the store's storage.WriteExpecter in the
// context of Server.Run, for ensureObjects.
type writeExpecterKey struct{}

// withWriteExpecter returns ctx carrying st when st can be told of writes
// to come (bbolt's group commit); otherwise ctx.
func withWriteExpecter(ctx context.Context, st storage.Storage) context.Context {
	if h, ok := st.(storage.WriteExpecter); ok {
		return context.WithValue(ctx, writeExpecterKey{}, h)
	}
	return ctx
}

// announcement tells the store how many writes one ensureObjects call is
// about to issue, so that they share a transaction and its fsyncs: at once
// when every object is a create, or, when each object is read first
// (revise), after all n have reported whether they write (decided), each
// waiting until then. Without a WriteExpecter in the context it announces
// nothing and nothing waits.
type announcement struct {
	h       storage.WriteExpecter
	mu      sync.Mutex
	pending int           // reads not yet decided
	writes  int           // decided writes
	ready   chan struct{} // closed once announced
	undo    func()
}

// newAnnouncement starts the announcement of n writes; known says they
// are all writes (announced now).
func newAnnouncement(ctx context.Context, n int, known bool) *announcement {
	a := &announcement{ready: make(chan struct{}), undo: func() {}}
	a.h, _ = ctx.Value(writeExpecterKey{}).(storage.WriteExpecter)
	if a.h == nil || known || n == 0 {
		if a.h != nil && known {
			a.undo = a.h.ExpectWrites(n)
		}
		close(a.ready)
		return a
	}
	a.pending = n
	return a
}

// decided reports one object's first read: write says whether a create or
// update follows. It returns once every object has reported, after the
// writes were announced.
func (a *announcement) decided(write bool) {
	if a == nil {
		return
	}
	a.mu.Lock()
	if a.pending > 0 {
		if write {
			a.writes++
		}
		if a.pending--; a.pending == 0 {
			a.undo = a.h.ExpectWrites(a.writes)
			close(a.ready)
		}
	}
	a.mu.Unlock()
	<-a.ready
}

// done withdraws what was announced and did not come (failed writes).
func (a *announcement) done() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.undo()
}
