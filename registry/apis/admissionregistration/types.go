package admissionregistration

import "github.com/aggsim/aggsim/registry/apis/meta"

// MutatingWebhookConfiguration lists admission webhooks that may change
// an object (and accept or reject the request) before it is stored.
// ---
// MutatingWebhookConfiguration mirrors admissionregistration/v1's
// (cluster-scoped). The registry stores it as a GenericObject; this type
// describes its wire form (the OpenAPI schema is derived from it).
type MutatingWebhookConfiguration struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The webhooks called, each with the requests it is called for; names
	// are unique in the list.
	// +optional
	// +listType=map
	// +listMapKey=name
	Webhooks []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// MutatingWebhookConfigurationList is a list of
// MutatingWebhookConfiguration objects.
type MutatingWebhookConfigurationList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The MutatingWebhookConfiguration objects.
	Items []MutatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingWebhookConfiguration lists admission webhooks that accept or
// reject a request without changing its object.
// ---
// ValidatingWebhookConfiguration mirrors admissionregistration/v1's
// (cluster-scoped), stored as a GenericObject like the mutating kind.
type ValidatingWebhookConfiguration struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The webhooks called, each with the requests it is called for; names
	// are unique in the list.
	// +optional
	// +listType=map
	// +listMapKey=name
	Webhooks []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// ValidatingWebhookConfigurationList is a list of
// ValidatingWebhookConfiguration objects.
type ValidatingWebhookConfigurationList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ValidatingWebhookConfiguration objects.
	Items []ValidatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingWebhook is one webhook of a MutatingWebhookConfiguration: where
// it is reached, which requests are sent to it, and how its failures and
// repeated calls are handled.
// ---
// The registry defaults and validates both kinds' webhooks as
// MutatingWebhook values (ValidatingWebhook converts to and from it).
type MutatingWebhook struct {
	// The webhook's name: a fully qualified name of at least three
	// dot-separated parts (for example "check.images.example.com"),
	// unique in its configuration.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// How the API server calls the webhook: an https URL or an in-cluster
	// Service, and the CA bundle that verifies it.
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// The operations on groups, versions and resources that are sent to
	// the webhook; a request matching any rule is sent.
	// +listType=atomic
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// What happens when the call fails or times out: Fail rejects the
	// request, Ignore lets it through. Defaults to Fail.
	// +openapi:enum=Fail
	// +openapi:enum=Ignore
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// Whether a request for another version or group of a matched resource
	// is converted and sent (Equivalent) or only exact matches are sent
	// (Exact). Defaults to Equivalent.
	// +openapi:enum=Equivalent
	// +openapi:enum=Exact
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	// Limits the webhook to objects in namespaces whose labels match (a
	// namespace object itself is matched by its own labels). Defaults to
	// the empty selector, which matches every namespace.
	NamespaceSelector *meta.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// Limits the webhook to objects whose labels (old or new object)
	// match. Defaults to the empty selector, which matches everything.
	ObjectSelector *meta.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,11,opt,name=objectSelector"`
	// Declares whether the webhook changes anything besides the object:
	// None, or NoneOnDryRun when it skips its side effects on dry-run
	// requests (Some and Unknown are no longer accepted). Required.
	// +openapi:enum=None
	// +openapi:enum=NoneOnDryRun
	// +openapi:enum=Some
	// +openapi:enum=Unknown
	SideEffects *string `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	// How long the API server waits for the webhook, in seconds, from 1 to
	// 30; after it the failure policy applies. Defaults to 10.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// The AdmissionReview versions the webhook understands, in order of
	// preference; the API server uses the first it supports and fails the
	// call when it supports none. Required.
	// +listType=atomic
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// Whether the webhook is called again when a later mutation changed
	// the object: Never, or IfNeeded (at most once more). Defaults to
	// Never.
	// +openapi:enum=IfNeeded
	// +openapi:enum=Never
	ReinvocationPolicy *string `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
	// CEL conditions a matched request must all meet to be sent; a
	// condition that fails to evaluate is handled by the failure policy.
	// At most 64, names unique.
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,opt,name=matchConditions"`
}

