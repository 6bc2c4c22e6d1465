package admissionregistration

import "github.com/aggsim/aggsim/registry/apis/meta"

func ptr[T any](v T) *T { return &v }

// DefaultWebhook sets a webhook's defaults as upstream's
// SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook do
// (pkg/apis/admissionregistration/v1/defaults.go): failurePolicy Fail,
// matchPolicy Equivalent, empty namespace and object selectors,
// timeoutSeconds 10, each rule's scope "*", a service's port 443, and for
// a mutating webhook reinvocationPolicy Never.
func DefaultWebhook(w *MutatingWebhook, mutating bool) {
	if w.FailurePolicy == nil {
		w.FailurePolicy = ptr("Fail")
	}
	if w.MatchPolicy == nil {
		w.MatchPolicy = ptr("Equivalent")
	}
	if w.NamespaceSelector == nil {
		w.NamespaceSelector = &meta.LabelSelector{}
	}
	if w.ObjectSelector == nil {
		w.ObjectSelector = &meta.LabelSelector{}
	}
	if w.TimeoutSeconds == nil {
		w.TimeoutSeconds = ptr(int32(10))
	}
	if mutating {
		if w.ReinvocationPolicy == nil {
			w.ReinvocationPolicy = ptr("Never")
		}
	} else {
		w.ReinvocationPolicy = nil // not a field of ValidatingWebhook
	}
	for i := range w.Rules {
		defaultRule(&w.Rules[i].Rule)
	}
	if s := w.ClientConfig.Service; s != nil && s.Port == nil {
		s.Port = ptr(int32(443))
	}
}

func defaultRule(r *Rule) {
	if r.Scope == nil {
		r.Scope = ptr("*")
	}
}

// defaultMatchResources mirrors SetDefaults_MatchResources: matchPolicy
// Equivalent, empty selectors, and each rule's scope "*".
func defaultMatchResources(m *MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr("Equivalent")
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &meta.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &meta.LabelSelector{}
	}
	for i := range m.ResourceRules {
		defaultRule(&m.ResourceRules[i].Rule)
	}
	for i := range m.ExcludeResourceRules {
		defaultRule(&m.ExcludeResourceRules[i].Rule)
	}
}

// DefaultValidatingAdmissionPolicySpec mirrors
// SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MatchResources:
// failurePolicy Fail and the matchConstraints defaults.
func DefaultValidatingAdmissionPolicySpec(s *ValidatingAdmissionPolicySpec) {
	if s.FailurePolicy == nil {
		s.FailurePolicy = ptr("Fail")
	}
	defaultMatchResources(s.MatchConstraints)
}

// DefaultValidatingAdmissionPolicyBindingSpec applies the
// SetDefaults_MatchResources defaults to spec.matchResources.
func DefaultValidatingAdmissionPolicyBindingSpec(s *ValidatingAdmissionPolicyBindingSpec) {
	defaultMatchResources(s.MatchResources)
}
