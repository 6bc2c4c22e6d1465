package registry

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ListMeta returns the metadata of every object of namespace ("" for all)
// as stored at the current revision, and that revision, decoding nothing
// but what a controller that follows ownerReferences and finalizers needs
// (the garbage collector's lists): name, namespace, uid, resourceVersion,
// deletionTimestamp, deletionGracePeriodSeconds, ownerReferences and
// finalizers; labels, annotations, managedFields and the rest of metadata
// are left empty. It reads like List without options, at a fraction of
// its cost for large objects (a ClusterRole's rules, a CRD's schema are
// skipped, not decoded; managedFields' times are not parsed). Errors: the
// storage's, and a stored value that is not JSON.
func (s *Store) ListMeta(ctx context.Context, namespace string) ([]*meta.ObjectMeta, string, error) {
	kvs, rev, err := s.listKVs(ctx, s.listPrefix(namespace), ListOptions{}, 0, nil)
	if err != nil {
		return nil, "", err
	}
	out := make([]*meta.ObjectMeta, 0, len(kvs))
	for _, kv := range kvs {
		var v struct {
			Metadata ownershipMeta `json:"metadata"`
		}
		if err := json.Unmarshal(kv.Value, &v); err != nil {
			return nil, "", meta.NewInternalError(err)
		}
		m := v.Metadata
		out = append(out, &meta.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion:   strconv.FormatInt(kv.ModRevision, 10),
			DeletionTimestamp: m.DeletionTimestamp, DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
			OwnerReferences: m.OwnerReferences, Finalizers: m.Finalizers,
		})
	}
	return out, strconv.FormatInt(rev, 10), nil
}

// ownershipMeta is the part of metadata ListMeta decodes.
type ownershipMeta struct {
	Name                       string                `json:"name,omitempty"`
	Namespace                  string                `json:"namespace,omitempty"`
	UID                        string                `json:"uid,omitempty"`
	DeletionTimestamp          *meta.Time            `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64                `json:"deletionGracePeriodSeconds,omitempty"`
	OwnerReferences            []meta.OwnerReference `json:"ownerReferences,omitempty"`
	Finalizers                 []string              `json:"finalizers,omitempty"`
}