// ValidatingWebhook is one webhook of a ValidatingWebhookConfiguration:
// where it is reached, which requests are sent to it and how its failures
// are handled.
type ValidatingWebhook struct {
	// The webhook's name: a fully qualified name of at least three
	// dot-separated parts (for example "check.images.example.com"),
	// unique in its configuration.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// How the API server calls the webhook: an https URL or an in-cluster
	// Service, and the CA bundle that verifies it.
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// The operations on groups, versions and resources that are sent to
	// the webhook; a request matching any rule is sent.
	// +listType=atomic
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// What happens when the call fails or times out: Fail rejects the
	// request, Ignore lets it through. Defaults to Fail.
	// +openapi:enum=Fail
	// +openapi:enum=Ignore
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// Whether a request for another version or group of a matched resource
	// is converted and sent (Equivalent) or only exact matches are sent
	// (Exact). Defaults to Equivalent.
	// +openapi:enum=Equivalent
	// +openapi:enum=Exact
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	// Limits the webhook to objects in namespaces whose labels match (a
	// namespace object itself is matched by its own labels). Defaults to
	// the empty selector, which matches every namespace.
	NamespaceSelector *meta.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// Limits the webhook to objects whose labels (old or new object)
	// match. Defaults to the empty selector, which matches everything.
	ObjectSelector *meta.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	// Declares whether the webhook changes anything besides answering:
	// None, or NoneOnDryRun when it skips its side effects on dry-run
	// requests (Some and Unknown are no longer accepted). Required.
	// +openapi:enum=None
	// +openapi:enum=NoneOnDryRun
	// +openapi:enum=Some
	// +openapi:enum=Unknown
	SideEffects *string `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	// How long the API server waits for the webhook, in seconds, from 1 to
	// 30; after it the failure policy applies. Defaults to 10.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// The AdmissionReview versions the webhook understands, in order of
	// preference; the API server uses the first it supports and fails the
	// call when it supports none. Required.
	// +listType=atomic
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// CEL conditions a matched request must all meet to be sent; a
	// condition that fails to evaluate is handled by the failure policy.
	// At most 64, names unique.
	// +listType=map
	// +listMapKey=name
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,opt,name=matchConditions"`
}

// Mutating returns w as a MutatingWebhook without a reinvocation policy,
// the form the defaulting and validation functions take.
func (w *ValidatingWebhook) Mutating() MutatingWebhook {
	return MutatingWebhook{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
		FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
		NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
		SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
		AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
	}
}

// Validating returns w as a ValidatingWebhook: its reinvocation policy,
// which the validating kind does not have, is dropped.
func (w *MutatingWebhook) Validating() ValidatingWebhook {
	return ValidatingWebhook{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
		FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
		NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
		SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
		AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
	}
}

