package registry

import (
	"context"

	"github.com/aggsim/aggsim/registry/storage"
)

// Empty reports whether the store holds no object of its resource, in
// any namespace: what a caller that lists a usually empty resource on
// every write needs first (admission reads the webhook configurations and
// admission policies on every create, update and delete; a fresh
// start-up writes 175 bootstrap objects, most of them together). Errors
// are the storage's, as List's.
//
// On bbolt and memory storage, whose Revision covers every write
// acknowledged so far, "empty at revision R" is remembered and answered
// without a read while the revision is still R: any write since, to this
// resource or another, makes the next call read again. On other storage
// (etcd, where Revision is what this replica's watch has seen) every call
// reads.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	local := revisionCoversWrites(s.st)
	rev := s.st.Revision()
	if local && rev != 0 && s.emptyAt.Load() == rev {
		return true, nil
	}
	kvs, _, err := s.st.List(ctx, s.prefix)
	if err != nil {
		return false, err
	}
	if len(kvs) > 0 {
		return false, nil
	}
	if local {
		// rev was read before the list: the list saw every write up to
		// rev, so the resource was empty at rev.
		s.emptyAt.Store(rev)
	}
	return true, nil
}

// revisionCoversWrites reports whether st's Revision is at least that of
// every write it has acknowledged (published before the writer returns).
func revisionCoversWrites(st storage.Storage) bool {
	switch st.(type) {
	case *storage.Bolt, *storage.Memory:
		return true
	}
	return false
}
