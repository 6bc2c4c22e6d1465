package demo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// TestRBACObjectsAreTheSamplesArtifacts: the first four RBAC objects are
// k8s.io/sample-apiserver v0.33.3's artifacts/example auth-delegator.yaml,
// auth-reader.yaml, rbac.yaml and rbac-bind.yaml (copied unchanged into
// testdata/demo/sample-apiserver-rbac/), field for field.
func TestRBACObjectsAreTheSamplesArtifacts(t *testing.T) {
	objs := RBACObjects()
	for i, c := range []struct {
		file string
		obj  meta.Object
	}{
		{"auth-delegator.yaml", &rbac.ClusterRoleBinding{}},
		{"auth-reader.yaml", &rbac.RoleBinding{}},
		{"rbac.yaml", &rbac.ClusterRole{}},
		{"rbac-bind.yaml", &rbac.ClusterRoleBinding{}},
	} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "demo", "sample-apiserver-rbac", c.file))
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(j, c.obj); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(objs[i], c.obj) {
			t.Errorf("%s:\n%+v\nwant\n%+v", c.file, objs[i], c.obj)
		}
	}
}

// TestApplyObjects: Objects go into the store (twice, as on a restart),
// and the flunder roles carry the aggregation labels of view, edit and
// admin.
func TestApplyObjects(t *testing.T) {
	api := testRegistryAPI(t)
	ctx := context.Background()
	for _, port := range []int32{40001, 40002} {
		if err := Apply(ctx, api, Objects(port, []byte("ca"))); err != nil {
			t.Fatal(err)
		}
	}
	crs := api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"})
	for name, want := range map[string]map[string]string{
		AggregateToView: {"rbac.authorization.k8s.io/aggregate-to-admin": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true", "rbac.authorization.k8s.io/aggregate-to-view": "true"},
		AggregateToEdit: {"rbac.authorization.k8s.io/aggregate-to-admin": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true"},
	} {
		o, err := crs.Get(ctx, "", name)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.GetObjectMeta().Labels; !reflect.DeepEqual(got, want) {
			t.Errorf("%s labels %v, want %v", name, got, want)
		}
	}
	rb, err := api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "rolebindings"}).Get(ctx, "kube-system", AuthReaderBinding)
	if err != nil {
		t.Fatal(err)
	}
	if s := rb.(*rbac.RoleBinding).Subjects; len(s) != 1 || s[0] != (rbac.Subject{Kind: "ServiceAccount", Name: "apiserver", Namespace: "wardle"}) {
		t.Errorf("auth reader subjects %+v", s)
	}
}