// WebhookClientConfig says how the API server reaches a webhook: exactly
// one of url and service.
type WebhookClientConfig struct {
	// The webhook's location as an https URL ("https://host:port/path");
	// no user, query or fragment. Either this or service is set; a
	// Service is the usual choice for webhooks running in the cluster.
	// +optional
	URL *string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// The in-cluster Service that serves the webhook, called over https.
	// Either this or url is set.
	// +optional
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// PEM certificates of the CA that signed the webhook's serving
	// certificate; empty means the API server's system trust roots.
	// +optional
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference points at a Service, and a port and path on it.
type ServiceReference struct {
	// The Service's namespace. Required.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// The Service's name. Required.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// The URL path requests are sent to.
	// +optional
	Path *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	// The Service port, 1 to 65535. Defaults to 443.
	// +optional
	Port *int32 `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// RuleWithOperations matches requests by operation and by the group,
// version, resource and scope of what they act on.
type RuleWithOperations struct {
	// The operations matched: CREATE, UPDATE, DELETE, CONNECT, or "*" for
	// all of them (then alone in the list). Required.
	// +listType=atomic
	// +openapi:enum=*
	// +openapi:enum=CONNECT
	// +openapi:enum=CREATE
	// +openapi:enum=DELETE
	// +openapi:enum=UPDATE
	Operations []string `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations,casttype=OperationType"`
	Rule       `json:",inline" protobuf:"bytes,2,opt,name=rule"`
}

// NamedRuleWithOperations is a RuleWithOperations that can be limited to
// objects with given names.
// +structType=atomic
type NamedRuleWithOperations struct {
	// The names of the objects matched; empty matches every object.
	// +listType=atomic
	ResourceNames      []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	RuleWithOperations `json:",inline" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}

// Rule selects resources by API group, version, name and scope.
type Rule struct {
	// The API groups matched; "" is the core group and "*" matches every
	// group (then alone in the list). Required.
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	// The API versions matched; "*" matches every version (then alone in
	// the list). Required.
	// +listType=atomic
	APIVersions []string `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	// The resources matched, by plural name: "pods", a subresource
	// "pods/status", "*" for every resource, "*/status" for a subresource
	// of every resource, "*/*" for everything. Required.
	// +listType=atomic
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// The scope matched: Cluster (cluster-scoped resources), Namespaced
	// (namespaced resources) or "*" (both). Defaults to "*".
	// +optional
	Scope *string `json:"scope,omitempty" protobuf:"bytes,4,rep,name=scope"`
}

// MatchCondition is a named CEL expression a request must satisfy to be
// sent to a webhook or checked by a policy.
type MatchCondition struct {
	// The condition's name, a qualified name unique in its list; it names
	// the condition in errors. Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// A CEL expression that returns a bool. It sees the request
	// ("request", "object", "oldObject", "params", "namespaceObject",
	// "authorizer"). Required.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=expression"`
}

// ValidatingAdmissionPolicy is a set of CEL rules that accept or reject
// requests in the API server itself, without calling a webhook. It acts
// only where a ValidatingAdmissionPolicyBinding binds it.
// ---
// ValidatingAdmissionPolicy mirrors admissionregistration/v1's
// (cluster-scoped), stored as a GenericObject.
type ValidatingAdmissionPolicy struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// What the policy checks and which requests it applies to.
	Spec ValidatingAdmissionPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// What the server found checking the policy (type-checking warnings,
	// conditions). Written by the server; read-only.
	Status ValidatingAdmissionPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicy
// objects.
type ValidatingAdmissionPolicyList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ValidatingAdmissionPolicy objects.
	Items []ValidatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyStatus is what the server reports about a
// policy.
type ValidatingAdmissionPolicyStatus struct {
	// The metadata.generation of the policy this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// The results of type-checking the policy's expressions against the
	// matched types.
	// +optional
	TypeChecking *TypeChecking `json:"typeChecking,omitempty" protobuf:"bytes,2,opt,name=typeChecking"`
	// The policy's current conditions, at most one per type.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []meta.Condition `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`
}

// TypeChecking holds the results of type-checking a policy.
type TypeChecking struct {
	// The warnings found, one per problem expression.
	// +optional
	// +listType=atomic
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty" protobuf:"bytes,1,rep,name=expressionWarnings"`
}

// ExpressionWarning is a type-checking warning about one expression.
type ExpressionWarning struct {
	// The path of the expression's field in the policy, for example
	// "spec.validations[0].expression". Required.
	FieldRef string `json:"fieldRef" protobuf:"bytes,2,opt,name=fieldRef"`
	// What the type checker found, one line per matched type. Required.
	Warning string `json:"warning" protobuf:"bytes,3,opt,name=warning"`
}

// ValidatingAdmissionPolicySpec is what a ValidatingAdmissionPolicy
// checks and the requests it applies to.
type ValidatingAdmissionPolicySpec struct {
	// The kind of the objects that parameterize the policy, if any; a
	// binding names which objects of that kind are used.
	// +optional
	ParamKind *ParamKind `json:"paramKind,omitempty" protobuf:"bytes,1,rep,name=paramKind"`
	// The requests the policy applies to; a binding can narrow them
	// further. Required, with at least one resource rule.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty" protobuf:"bytes,2,rep,name=matchConstraints"`
	// The CEL checks a request must pass; each failing one is reported.
	// At least one of validations and auditAnnotations is required.
	// +listType=atomic
	// +optional
	Validations []Validation `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	// What happens when the policy cannot be evaluated (a bad
	// expression, a missing parameter, an error): Fail rejects the
	// request, Ignore skips the policy. Defaults to Fail.
	// +optional
	// +openapi:enum=Fail
	// +openapi:enum=Ignore
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// CEL expressions whose results are recorded as audit annotations of
	// the request.
	// +listType=atomic
	// +optional
	AuditAnnotations []AuditAnnotation `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	// CEL conditions a request must all meet for the validations to run;
	// at most 64, names unique.
	// +listType=map
	// +listMapKey=name
	// +optional
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	// Named CEL expressions, evaluated in order, that later variables,
	// validations and conditions use as "variables.<name>".
	// +listType=map
	// +listMapKey=name
	// +optional
	Variables []Variable `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=variables"`
}

// ParamKind names the kind of a policy's parameter objects.
// +structType=atomic
type ParamKind struct {
	// The API group and version of the parameter kind ("group/version", or
	// "version" for the core group).
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,rep,name=apiVersion"`
	// The parameter kind, for example ConfigMap.
	Kind string `json:"kind,omitempty" protobuf:"bytes,2,rep,name=kind"`
}

// MatchResources selects requests by the namespace and labels of their
// object and by operation and resource; exclusions win over inclusions.
// +structType=atomic
type MatchResources struct {
	// Limits matching to objects in namespaces whose labels match (a
	// namespace object itself is matched by its own labels). Defaults to
	// the empty selector, which matches every namespace.
	// +optional
	NamespaceSelector *meta.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	// Limits matching to objects whose labels match. Defaults to the
	// empty selector, which matches everything.
	// +optional
	ObjectSelector *meta.LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	// The operations and resources matched; a request matching any rule
	// matches.
	// +listType=atomic
	// +optional
	ResourceRules []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	// Operations and resources never matched, even when a resource rule
	// matches.
	// +listType=atomic
	// +optional
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	// Whether a request for another version or group of a matched
	// resource also matches (Equivalent) or only exact matches do
	// (Exact). Defaults to Equivalent.
	// +optional
	// +openapi:enum=Equivalent
	// +openapi:enum=Exact
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy,casttype=MatchPolicyType"`
}

// Validation is one CEL check of a ValidatingAdmissionPolicy.
type Validation struct {
	// A CEL expression that returns true when the request is acceptable.
	// It sees "object", "oldObject", "request", "params",
	// "namespaceObject", "variables" and "authorizer". Required.
	Expression string `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	// The message returned when the check fails; without it (and without
	// messageExpression) the message names the failed expression.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// The Status reason (and HTTP code) of a rejection: Unauthorized,
	// Forbidden, Invalid or RequestEntityTooLarge. Defaults to Invalid.
	// +optional
	Reason *string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// A CEL expression that returns the rejection message (a string); it
	// wins over message when it evaluates to a non-empty single line.
	// +optional
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// Variable is a named CEL expression of a policy.
// +structType=atomic
type Variable struct {
	// The variable's name, a CEL identifier unique in the policy; other
	// expressions read it as "variables.<name>". Required.
	Name string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	// The CEL expression whose result is the variable's value, computed
	// once per request when first used. Required.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// AuditAnnotation is a CEL expression whose result is recorded on the
// request's audit event.
type AuditAnnotation struct {
	// The annotation key, recorded as "<policy name>/<key>": a qualified
	// name part, unique in the policy, at most 63 bytes. Required.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// A CEL expression returning the annotation's value, a string; null
	// (or an empty string) records nothing. Required.
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicyBinding puts a ValidatingAdmissionPolicy into
// effect for some requests, with given parameters and actions.
// ---
// ValidatingAdmissionPolicyBinding mirrors admissionregistration/v1's
// (cluster-scoped), stored as a GenericObject.
type ValidatingAdmissionPolicyBinding struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata.
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The policy bound, its parameters, the requests and the actions.
	Spec ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// ValidatingAdmissionPolicyBindingList is a list of
// ValidatingAdmissionPolicyBinding objects.
type ValidatingAdmissionPolicyBindingList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata.
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ValidatingAdmissionPolicyBinding objects.
	Items []ValidatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyBindingSpec says which policy a binding puts
// into effect, with which parameters, for which requests and how.
type ValidatingAdmissionPolicyBindingSpec struct {
	// The name of the ValidatingAdmissionPolicy bound; a binding to a
	// missing policy does nothing. Required.
	PolicyName string `json:"policyName,omitempty" protobuf:"bytes,1,rep,name=policyName"`
	// The parameter objects the policy is evaluated with; required when
	// the policy has a paramKind, refused otherwise.
	// +optional
	ParamRef *ParamRef `json:"paramRef,omitempty" protobuf:"bytes,2,rep,name=paramRef"`
	// Narrows the requests the policy applies to (within its own
	// matchConstraints); a namespaced policy needs no selector here.
	// +optional
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,rep,name=matchResources"`
	// What a failed validation does: Deny rejects the request, Warn
	// returns a warning to the client, Audit records it in the audit
	// event. Deny and Warn exclude each other. Required, no duplicates.
	// +listType=set
	// +openapi:enum=Audit
	// +openapi:enum=Deny
	// +openapi:enum=Warn
	ValidationActions []string `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ParamRef selects a binding's parameter objects, by name or by label
// selector.
// +structType=atomic
type ParamRef struct {
	// The name of the one parameter object; excludes selector.
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,1,rep,name=name"`
	// The namespace of the parameter objects; empty means the request's
	// namespace for a namespaced kind. Must be empty for a cluster-scoped
	// kind.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,rep,name=namespace"`
	// Selects the parameter objects by labels; the policy is evaluated
	// once per object found. Excludes name.
	// +optional
	Selector *meta.LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,rep,name=selector"`
	// What happens when no parameter object is found: Allow lets the
	// request through, Deny rejects it. Required.
	// +optional
	ParameterNotFoundAction *string `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,rep,name=parameterNotFoundAction"`
}
