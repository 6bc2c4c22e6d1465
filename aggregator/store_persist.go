package aggregator

import (
	"context"

	"github.com/aggsim/aggsim/registry/storage"
)

// persistStore makes the store's start-up writes durable before /readyz
// turns ok: a fresh bbolt store opened with BoltOptions.StageFresh holds
// the bootstrap objects unsynced under a temporary name until then
// (registry/storage/bbolt_stage.go); any other store has nothing pending.
// It reports false, after logging why, when the store cannot be made
// durable: the server then never turns ready (its writes fail too).
func (s *Server) persistStore() bool {
	p, ok := s.opts.Storage.(storage.Persister)
	if !ok {
		return true
	}
	if err := p.Persist(); err != nil {
		s.logger.Error("make the store durable", "err", err)
		return false
	}
	return true
}

// persistStoreAsync runs persistStore in its own goroutine, once the
// bootstrap writes are done, so that its fdatasync overlaps the informers'
// first lists (reads do not wait for it; a write does). The channel gets
// its result.
func (s *Server) persistStoreAsync() <-chan bool {
	ch := make(chan bool, 1)
	go func() { ch <- s.persistStore() }()
	return ch
}

// waitPersisted waits for persistStoreAsync's result; false when the store
// could not be made durable or ctx ended first.
func waitPersisted(ctx context.Context, ch <-chan bool) bool {
	select {
	case ok := <-ch:
		return ok
	case <-ctx.Done():
		return false
	}
}
