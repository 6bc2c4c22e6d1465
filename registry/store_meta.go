package registry

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ListMeta returns the metadata of every object of namespace ("" for all)
// as stored at the current revision, and that revision, decoding nothing
// but metadata: what a controller that follows ownerReferences and
// finalizers needs (the garbage collector's initial list). It reads like
// List without options, at a fraction of its cost for large objects (a
// ClusterRole's rules, a CRD's schema are skipped, not decoded). Errors:
// the storage's, and a stored value that is not JSON.
func (s *Store) ListMeta(ctx context.Context, namespace string) ([]*meta.ObjectMeta, string, error) {
	kvs, rev, err := s.listKVs(ctx, s.listPrefix(namespace), ListOptions{}, 0, nil)
	if err != nil {
		return nil, "", err
	}
	out := make([]*meta.ObjectMeta, 0, len(kvs))
	for _, kv := range kvs {
		var v struct {
			Metadata meta.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(kv.Value, &v); err != nil {
			return nil, "", meta.NewInternalError(err)
		}
		v.Metadata.ResourceVersion = strconv.FormatInt(kv.ModRevision, 10)
		out = append(out, &v.Metadata)
	}
	return out, strconv.FormatInt(rev, 10), nil
}
