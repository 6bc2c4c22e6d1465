package coordination

import "github.com/aggsim/aggsim/registry/apis/meta"

// ValidateLeaseSpec mirrors upstream's ValidateLeaseSpec with the
// CoordinatedLeaderElection feature gate off (kube-apiserver 1.33's
// default, under which strategy and preferredHolder are dropped before
// validation): leaseDurationSeconds `must be greater than 0`,
// leaseTransitions `must be greater than or equal to 0`.
func ValidateLeaseSpec(spec *LeaseSpec) meta.FieldErrors {
	var errs meta.FieldErrors
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, meta.Invalid("spec.leaseDurationSeconds", *d, "must be greater than 0"))
	}
	if n := spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, meta.Invalid("spec.leaseTransitions", *n, "must be greater than or equal to 0"))
	}
	return errs
}

// DropDisabledFields clears the fields of the CoordinatedLeaderElection
// feature gate, off in kube-apiserver 1.33 (upstream's lease strategy
// drops them on create and update).
func DropDisabledFields(spec *LeaseSpec) {
	spec.Strategy, spec.PreferredHolder = nil, nil
}
