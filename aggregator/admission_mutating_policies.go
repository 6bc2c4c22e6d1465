package aggregator

import (
	"context"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
)

// MutatingAdmissionPolicies lists the stored MutatingAdmissionPolicies
// (none when admissionregistration.k8s.io/v1alpha1 is not served).
func (a serverAdmissionSource) MutatingAdmissionPolicies(ctx context.Context) ([]*admissionregistration.MutatingAdmissionPolicy, error) {
	return a.stores().MutatingAdmissionPolicies(ctx)
}

// MutatingAdmissionPolicyBindings lists the stored bindings.
func (a serverAdmissionSource) MutatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistration.MutatingAdmissionPolicyBinding, error) {
	return a.stores().MutatingAdmissionPolicyBindings(ctx)
}

// ApplyStore returns the store serving apiVersion/kind, or nil.
func (a serverAdmissionSource) ApplyStore(apiVersion, kind string) *registry.Store {
	return a.findStore(apiVersion, kind)
}
