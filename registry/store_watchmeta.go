package registry

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// WatchMetaFunc is WatchFunc from resourceVersion rv without selectors or
// bookmarks, whose events carry each object's metadata only, read from
// the stored bytes as ListMeta reads them: as a PartialObjectMetadata
// with the resource's kind and apiVersion and the event's
// resourceVersion, neither converted to the served version nor
// defaulted. A custom resource's conversion webhook is therefore not
// called, and an object it cannot convert is still reported. aggsim's
// garbage collector feeds its graph from it (upstream's collector
// watches metadata only, through metadata informers). rv "" or "0"
// starts with one ADDED event per current object (decoded in full, as
// Watch lists them); errors are Watch's.
func (s *Store) WatchMetaFunc(ctx context.Context, namespace, rv string, fn func(WatchEvent) bool) error {
	return s.watchFunc(ctx, namespace, ListOptions{ResourceVersion: rv}, s.decodeMeta, fn)
}

// decodeMeta turns stored bytes into a PartialObjectMetadata of the
// resource at resourceVersion rev.
func (s *Store) decodeMeta(value []byte, rev int64) (meta.Object, error) {
	o := &meta.PartialObjectMetadata{}
	if err := json.Unmarshal(value, o); err != nil {
		return nil, meta.NewInternalError(err)
	}
	o.Kind, o.APIVersion = s.info.Kind, s.info.APIVersion()
	o.ResourceVersion = strconv.FormatInt(rev, 10)
	return o, nil
}
