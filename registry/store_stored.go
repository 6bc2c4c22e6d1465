package registry

import (
	"context"
	"errors"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// CreateStored writes b as the stored form of a new object namespace/name
// of the store's resource, as it is: no admission, defaulting, validation
// or encoding runs; the namespace must exist and not be terminating, as
// for Create. It is for a caller that made b ahead of time exactly as
// Create would have stored the same object (the bootstrap objects of a
// fresh store, whose stored bytes are generated at build time:
// aggregator/bootstrap_stored.go), and must only be used where Create
// would have admitted the object unchanged. It returns the revision of the
// write. Errors: AlreadyExists (409) when the name is taken, Create's
// namespace errors (NotFound, Forbidden), the storage's otherwise.
func (s *Store) CreateStored(ctx context.Context, namespace, name string, b []byte) (int64, error) {
	if err := s.checkNamespace(ctx, namespace, name); err != nil {
		return 0, err
	}
	rev, err := s.st.Create(ctx, s.key(namespace, name), b)
	if errors.Is(err, storage.ErrKeyExists) {
		return 0, meta.NewAlreadyExists(s.info.GroupResource(), name)
	}
	if err != nil {
		return 0, s.storageErr(err, name)
	}
	s.log.Debug("created", "resource", s.info.GroupResource().String(), "namespace", namespace, "name", name, "rv", rev)
	return rev, nil
}

// GetStored returns the stored bytes of namespace/name and their revision,
// without decoding them. Errors: NotFound (404), the storage's otherwise.
func (s *Store) GetStored(ctx context.Context, namespace, name string) ([]byte, int64, error) {
	if name == "" {
		return nil, 0, s.notFound(name)
	}
	kv, err := s.st.Get(ctx, s.key(namespace, name))
	if err != nil {
		return nil, 0, s.storageErr(err, name)
	}
	return kv.Value, kv.ModRevision, nil
}
