package admissionregistration

import "github.com/aggsim/aggsim/registry/apis/meta"

// MutatingAdmissionPolicy is a set of CEL mutations the API server applies
// to matching requests itself, without calling a webhook. It acts only
// where a MutatingAdmissionPolicyBinding binds it. Alpha: served only
// with --runtime-config=admissionregistration.k8s.io/v1alpha1=true, and
// enforced only with --feature-gates=MutatingAdmissionPolicy=true.
// ---
// MutatingAdmissionPolicy mirrors admissionregistration/v1alpha1's
// (cluster-scoped, kube-apiserver 1.33), stored as a GenericObject.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type MutatingAdmissionPolicy struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	meta.ObjectMeta `json:"metadata,omitempty"`
	// What the policy changes and which requests it applies to.
	Spec MutatingAdmissionPolicySpec `json:"spec,omitempty"`
}

// MutatingAdmissionPolicyList is a list of MutatingAdmissionPolicy
// objects.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type MutatingAdmissionPolicyList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	meta.ListMeta `json:"metadata,omitempty"`
	// The MutatingAdmissionPolicy objects.
	Items []MutatingAdmissionPolicy `json:"items"`
}

// MutatingAdmissionPolicySpec is what a MutatingAdmissionPolicy matches
// and how it changes the object.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type MutatingAdmissionPolicySpec struct {
	// The kind of the parameter objects a binding names; unset means the
	// policy takes no parameters.
	// +optional
	ParamKind *ParamKind `json:"paramKind,omitempty"`
	// The requests the policy may apply to (a binding can only narrow
	// them). Only CREATE and UPDATE requests are mutated. Required.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty"`
	// Named CEL expressions the mutations and match conditions read as
	// "variables.<name>", evaluated in order.
	// +optional
	// +listType=atomic
	Variables []Variable `json:"variables,omitempty"`
	// The mutations, applied in order to the object. At least one.
	// +optional
	// +listType=atomic
	Mutations []Mutation `json:"mutations,omitempty"`
	// What an error (an expression failing, a parameter missing) does:
	// Fail rejects the request, Ignore skips the policy. Default Fail.
	// +optional
	// +openapi:enum=Fail
	// +openapi:enum=Ignore
	FailurePolicy *string `json:"failurePolicy,omitempty"`
	// CEL conditions that must all be true for the policy to apply; one
	// false skips it. At most 64.
	// +optional
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// Whether the policy runs once more when a later mutation (a webhook
	// or another policy) changed the object: Never or IfNeeded. Required.
	// +openapi:enum=IfNeeded
	// +openapi:enum=Never
	ReinvocationPolicy string `json:"reinvocationPolicy,omitempty"`
}

// Mutation is one change a MutatingAdmissionPolicy makes to the object.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type Mutation struct {
	// How the change is written: ApplyConfiguration (a CEL Object{...}
	// merged into the object as server-side apply merges) or JSONPatch (a
	// CEL list of JSONPatch{op, path, value, from}). Required.
	// +openapi:enum=ApplyConfiguration
	// +openapi:enum=JSONPatch
	PatchType string `json:"patchType"`
	// The apply configuration; required when patchType is
	// ApplyConfiguration.
	// +optional
	ApplyConfiguration *ApplyConfiguration `json:"applyConfiguration,omitempty"`
	// The JSON patch; required when patchType is JSONPatch.
	// +optional
	JSONPatch *JSONPatch `json:"jsonPatch,omitempty"`
}

// ApplyConfiguration is a CEL expression returning a partial object,
// written with Object types: Object{spec: Object.spec{replicas: 3}}.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type ApplyConfiguration struct {
	// The CEL expression; it returns an Object. Maps and lists are merged
	// as server-side apply merges them.
	Expression string `json:"expression,omitempty"`
}

// JSONPatch is a CEL expression returning RFC 6902 operations:
// [JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}].
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type JSONPatch struct {
	// The CEL expression; it returns a list of JSONPatch values (op,
	// path, value, from), applied in order.
	Expression string `json:"expression,omitempty"`
}

// MutatingAdmissionPolicyBinding puts a MutatingAdmissionPolicy into
// effect for some requests, with given parameters.
// ---
// MutatingAdmissionPolicyBinding mirrors admissionregistration/v1alpha1's
// (cluster-scoped), stored as a GenericObject.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type MutatingAdmissionPolicyBinding struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	meta.ObjectMeta `json:"metadata,omitempty"`
	// The policy bound, its parameters and the requests.
	Spec MutatingAdmissionPolicyBindingSpec `json:"spec,omitempty"`
}

// MutatingAdmissionPolicyBindingList is a list of
// MutatingAdmissionPolicyBinding objects.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type MutatingAdmissionPolicyBindingList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	meta.ListMeta `json:"metadata,omitempty"`
	// The MutatingAdmissionPolicyBinding objects.
	Items []MutatingAdmissionPolicyBinding `json:"items"`
}

// MutatingAdmissionPolicyBindingSpec says which policy a binding puts
// into effect, with which parameters and for which requests.
// +upstreamPackage=k8s.io/api/admissionregistration/v1alpha1
type MutatingAdmissionPolicyBindingSpec struct {
	// The name of the MutatingAdmissionPolicy bound; a binding to a
	// missing policy does nothing. Required.
	PolicyName string `json:"policyName,omitempty"`
	// The parameter objects the policy is evaluated with;
	// parameterNotFoundAction defaults to Deny.
	// +optional
	ParamRef *ParamRef `json:"paramRef,omitempty"`
	// Narrows the requests the policy applies to (within its own
	// matchConstraints).
	// +optional
	MatchResources *MatchResources `json:"matchResources,omitempty"`
}
