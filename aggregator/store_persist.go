package aggregator

import "github.com/aggsim/aggsim/registry/storage"

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
