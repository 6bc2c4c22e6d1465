package admission

import (
	"context"

	"github.com/aggsim/aggsim/registry"
)

// NamespaceObjectSource is what a Source also implements to give
// ValidatingAdmissionPolicies their namespaceObject variable: the stored
// Namespace of that name as JSON (found=false when it does not exist).
type NamespaceObjectSource interface {
	NamespaceObject(ctx context.Context, name string) (ns map[string]any, found bool, err error)
}

// NamespaceObject reads the stored Namespace name as JSON.
func (s StoreSource) NamespaceObject(ctx context.Context, name string) (map[string]any, bool, error) {
	obj, found, err := s.namespace(ctx, name)
	if !found || err != nil {
		return nil, false, err
	}
	var m map[string]any
	if err := convert(obj, &m); err != nil {
		return nil, false, err
	}
	return m, true, nil
}

// namespaceObjectMeta are the metadata fields upstream copies into a
// policy's namespaceObject (CreateNamespaceObject in
// apiserver/pkg/admission/plugin/cel/filter.go): no managedFields,
// ownerReferences or selfLink. uid is copied, but its declared CEL field
// is named UID upstream, so `has(namespaceObject.metadata.UID)` is false.
var namespaceObjectMeta = []string{"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers"}

// namespaceObject is the namespaceObject variable of a policy evaluating
// a: the Namespace a's object lives in, reduced to upstream's fields
// (metadata as above, spec, status), or nil for a cluster-scoped resource
// and for Namespace objects themselves (their own name is their
// namespace, which upstream's policy dispatcher unsets) and when the
// Namespace does not exist. kube-apiserver 1.33.13 answers so; see
// TestPolicyNamespaceObject.
func namespaceObject(ctx context.Context, src Source, a *registry.AdmissionAttributes) (any, error) {
	if a.Namespace == "" || a.Info.Group == "" && a.Info.Resource == "namespaces" {
		return nil, nil
	}
	ns, ok := src.(NamespaceObjectSource)
	if !ok {
		return nil, nil
	}
	obj, found, err := ns.NamespaceObject(ctx, a.Namespace)
	if err != nil || !found {
		return nil, err
	}
	md, _ := obj["metadata"].(map[string]any)
	keep := map[string]any{}
	for _, k := range namespaceObjectMeta {
		if v, ok := md[k]; ok {
			keep[k] = v
		}
	}
	out := map[string]any{"metadata": keep, "spec": map[string]any{}, "status": map[string]any{}}
	for _, k := range []string{"spec", "status"} {
		if v, ok := obj[k].(map[string]any); ok {
			out[k] = v
		}
	}
	return out, nil
}
