package registry

import (
	"context"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// WatchFunc is Watch run in the caller's goroutine: it calls fn with each
// event Watch would send, in the same order, until fn returns false, ctx
// ends, the watch times out or storage ends it, and then returns nil. A
// resourceVersion older than the kept history yields one call with the
// ERROR event (410 Expired) Watch sends. It returns Watch's errors
// (selectors, resourceVersion) without calling fn.
//
// It is for the server's own watchers (informers, the garbage collector's
// monitors): Watch's goroutine and channel between storage and the
// watcher cost each of them a goroutine stack (8 KiB) for as long as the
// server runs (issue 21's idle RSS). fn runs while the watch holds its
// place in storage's event stream, as a slow reader of Watch's channel
// would.
func (s *Store) WatchFunc(ctx context.Context, namespace string, opts ListOptions, fn func(WatchEvent) bool) error {
	return s.watchFunc(ctx, namespace, opts, s.decode, fn)
}

// watchFunc is WatchFunc with the decoder of its events' objects (as
// watch).
func (s *Store) watchFunc(ctx context.Context, namespace string, opts ListOptions, decode func(value []byte, rev int64) (meta.Object, error), fn func(WatchEvent) bool) error {
	w, expired, err := s.openWatch(ctx, namespace, opts, decode)
	if err != nil {
		return err
	}
	if w == nil {
		fn(expired)
		return nil
	}
	defer w.cancel()
	w.fn = fn
	w.run()
	return nil
}
