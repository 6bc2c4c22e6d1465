package aggregator

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/storage"
)

// fakeClock is a settable clock shared by the electors of a test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestLeaderElection follows client-go's algorithm step by step on one
// store: the first elector creates the Lease; another cannot take it
// while the holder renews; once the record has not changed for
// leaseDurationSeconds (on the observer's clock) it is taken over with
// leaseTransitions+1; of two electors racing for a free lease exactly one
// wins (compare-and-swap on resourceVersion).
func TestLeaderElection(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	defer st.Close()
	store := registry.NewStore(st, registry.CoordinationStrategies(nil)[0], registry.StoreOptions{})
	clock := &fakeClock{t: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := newLeaderElector(store, logger, clock.now)
	b := newLeaderElector(store, logger, clock.now)
	c := newLeaderElector(store, logger, clock.now)
	try := func(le *leaderElector) bool {
		t.Helper()
		ok, err := le.tryAcquireOrRenew(ctx)
		if err != nil && ok {
			t.Fatalf("acquired with error %v", err)
		}
		return ok
	}
	holder := func() (string, int32) {
		t.Helper()
		obj, err := store.Get(ctx, LeaderElectionNamespace, LeaderElectionName)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := leaseSpec(obj)
		if err != nil || spec.HolderIdentity == nil || spec.LeaseTransitions == nil || spec.LeaseDurationSeconds == nil || *spec.LeaseDurationSeconds != 15 {
			t.Fatalf("lease spec %+v, %v", spec, err)
		}
		return *spec.HolderIdentity, *spec.LeaseTransitions
	}
	if !try(a) {
		t.Fatal("a did not create the lease")
	}
	if h, n := holder(); h != a.identity || n != 0 {
		t.Fatalf("holder %s transitions %d, want a 0", h, n)
	}
	if try(b) {
		t.Fatal("b took a fresh lease")
	}
	for i := 0; i < 3; i++ { // a renews every 10 s: never expires for b
		clock.step(10 * time.Second)
		if !try(a) {
			t.Fatal("a could not renew")
		}
		if try(b) {
			t.Fatalf("b took a renewed lease (round %d)", i)
		}
	}
	clock.step(14 * time.Second)
	if try(b) {
		t.Fatal("b took the lease 14 s after its last change")
	}
	clock.step(2 * time.Second)
	if !try(b) {
		t.Fatal("b did not take the lease 16 s after its last change")
	}
	if h, n := holder(); h != b.identity || n != 1 {
		t.Fatalf("holder %s transitions %d, want b 1", h, n)
	}
	if try(a) {
		t.Fatal("a took the lease back from b")
	}
	// b stops renewing; a and c race for the expired lease.
	try(c) // c observes the record now
	clock.step(16 * time.Second)
	var wg sync.WaitGroup
	won := make([]bool, 2)
	for i, le := range []*leaderElector{a, c} {
		wg.Add(1)
		go func() { defer wg.Done(); won[i], _ = le.tryAcquireOrRenew(ctx) }()
	}
	wg.Wait()
	h, n := holder()
	if won[0] == won[1] || n != 2 || (won[0] && h != a.identity) || (won[1] && h != c.identity) {
		t.Fatalf("race: a won %v, c won %v, holder %s transitions %d", won[0], won[1], h, n)
	}
}
