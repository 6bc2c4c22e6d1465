package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/rest"
	"github.com/aggsim/aggsim/registry/storage"
)

var updateBootstrapFields = flag.Bool("update-bootstrap-fields", false, "rewrite zz_generated.bootstrapfields.go")

// bootstrapSet is one resource's bootstrap objects and the manager that
// creates them.
type bootstrapSet struct {
	resource meta.GroupResource
	manager  string
	objs     []meta.Object
}

// bootstrapSets returns every object the server creates at start-up
// through a writer with bootstrapCreateFields, built as the server builds
// them: the RBAC policy, the system namespaces, the local APIServices of
// a default server, the APF configuration (FlowSchemas with their
// consumer's status entry).
func bootstrapSets(t *testing.T) []bootstrapSet {
	t.Helper()
	srv, err := New(Options{Storage: storage.NewMemory(), Clock: bootstrapTestClock}) // the APF status times
	if err != nil {
		t.Fatal(err)
	}
	p := rbac.BootstrapPolicy()
	rbacSet := func(res string, objs []meta.Object) bootstrapSet {
		return bootstrapSet{meta.GroupResource{Group: rbac.GroupRBAC, Resource: res}, "kube-apiserver", objs}
	}
	var apis []meta.Object
	for _, a := range srv.localAPIServices() {
		apis = append(apis, a)
	}
	sets := []bootstrapSet{
		rbacSet("clusterroles", asObjects(p.ClusterRoles)),
		rbacSet("clusterrolebindings", asObjects(p.ClusterRoleBindings)),
		rbacSet("roles", asObjects(p.Roles)),
		rbacSet("rolebindings", asObjects(p.RoleBindings)),
		{meta.GroupResource{Resource: "namespaces"}, "kube-apiserver", systemNamespaceObjects()},
		{apiServicesResource, "kube-apiserver", apis},
	}
	for _, k := range apfKinds {
		set := bootstrapSet{meta.GroupResource{Group: registry.GroupFlowControl, Resource: k.resource}, apfProducerManager, nil}
		for _, name := range k.names {
			o, err := srv.apfProducer.bootstrapObject(context.Background(), k, name)
			if err != nil {
				t.Fatal(err)
			}
			set.objs = append(set.objs, o)
		}
		sets = append(sets, set)
	}
	return sets
}

// bootstrapTestClock is the fixed clock of bootstrapSets and bootstrapTestAPI.
func bootstrapTestClock() time.Time { return time.Unix(1700000000, 0) }

// bootstrapTestAPI is a fresh API over a memory store with a fixed clock.
func bootstrapTestAPI() *rest.API {
	now := bootstrapTestClock
	return rest.NewAPI(storage.NewMemory(), registry.Strategies(now), registry.StoreOptions{Clock: now})
}

