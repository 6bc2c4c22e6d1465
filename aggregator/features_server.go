package aggregator

import (
	"errors"
	"time"

	"github.com/aggsim/aggsim/registry"
)

// admissionRegistrationV1Alpha1 reports whether --runtime-config enabled
// admissionregistration.k8s.io/v1alpha1.
func admissionRegistrationV1Alpha1(opts Options) bool {
	return opts.RuntimeConfig[GroupVersionAdmissionRegistrationV1Alpha1]
}

// mutatingAdmissionPolicyEnabled reports whether MutatingAdmissionPolicies
// are enforced: the gate is on (its API is then served too, see
// ValidateFeatureConfig).
func mutatingAdmissionPolicyEnabled(opts Options) bool {
	return opts.FeatureGates[FeatureMutatingAdmissionPolicy]
}

// ValidateFeatureConfig refuses the MutatingAdmissionPolicy gate without
// its API (opts.FeatureGates and opts.RuntimeConfig; New calls it too).
// kube-apiserver 1.33.13 starts with it but its admission plugin never
// syncs (the resources are not served), so /readyz stays failing
// and it exits about 10 s later (`PostStartHook
// "scheduling/bootstrap-system-priority-classes" failed: ... not yet
// ready to handle request`); aggsim says why at once instead.
func ValidateFeatureConfig(opts Options) error {
	if mutatingAdmissionPolicyEnabled(opts) && !admissionRegistrationV1Alpha1(opts) {
		return errors.New("feature gate MutatingAdmissionPolicy needs its API: add --runtime-config=" + GroupVersionAdmissionRegistrationV1Alpha1 + "=true (kube-apiserver 1.33 never becomes ready without it)")
	}
	return nil
}

// alphaStrategies are the strategies of the alpha group/versions
// --runtime-config enabled: admissionregistration.k8s.io/v1alpha1's
// mutatingadmissionpolicies and mutatingadmissionpolicybindings.
func alphaStrategies(opts Options, now func() time.Time) []registry.Strategy {
	if !admissionRegistrationV1Alpha1(opts) {
		return nil
	}
	return registry.MutatingAdmissionPolicyStrategies(now)
}
