package storage

import (
	"sync/atomic"
	"time"
)

// WriteExpecter is implemented by stores that commit several writes in
// one transaction (Bolt's group commit). A caller about to issue n
// writes from several goroutines at once (the server's bootstrap
// objects) announces them, so that the store waits for them briefly and
// commits them together instead of committing the first ones alone while
// the others are still being prepared. It is a hint: the store waits at
// most about a millisecond for an announced write that does not come.
type WriteExpecter interface {
	// ExpectWrites announces n writes (n <= 0 announces nothing) and
	// returns the function to call once they have been issued (or given
	// up), which withdraws what has not arrived.
	ExpectWrites(n int) (done func())
}

var _ WriteExpecter = (*Bolt)(nil)

// defaultLingerIdle is how long commitLoop waits for the next announced
// write before it commits what it has. One bbolt commit is two
// fdatasyncs (0.2–1 ms each on an idle disk, far more on a busy one); the
// bootstrap writers enqueue their writes tens of microseconds apart.
const defaultLingerIdle = time.Millisecond

// writeExpect is the state of Bolt's announced writes.
type writeExpect struct {
	pending atomic.Int64  // announced writes that have not reached commitLoop
	wake    chan struct{} // nudges a lingering commitLoop when pending drops by a withdrawal
	idle    time.Duration // defaultLingerIdle; tests set more
	batches atomic.Int64  // transactions commitLoop started (tests)
}

func (e *writeExpect) init() {
	e.wake = make(chan struct{}, 1)
	e.idle = defaultLingerIdle
}

// ExpectWrites implements WriteExpecter. Without it, a fresh start-up on a
// loaded 2-core machine committed its ~150 bootstrap objects in 24–37
// transactions before ready (the writers' CPU work spreads their writes
// out and the committer takes each one that arrives alone), with it in
// 3–6.
func (s *Bolt) ExpectWrites(n int) (done func()) {
	if n <= 0 {
		return func() {}
	}
	s.expect.pending.Add(int64(n))
	return func() {
		// Withdraw at most n, never below zero (other callers' writes
		// may have used this caller's share), and wake the committer.
		for {
			cur := s.expect.pending.Load()
			sub := min(cur, int64(n))
			if sub <= 0 {
				return
			}
			if s.expect.pending.CompareAndSwap(cur, cur-sub) {
				break
			}
		}
		select {
		case s.expect.wake <- struct{}{}:
		default:
		}
	}
}

// arrived counts one write reaching commitLoop against the announced ones.
func (s *Bolt) arrived() {
	for {
		cur := s.expect.pending.Load()
		if cur <= 0 || s.expect.pending.CompareAndSwap(cur, cur-1) {
			return
		}
	}
}

// linger adds to batch the writes announced by ExpectWrites as they
// arrive, while some are still expected, each waited for at most the idle
// time, up to maxBatch; without announced writes it returns batch at
// once. On quit it returns what it has (commitLoop commits it, then
// stops).
func (s *Bolt) linger(batch []*boltWrite) []*boltWrite {
	s.expect.batches.Add(1)
	if s.expect.pending.Load() <= 0 {
		return batch
	}
	t := time.NewTimer(s.expect.idle)
	defer t.Stop()
	for len(batch) < maxBatch && s.expect.pending.Load() > 0 {
		select {
		case w := <-s.writes:
			s.arrived()
			batch = append(batch, w)
			t.Reset(s.expect.idle)
		case <-s.expect.wake:
		case <-t.C:
			return batch
		case <-s.quit:
			return batch
		}
	}
	return batch
}
