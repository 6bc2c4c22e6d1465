package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestBoltExpectWritesOneTransaction: writes announced with ExpectWrites
// and issued from their own goroutines share one transaction, each with
// its own revision; without an announcement, writes issued one after the
// other take one transaction each.
func TestBoltExpectWritesOneTransaction(t *testing.T) {
	s := openTestBolt(t, filepath.Join(t.TempDir(), "expect.db"))
	s.expect.idle = 30 * time.Second // only the announced count ends the wait
	ctx := context.Background()

	before := s.expect.batches.Load()
	for i := range 3 {
		if _, err := s.Create(ctx, fmt.Sprintf("/seq/%d", i), []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.expect.batches.Load() - before; got != 3 {
		t.Errorf("3 writes one after the other: %d transactions, want 3", got)
	}

	const n = 40
	before = s.expect.batches.Load()
	done := s.ExpectWrites(n)
	revs := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rev, err := s.Create(ctx, fmt.Sprintf("/batch/%02d", i), []byte("x"))
			if err != nil {
				t.Error(err)
			}
			revs[i] = rev
		}()
	}
	wg.Wait()
	done()
	if got := s.expect.batches.Load() - before; got != 1 {
		t.Errorf("%d announced writes: %d transactions, want 1", n, got)
	}
	slices.Sort(revs)
	for i, r := range revs {
		if want := s.Revision() - n + 1 + int64(i); r != want {
			t.Fatalf("revisions %v, want %d consecutive ending at %d", revs, n, s.Revision())
		}
	}
	if p := s.expect.pending.Load(); p != 0 {
		t.Errorf("pending %d after every announced write arrived", p)
	}
}

// TestBoltExpectWritesWithdrawn: announced writes that never come do not
// hold the ones that did: withdrawing them (the done function) commits at
// once, long before the idle wait would end it.
func TestBoltExpectWritesWithdrawn(t *testing.T) {
	s := openTestBolt(t, filepath.Join(t.TempDir(), "withdrawn.db"))
	s.expect.idle = time.Hour
	done := s.ExpectWrites(3)
	written := make(chan error, 1)
	go func() {
		_, err := s.Create(context.Background(), "/one", []byte("x"))
		written <- err
	}()
	// Wait until the write is queued or lingering, then withdraw the two
	// that will not come.
	deadline := time.Now().Add(10 * time.Second)
	for s.expect.pending.Load() == 3 && len(written) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	done()
	select {
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the write waited for announced writes that were withdrawn")
	}
	if p := s.expect.pending.Load(); p != 0 {
		t.Errorf("pending %d after done", p)
	}
	if done := s.ExpectWrites(0); done == nil {
		t.Error("ExpectWrites(0) returned nil")
	}
}
