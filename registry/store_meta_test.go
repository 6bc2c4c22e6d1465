package registry

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/storage"
)

// ListMeta answers the ownership part of the ObjectMeta List answers
// (name, namespace, uid, resourceVersion, deletion, ownerReferences,
// finalizers; labels and the rest left empty) object for object, with
// List's resourceVersion, for one namespace and for all.
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
			m := it.GetObjectMeta()
			want := &meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
				DeletionTimestamp: m.DeletionTimestamp, DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
				OwnerReferences: m.OwnerReferences, Finalizers: m.Finalizers}
			if m.UID == "" || m.ResourceVersion == "" {
				t.Fatalf("namespace %q, %d: List gave no uid or resourceVersion: %+v", ns, i, m)
			}
			if !reflect.DeepEqual(metas[i], want) {
				t.Errorf("namespace %q, %d:\n got %+v\nwant %+v", ns, i, metas[i], want)
			}
		}
	}
}

// BenchmarkListMeta lists the metadata of the 66 ClusterRoles of the
// bootstrap RBAC policy, as the garbage collector's first list of a fresh
// server does.
func BenchmarkListMeta(b *testing.B) {
	ctx := context.Background()
	s := NewStore(storage.NewMemory(), RBACStrategy{Kind: "ClusterRole"}, StoreOptions{})
	p := rbac.BootstrapPolicy()
	now := meta.NewTime(time.Unix(1700000000, 0))
	for i := range p.ClusterRoles {
		// the entry the server's bootstrap writes (zz_generated.bootstrapfields.go)
		p.ClusterRoles[i].ManagedFields = []meta.ManagedFieldsEntry{{Manager: "kube-apiserver", Operation: "Update",
			APIVersion: "rbac.authorization.k8s.io/v1", Time: &now, FieldsType: "FieldsV1",
			FieldsV1: meta.FieldsV1(`{"f:metadata":{"f:annotations":{".":{},"f:rbac.authorization.kubernetes.io/autoupdate":{}},"f:labels":{".":{},"f:kubernetes.io/bootstrapping":{}}},"f:rules":{}}`)}}
		if _, err := s.Create(ctx, &p.ClusterRoles[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.ListMeta(ctx, ""); err != nil {
			b.Fatal(err)
		}
	}
}
