package registry

import (
	"context"
	"errors"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// Upstream's messages for a list at a compacted revision
// (k8s.io/apiserver/pkg/storage/etcd3/store.go: expired, continueExpired).
const (
	listExpiredMessage     = "The resourceVersion for the provided list is too old."
	continueExpiredMessage = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
)

// listRevision is the revision a list must read under upstream's rules
// for the etcd3 store (GetList): the continue token's; N for
// resourceVersionMatch=Exact; N for a paged list with resourceVersion N
// and no match (the legacy rule); otherwise 0, the current state.
func listRevision(opts ListOptions, rv int64, tok *continueToken) int64 {
	switch {
	case tok != nil:
		return max(tok.ResourceVersion, 0)
	case opts.ResourceVersionMatch == "Exact":
		return rv
	case opts.ResourceVersionMatch == "" && rv > 0 && opts.Limit > 0:
		return rv
	}
	return 0
}

// listKVs reads the keys of a list: at the revision listRevision says when
// the storage keeps history (storage.SnapshotLister), else the current
// state. A compacted revision is 410 Expired with upstream's message.
func (s *Store) listKVs(ctx context.Context, prefix string, opts ListOptions, rv int64, tok *continueToken) ([]storage.KV, int64, error) {
	sl, ok := s.st.(storage.SnapshotLister)
	if !ok {
		kvs, rev, err := s.st.List(ctx, prefix)
		if err != nil {
			return nil, 0, meta.NewInternalError(err)
		}
		return kvs, rev, nil
	}
	kvs, rev, _, err := sl.ListAt(ctx, prefix, listRevision(opts, rv, tok), "", 0)
	if errors.Is(err, storage.ErrCompacted) {
		if tok != nil {
			return nil, 0, NewResourceExpired(continueExpiredMessage)
		}
		return nil, 0, NewResourceExpired(listExpiredMessage)
	}
	if err != nil {
		return nil, 0, meta.NewInternalError(err)
	}
	return kvs, rev, nil
}
