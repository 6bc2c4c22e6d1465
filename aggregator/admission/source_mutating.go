package admission

import (
	"context"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
)

var _ MutatingPolicySource = PolicyStoreSource{}

// MutatingAdmissionPolicies lists the stored MutatingAdmissionPolicies.
func (s PolicyStoreSource) MutatingAdmissionPolicies(ctx context.Context) ([]*admissionregistration.MutatingAdmissionPolicy, error) {
	return listAs[admissionregistration.MutatingAdmissionPolicy](ctx, s.MutatingPolicies)
}

// MutatingAdmissionPolicyBindings lists the stored bindings.
func (s PolicyStoreSource) MutatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistration.MutatingAdmissionPolicyBinding, error) {
	return listAs[admissionregistration.MutatingAdmissionPolicyBinding](ctx, s.MutatingBindings)
}

// ApplyStore returns Find(apiVersion, kind).
func (s PolicyStoreSource) ApplyStore(apiVersion, kind string) *registry.Store {
	if s.Find == nil {
		return nil
	}
	return s.Find(apiVersion, kind)
}

// listAs lists st (nil: nothing) as wire objects of type T.
func listAs[T any](ctx context.Context, st *registry.Store) ([]*T, error) {
	if st == nil {
		return nil, nil
	}
	items, _, _, err := st.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*T, 0, len(items))
	for _, it := range items {
		x := new(T)
		if err := convert(it, x); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
