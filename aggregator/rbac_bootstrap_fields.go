package aggregator

import (
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// systemNamespaceObjects are the system namespaces as
// ensureSystemNamespaces creates them.
func systemNamespaceObjects() []meta.Object {
	objs := make([]meta.Object, 0, len(systemNamespaces))
	for _, name := range systemNamespaces {
		objs = append(objs, &core.Namespace{
			TypeMeta:   meta.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
			ObjectMeta: meta.ObjectMeta{Name: name},
		})
	}
	return objs
}

// bootstrapFieldsKey is the key of obj, an object of resource, in
// bootstrapFieldsV1: "resource/namespace/name", or "resource/name".
func bootstrapFieldsKey(resource string, obj meta.Object) string {
	m := obj.GetObjectMeta()
	return resource + "/" + qualifiedName(m.Namespace, m.Name)
}

// bootstrapCreateFields returns a rest.ObjectWriter's CreateFields for
// resource's bootstrap objects (the RBAC policy, the system namespaces,
// the local APIServices, the APF configuration): their fieldsV1 from the
// generated table (zz_generated.bootstrapfields.go), which
// TestBootstrapFieldsTable keeps equal to what recording the create
// computes. An object the table does not name (an APIService of a group
// --runtime-config enabled) is recorded the long way.
func bootstrapCreateFields(resource string) func(meta.Object) (meta.FieldsV1, bool) {
	return func(obj meta.Object) (meta.FieldsV1, bool) {
		f, ok := bootstrapFieldsV1[bootstrapFieldsKey(resource, obj)]
		return meta.FieldsV1(f), ok
	}
}
