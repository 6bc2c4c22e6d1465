package storage

import "context"

// SnapshotLister is implemented by backends that can read a prefix as it
// was at a past revision (etcd's MVCC): the registry uses it for
// resourceVersionMatch=Exact lists and for continue tokens, so that every
// page of a list comes from one snapshot, as kube-apiserver's etcd3 store
// does. Memory and Bolt keep no history and do not implement it; their
// lists always read the current state.
type SnapshotLister interface {
	// ListAt returns the keys under prefix at revision rev (0: now), from
	// key start on (inclusive; "": the first) and at most limit of them
	// (0: all), with the revision read and whether more keys follow. A
	// compacted rev returns a *CompactedError.
	ListAt(ctx context.Context, prefix string, rev int64, start string, limit int64) ([]KV, int64, bool, error)
}

var _ SnapshotLister = (*Etcd)(nil)
