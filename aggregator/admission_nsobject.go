package aggregator

import "context"

// NamespaceObject gives ValidatingAdmissionPolicies their namespaceObject
// (admission.NamespaceObjectSource) from the server's namespace store.
func (a serverAdmissionSource) NamespaceObject(ctx context.Context, name string) (map[string]any, bool, error) {
	return a.stores().NamespaceObject(ctx, name)
}