// computedBootstrapFields creates every bootstrap object through an
// ObjectWriter without the table, as trackUpdate records it, and returns
// the fieldsV1 of each object's entry of its creating manager by
// bootstrapFieldsKey.
func computedBootstrapFields(t *testing.T) map[string]string {
	t.Helper()
	api := bootstrapTestAPI()
	ctx := registry.WithStatusOnCreate(context.Background())
	out := map[string]string{}
	for _, w := range bootstrapSets(t) {
		ow := rest.ObjectWriter{Store: api.Store(w.resource), Manager: w.manager}
		for _, o := range w.objs {
			got, err := ow.Create(ctx, o)
			if err != nil {
				t.Fatalf("%s %s: %v", w.resource.Resource, o.GetObjectMeta().Name, err)
			}
			n := 0
			for _, e := range got.GetObjectMeta().ManagedFields {
				if e.Manager == w.manager && e.Operation == "Update" {
					out[bootstrapFieldsKey(w.resource.Resource, o)] = string(e.FieldsV1)
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%s %s: %d Update entries of %s, want 1", w.resource.Resource, o.GetObjectMeta().Name, n, w.manager)
			}
		}
	}
	return out
}

// Creating every bootstrap object through the table stores what creating
// it without the table (trackUpdate) stores, byte for byte: the
// managedFields entries (a FlowSchema's consumer entry kept beside the
// producer's), their order and times, and the rest of the object.
func TestBootstrapFieldsCreateAll(t *testing.T) {
	plain, table := bootstrapTestAPI(), bootstrapTestAPI()
	ctx := registry.WithStatusOnCreate(context.Background())
	n := 0
	// two builds of the same objects: a create changes the one it is given
	again := bootstrapSets(t)
	for i, w := range bootstrapSets(t) {
		w2 := again[i]
		a := rest.ObjectWriter{Store: plain.Store(w.resource), Manager: w.manager}
		b := rest.ObjectWriter{Store: table.Store(w.resource), Manager: w.manager, CreateFields: bootstrapCreateFields(w.resource.Resource)}
		for j, o := range w.objs {
			if _, ok := bootstrapFieldsV1[bootstrapFieldsKey(w.resource.Resource, o)]; !ok {
				t.Errorf("%s %s: not in the table", w.resource.Resource, o.GetObjectMeta().Name)
			}
			ga, err := a.Create(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			gb, err := b.Create(ctx, w2.objs[j])
			if err != nil {
				t.Fatal(err)
			}
			ja, _ := json.Marshal(ga)
			jb, _ := json.Marshal(gb)
			ja, jb = reUID.ReplaceAll(ja, nil), reUID.ReplaceAll(jb, nil)
			if !bytes.Equal(ja, jb) {
				t.Errorf("%s %s: through the table\n%s\ntracked\n%s", w.resource.Resource, o.GetObjectMeta().Name, jb, ja)
			}
			n++
		}
	}
	if n < 150 {
		t.Errorf("%d bootstrap objects compared, want the 127 of the RBAC policy and the others", n)
	}
}

var reUID = regexp.MustCompile(`"uid":"[^"]*"`)

// The generated table of the bootstrap objects' fieldsV1 is what
// trackUpdate records for them, object by object, and has no other entry:
// the policy or the field manager changing makes this fail until the
// table is regenerated (go test ./aggregator/ -run
// TestBootstrapFieldsTable -update-bootstrap-fields).
func TestBootstrapFieldsTable(t *testing.T) {
	want := computedBootstrapFields(t)
	if *updateBootstrapFields {
		var b strings.Builder
		b.WriteString("// Code generated by `go test ./aggregator/ -run TestBootstrapFieldsTable -update-bootstrap-fields`. DO NOT EDIT.\n\npackage aggregator\n\n")
		b.WriteString("// bootstrapFieldsV1 holds the fieldsV1 of the Update entry that creating each bootstrap\n// object (RBAC policy, system namespaces, local APIServices, APF configuration) records\n// for its creating manager, by bootstrapFieldsKey.\nvar bootstrapFieldsV1 = map[string]string{\n")
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range want {
				if !yield(k) {
					return
				}
			}
		}) {
			fmt.Fprintf(&b, "\t%q: %q,\n", k, want[k])
		}
		b.WriteString("}\n")
		src, err := format.Source([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("zz_generated.bootstrapfields.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("regenerated zz_generated.bootstrapfields.go: run the test again")
	}
	for k, w := range want {
		if g, ok := bootstrapFieldsV1[k]; !ok {
			t.Errorf("%s: not in the table", k)
		} else if g != w {
			t.Errorf("%s: table\n%s\ntrackUpdate records\n%s", k, g, w)
		}
	}
	for k := range bootstrapFieldsV1 {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: in the table, not in the policy", k)
		}
	}
}

// A create through the table writes the entry trackUpdate writes, and an
// object that is not in the table (or carries managedFields of its own)
// is tracked as before.
func TestBootstrapFieldsCreate(t *testing.T) {
	now := func() time.Time { return time.Unix(1700000000, 0) }
	api := rest.NewAPI(storage.NewMemory(), registry.Strategies(now), registry.StoreOptions{Clock: now})
	st := api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"})
	plain := rest.ObjectWriter{Store: st, Manager: "kube-apiserver"}
	table := rest.ObjectWriter{Store: st, Manager: "kube-apiserver", CreateFields: bootstrapCreateFields("clusterroles")}
	p, q := rbac.BootstrapPolicy(), rbac.BootstrapPolicy()
	a, err := plain.Create(context.Background(), &p.ClusterRoles[0])
	if err != nil {
		t.Fatal(err)
	}
	q.ClusterRoles[0].Name = "copy"
	other, err := table.Create(context.Background(), &q.ClusterRoles[0]) // not in the table
	if err != nil {
		t.Fatal(err)
	}
	st2 := rest.NewAPI(storage.NewMemory(), registry.Strategies(now), registry.StoreOptions{Clock: now}).Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"})
	r := rbac.BootstrapPolicy()
	b, err := rest.ObjectWriter{Store: st2, Manager: "kube-apiserver", CreateFields: bootstrapCreateFields("clusterroles")}.Create(context.Background(), &r.ClusterRoles[0])
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := a.GetObjectMeta().ManagedFields, b.GetObjectMeta().ManagedFields
	if fmt.Sprintf("%+v", ma) != fmt.Sprintf("%+v", mb) {
		t.Errorf("through the table:\n%+v\ntracked:\n%+v", mb, ma)
	}
	if string(other.GetObjectMeta().ManagedFields[0].FieldsV1) != string(ma[0].FieldsV1) {
		t.Errorf("an object outside the table: %s, want %s", other.GetObjectMeta().ManagedFields[0].FieldsV1, ma[0].FieldsV1)
	}
}
