package admissionregistration

import "encoding/json"

// Webhook is one entry of a MutatingWebhookConfiguration's or
// ValidatingWebhookConfiguration's webhooks list; ReinvocationPolicy is
// only part of the mutating kind (nil and dropped for the validating one).
type Webhook struct {
	// Name identifies the webhook; a fully qualified name with at least
	// three dot-separated segments, unique in its configuration.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ClientConfig says how to reach the webhook (url or service).
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// Rules select the operations and resources sent to the webhook.
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// FailurePolicy is what happens when the call fails: Ignore or Fail
	// (default).
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// MatchPolicy is Exact or Equivalent (default).
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy,casttype=MatchPolicyType"`
	// NamespaceSelector limits the webhook to objects in matching
	// namespaces; defaults to the empty selector (everything).
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// ObjectSelector limits the webhook to objects with matching labels;
	// defaults to the empty selector.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	// SideEffects declares the webhook's side effects: None or
	// NoneOnDryRun.
	SideEffects *string `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects,casttype=SideEffectClass"`
	// TimeoutSeconds is the call timeout in seconds, 1 to 30; default 10.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// AdmissionReviewVersions are the AdmissionReview versions the webhook
	// accepts, in preference order; must include v1 or v1beta1.
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// ReinvocationPolicy (mutating only) is Never (default) or IfNeeded.
	ReinvocationPolicy *string `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy,casttype=ReinvocationPolicyType"`
	// MatchConditions are CEL conditions a request must meet to be sent.
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,opt,name=matchConditions"`
}

