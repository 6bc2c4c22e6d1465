package registry

import (
	"context"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// ListMeta answers the ObjectMeta List answers (uid, resourceVersion,
// ownerReferences, finalizers, labels...) object for object, with List's
// resourceVersion, for one namespace and for all.
func TestListMetaMatchesList(t *testing.T) {
	ctx := context.Background()
	s := NewStore(storage.NewMemory(), ConfigMapStrategy{}, StoreOptions{})
	ctrl := true
	for _, o := range []*core.ConfigMap{
		{ObjectMeta: meta.ObjectMeta{Namespace: "a", Name: "owner", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"k": "v"}},
		{ObjectMeta: meta.ObjectMeta{Namespace: "a", Name: "dep", Finalizers: []string{"example.com/f"},
			OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "u-1", Controller: &ctrl}}}},
		{ObjectMeta: meta.ObjectMeta{Namespace: "b", Name: "other"}},
	} {
		if _, err := s.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"", "a"} {
		items, rv, _, err := s.List(ctx, ns, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		metas, mrv, err := s.ListMeta(ctx, ns)
		if err != nil {
			t.Fatal(err)
		}
		if mrv != rv || len(metas) != len(items) {
			t.Fatalf("namespace %q: %d objects at %s, List %d at %s", ns, len(metas), mrv, len(items), rv)
		}
		for i, it := range items {
			if want := it.GetObjectMeta(); !reflect.DeepEqual(metas[i], want) {
				t.Errorf("namespace %q, %d:\n got %+v\nwant %+v", ns, i, metas[i], want)
			}
		}
	}
}
