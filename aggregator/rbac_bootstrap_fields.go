package aggregator

import "github.com/aggsim/aggsim/registry/apis/meta"

// bootstrapFieldsKey is the key of obj, an object of resource, in
// bootstrapFieldsV1: "resource/namespace/name", or "resource/name".
func bootstrapFieldsKey(resource string, obj meta.Object) string {
	m := obj.GetObjectMeta()
	return resource + "/" + qualifiedName(m.Namespace, m.Name)
}

// bootstrapCreateFields returns a rest.ObjectWriter's CreateFields for
// resource's bootstrap objects: their fieldsV1 from the generated table
// (zz_generated.bootstrapfields.go), which TestBootstrapFieldsTable keeps
// equal to what recording the create computes.
func bootstrapCreateFields(resource string) func(meta.Object) (meta.FieldsV1, bool) {
	return func(obj meta.Object) (meta.FieldsV1, bool) {
		f, ok := bootstrapFieldsV1[bootstrapFieldsKey(resource, obj)]
		return meta.FieldsV1(f), ok
	}
}