// WebhookClientConfig says how to connect to a webhook: exactly one of URL
// and Service.
type WebhookClientConfig struct {
	// URL is an https URL without user, query or fragment.
	URL *string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// Service names an in-cluster Service.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// CABundle is the PEM bundle that verifies the webhook's certificate.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference names a Service and the path and port on it.
type ServiceReference struct {
	// Namespace of the Service; required.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name of the Service; required.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// Path is the URL path requests are sent to.
	Path *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	// Port is the Service port, 1 to 65535; default 443.
	Port *int32 `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}

// RuleWithOperations is a Rule plus the operations it covers.
type RuleWithOperations struct {
	// Operations are CREATE, UPDATE, DELETE, CONNECT or "*".
	Operations []string `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations,casttype=OperationType"`
	Rule       `json:",inline" protobuf:"bytes,2,opt,name=rule"`
}

// NamedRuleWithOperations is a RuleWithOperations limited to some object
// names.
type NamedRuleWithOperations struct {
	// ResourceNames limits the rule to these object names.
	ResourceNames      []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	RuleWithOperations `json:",inline" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}

// Rule selects API groups, versions, resources and a scope.
type Rule struct {
	// APIGroups are the API groups ("" is core, "*" all).
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	// APIVersions are the API versions ("*" all).
	APIVersions []string `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	// Resources are resources and subresources ("pods", "pods/status",
	// "*", "*/*").
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// Scope is Cluster, Namespaced or "*" (default).
	Scope *string `json:"scope,omitempty" protobuf:"bytes,4,rep,name=scope"`
}

// MatchCondition is a named CEL expression that must evaluate to true for
// a request to be sent to a webhook or evaluated by a policy.
type MatchCondition struct {
	// Name identifies the condition (a qualified name, unique in its list).
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Expression is the CEL expression; it must evaluate to a bool.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=expression"`
}

// LabelSelector selects objects by labels: all of MatchLabels and all of
// MatchExpressions must match; the empty selector matches everything.
type LabelSelector struct {
	// MatchLabels are key/value pairs that must all be present.
	MatchLabels map[string]string `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	// MatchExpressions are set-based requirements.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one set-based label requirement.
type LabelSelectorRequirement struct {
	// Key is the label key (a qualified name).
	Key string `json:"key" patchStrategy:"merge" patchMergeKey:"key" protobuf:"bytes,1,opt,name=key"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=LabelSelectorOperator"`
	// Values are the values In and NotIn compare with; empty for Exists
	// and DoesNotExist.
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// ValidatingAdmissionPolicySpec is the spec of a ValidatingAdmissionPolicy.
type ValidatingAdmissionPolicySpec struct {
	// ParamKind is the kind of the parameter resources, if any.
	ParamKind *ParamKind `json:"paramKind,omitempty" protobuf:"bytes,1,rep,name=paramKind"`
	// MatchConstraints select the requests the policy applies to;
	// required, with at least one resource rule.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty" protobuf:"bytes,2,rep,name=matchConstraints"`
	// Validations are CEL expressions that must evaluate to true.
	Validations []Validation `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	// FailurePolicy is Ignore or Fail (default).
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy,casttype=FailurePolicyType"`
	// AuditAnnotations are CEL expressions producing audit annotations.
	AuditAnnotations []AuditAnnotation `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	// MatchConditions further filter matched requests.
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	// Variables are named CEL expressions other expressions can use.
	Variables []Variable `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=variables"`
}

// ParamKind is the apiVersion and kind of a policy's parameter resource.
type ParamKind struct {
	// APIVersion is "group/version" or "version".
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,rep,name=apiVersion"`
	// Kind is the parameter kind; required.
	Kind string `json:"kind,omitempty" protobuf:"bytes,2,rep,name=kind"`
}

// MatchResources selects requests by namespace, object labels and rules.
type MatchResources struct {
	// NamespaceSelector; defaults to the empty selector.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	// ObjectSelector; defaults to the empty selector.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	// ResourceRules are the operations and resources matched.
	ResourceRules []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	// ExcludeResourceRules are operations and resources never matched.
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	// MatchPolicy is Exact or Equivalent (default).
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy,casttype=MatchPolicyType"`
}

// Validation is one CEL validation of a policy.
type Validation struct {
	// Expression must evaluate to a bool; required.
	Expression string `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	// Message is returned when the validation fails.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Reason is the Status reason of a failure: Forbidden, Invalid or
	// RequestEntityTooLarge.
	Reason *string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// MessageExpression is a CEL expression producing the message (a
	// string).
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// Variable is a named CEL expression of a policy.
type Variable struct {
	// Name is a CEL identifier.
	Name string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	// Expression is the CEL expression.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// AuditAnnotation is a CEL expression whose string result is recorded as
// an audit annotation "<policy name>/<key>".
type AuditAnnotation struct {
	// Key is the annotation key suffix.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// ValueExpression must evaluate to a string or null.
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicyBindingSpec is the spec of a
// ValidatingAdmissionPolicyBinding.
type ValidatingAdmissionPolicyBindingSpec struct {
	// PolicyName is the bound policy's name; required.
	PolicyName string `json:"policyName,omitempty" protobuf:"bytes,1,rep,name=policyName"`
	// ParamRef selects the parameter resources.
	ParamRef *ParamRef `json:"paramRef,omitempty" protobuf:"bytes,2,rep,name=paramRef"`
	// MatchResources further limit what the policy applies to.
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,rep,name=matchResources"`
	// ValidationActions are Deny, Warn and/or Audit; required.
	ValidationActions []string `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ParamRef selects a binding's parameter resources by name or selector.
type ParamRef struct {
	// Name of the parameter resource.
	Name string `json:"name,omitempty" protobuf:"bytes,1,rep,name=name"`
	// Namespace of the parameter resources.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,rep,name=namespace"`
	// Selector selects parameter resources by labels.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,rep,name=selector"`
	// ParameterNotFoundAction is Allow or Deny; required.
	ParameterNotFoundAction *string `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,rep,name=parameterNotFoundAction"`
}

// Decode decodes a raw JSON body into v; an absent body leaves v zero.
// Errors are JSON decoding errors.
func Decode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}
