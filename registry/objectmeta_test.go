package registry

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestEveryStrategyValidatesObjectMeta: every stored resource runs the one
// shared ObjectMeta validation on create and on update, so bad labels,
// annotation keys, finalizers and ownerReferences are refused everywhere
// (a new resource that forgets it fails here).
func TestEveryStrategyValidatesObjectMeta(t *testing.T) {
	for _, st := range Strategies(func() time.Time { return time.Unix(0, 0) }) {
		info := st.Info()
		t.Run(info.Resource, func(t *testing.T) {
			bad := func() meta.Object {
				o := st.New()
				m := o.GetObjectMeta()
				m.Name = "x"
				if info.Namespaced {
					m.Namespace = "default"
				}
				m.Labels = map[string]string{"l": "!!!"}
				m.Annotations = map[string]string{"bad key": "v"}
				m.Finalizers = []string{"a/b/c"}
				m.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o"}}
				return o
			}
			want := []string{"metadata.labels", "metadata.annotations", "metadata.ownerReferences.uid", "metadata.finalizers"}
			check := func(step string, errs meta.FieldErrors) {
				t.Helper()
				var fields []string
				for _, e := range errs {
					if strings.HasPrefix(e.Field, "metadata.") {
						fields = append(fields, e.Field)
					}
				}
				for _, f := range want {
					if !slices.Contains(fields, f) {
						t.Errorf("%s: no error on %s (got %v)", step, f, fields)
					}
				}
			}
			o := bad()
			st.PrepareForCreate(o)
			check("create", st.Validate(o))
			old := st.New()
			*old.GetObjectMeta() = meta.ObjectMeta{Name: "x", Namespace: o.GetObjectMeta().Namespace}
			n := bad()
			st.PrepareForUpdate(n, old)
			check("update", st.ValidateUpdate(n, old))
		})
	}
}

// TestMergeKeysFromTags: the strategic-merge-patch keys of every typed
// resource come from its struct tags (patchStrategy/patchMergeKey), the one
// description of the type, and are what upstream declares.
func TestMergeKeysFromTags(t *testing.T) {
	want := map[string]map[string]string{
		"apiservices": {"metadata.ownerReferences": "uid", "metadata.finalizers": "", "status.conditions": "type"},
		"namespaces":  {"metadata.ownerReferences": "uid", "metadata.finalizers": "", "status.conditions": "type"},
		"services":    {"metadata.ownerReferences": "uid", "metadata.finalizers": "", "spec.ports": "port", "status.conditions": "type"},
		"configmaps":  {"metadata.ownerReferences": "uid", "metadata.finalizers": ""},
	}
	for _, st := range Strategies(nil) {
		w, ok := want[st.Info().Resource]
		if !ok {
			continue
		}
		got := MergeKeysOf(reflect.TypeOf(st.New()))
		if !maps.Equal(got, w) {
			t.Errorf("%s: %v, want %v", st.Info().Resource, got, w)
		}
	}
}
