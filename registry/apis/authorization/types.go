package authorization

import "github.com/aggsim/aggsim/registry/apis/meta"

// GroupAuthorization is the API group of subjectaccessreviews and its
// siblings (kube-apiserver pkg/registry/authorization).
const GroupAuthorization = "authorization.k8s.io"

// SubjectAccessReview asks the server whether a given user may perform
// an action: the client sends the user and the action in spec and the
// server answers in status. It is never stored.
// ---
// SubjectAccessReview mirrors authorization.k8s.io/v1 SubjectAccessReview
// (k8s.io/api/authorization/v1/types.go).
type SubjectAccessReview struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata; the server stores nothing, so only the
	// fields sent come back.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The user and the action asked about.
	Spec SubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The answer: whether the action is allowed. Written by the server.
	// +optional
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// LocalSubjectAccessReview is a SubjectAccessReview limited to one
// namespace: it is created in that namespace, and may only ask about
// actions in it, so namespace administrators can be allowed to create it.
// It is never stored.
// ---
// LocalSubjectAccessReview mirrors authorizationv1.LocalSubjectAccessReview.
type LocalSubjectAccessReview struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata; the server stores nothing, so only the
	// fields sent come back.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The user and the action asked about; a resource action's namespace
	// must be the review's namespace (or empty), and non-resource actions
	// cannot be asked about.
	Spec SubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The answer: whether the action is allowed. Written by the server.
	// +optional
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SubjectAccessReviewSpec is the user and the action a SubjectAccessReview
// asks about: exactly one of resourceAttributes and nonResourceAttributes,
// and at least one of user and groups.
// ---
// SubjectAccessReviewSpec mirrors authorizationv1.SubjectAccessReviewSpec.
type SubjectAccessReviewSpec struct {
	// The action on a resource asked about.
	// +optional
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	// The action on a non-resource URL asked about.
	// +optional
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	// The name of the user asked about. With groups empty, only the
	// user's own permissions count; the server does not look up its
	// groups.
	// +optional
	User string `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	// The groups of the user asked about.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	// Further attributes of the user, as an authenticator would supply
	// them, by key.
	// +optional
	Extra map[string][]string `json:"extra,omitempty" protobuf:"bytes,5,rep,name=extra"`
	// The unique id of the user asked about.
	// +optional
	UID string `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
}

// ResourceAttributes describe an action on a resource, as the server's
// authorizer sees a resource request.
// ---
// ResourceAttributes mirrors authorizationv1.ResourceAttributes. The
// field and label selector attributes (1.31+) are carried, not
// interpreted.
type ResourceAttributes struct {
	// The namespace of the action; "" means every namespace for a
	// namespaced resource (and is the value for cluster-scoped ones).
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// The API verb ("get", "list", "watch", "create", "update", "patch",
	// "delete", ...); "*" means every verb.
	// +optional
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	// The API group of the resource ("" is the core group); "*" means
	// every group.
	// +optional
	Group string `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// The API version of the resource; "*" means every version.
	// +optional
	Version string `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	// The resource, by plural name; "*" means every resource.
	// +optional
	Resource string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	// The subresource ("status", "scale", ...); "" means the resource
	// itself.
	// +optional
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	// The name of the object acted on; "" means any object (as for list
	// and create).
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
	// The field selector of a list, watch or deletecollection asked
	// about; authorizers that understand it may allow more with it.
	// +optional
	FieldSelector *FieldSelectorAttributes `json:"fieldSelector,omitempty" protobuf:"bytes,8,opt,name=fieldSelector"`
	// The label selector of a list, watch or deletecollection asked
	// about; authorizers that understand it may allow more with it.
	// +optional
	LabelSelector *LabelSelectorAttributes `json:"labelSelector,omitempty" protobuf:"bytes,9,opt,name=labelSelector"`
}

// FieldSelectorAttributes is the field selector of a reviewed request,
// either as text or as parsed requirements.
// ---
// FieldSelectorAttributes mirrors authorizationv1.FieldSelectorAttributes
// (1.31+). aggsim's authorizers do not interpret it; it is carried through
// the review as sent.
type FieldSelectorAttributes struct {
	// The selector as the fieldSelector query parameter spells it;
	// excludes requirements.
	// +optional
	RawSelector string `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	// The selector as parsed requirements, all of which apply; excludes
	// rawSelector.
	// +optional
	// +listType=atomic
	Requirements []meta.FieldSelectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// LabelSelectorAttributes is the label selector of a reviewed request,
// either as text or as parsed requirements.
// ---
// LabelSelectorAttributes mirrors authorizationv1.LabelSelectorAttributes
// (1.31+), the label-selector counterpart of FieldSelectorAttributes.
type LabelSelectorAttributes struct {
	// The selector as the labelSelector query parameter spells it;
	// excludes requirements.
	// +optional
	RawSelector string `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	// The selector as parsed requirements, all of which apply; excludes
	// rawSelector.
	// +optional
	// +listType=atomic
	Requirements []meta.LabelSelectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// NonResourceAttributes describe an action on a URL that is no resource
// (such as /healthz or /version).
// ---
// NonResourceAttributes mirrors authorizationv1.NonResourceAttributes.
type NonResourceAttributes struct {
	// The URL path.
	// +optional
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// The HTTP verb in lower case ("get", "post", ...).
	// +optional
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

// SubjectAccessReviewStatus is the server's answer to an access review.
// ---
// SubjectAccessReviewStatus mirrors authorizationv1.SubjectAccessReviewStatus.
// Allowed is always written (no omitempty upstream); Denied only when the
// authorizer said Deny (NoOpinion leaves it false).
type SubjectAccessReviewStatus struct {
	// Whether the action is allowed. Required.
	Allowed bool `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	// Whether an authorizer explicitly denied the action; false with
	// allowed false means no authorizer had an opinion. Never true with
	// allowed.
	// +optional
	Denied bool `json:"denied,omitempty" protobuf:"varint,4,opt,name=denied"`
	// Why the action is allowed or denied, for people, as the authorizer
	// says it.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	// An error an authorizer met while checking; the answer can still be
	// valid (another authorizer may have decided).
	// +optional
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,3,opt,name=evaluationError"`
}

// SelfSubjectAccessReview asks the server whether the requesting user
// may perform an action (kubectl auth can-i). It is never stored.
// ---
// SelfSubjectAccessReview mirrors authorizationv1.SelfSubjectAccessReview:
// a SubjectAccessReview for the requesting user.
type SelfSubjectAccessReview struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata; the server stores nothing, so only the
	// fields sent come back.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The action asked about.
	Spec SelfSubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The answer: whether the action is allowed. Written by the server.
	// +optional
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectAccessReviewSpec is the action a SelfSubjectAccessReview asks
// about: exactly one of resourceAttributes and nonResourceAttributes.
// ---
// SelfSubjectAccessReviewSpec mirrors authorizationv1.SelfSubjectAccessReviewSpec.
type SelfSubjectAccessReviewSpec struct {
	// The action on a resource asked about.
	// +optional
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	// The action on a non-resource URL asked about.
	// +optional
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

// SelfSubjectRulesReview asks the server for the actions the requesting
// user may perform in a namespace (kubectl auth can-i --list). The list
// can be incomplete and is meant for display, not for access decisions.
// It is never stored.
// ---
// SelfSubjectRulesReview mirrors authorizationv1.SelfSubjectRulesReview.
type SelfSubjectRulesReview struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata; the server stores nothing, so only the
	// fields sent come back.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The namespace asked about.
	Spec SelfSubjectRulesReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The answer: the rules that apply. Written by the server.
	// +optional
	Status SubjectRulesReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectRulesReviewSpec is what a SelfSubjectRulesReview asks about.
// ---
// SelfSubjectRulesReviewSpec mirrors authorizationv1.SelfSubjectRulesReviewSpec.
type SelfSubjectRulesReviewSpec struct {
	// The namespace whose rules are listed (cluster-wide rules are
	// included).
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

// SubjectRulesReviewStatus lists the actions a user may perform in a
// namespace, as far as the authorizers can tell.
// ---
// SubjectRulesReviewStatus mirrors authorizationv1.SubjectRulesReviewStatus.
// The rule lists are always written (no omitempty upstream).
type SubjectRulesReviewStatus struct {
	// The allowed actions on resources. Required.
	// +listType=atomic
	ResourceRules []ResourceRule `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	// The allowed actions on non-resource URLs. Required.
	// +listType=atomic
	NonResourceRules []NonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	// Whether the lists may be missing rules, because an authorizer cannot
	// list its rules or met an error. Required.
	Incomplete bool `json:"incomplete" protobuf:"varint,3,opt,name=incomplete"`
	// The error an authorizer met while listing its rules, if any.
	// +optional
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,4,opt,name=evaluationError"`
}

// ResourceRule is a set of actions allowed on resources; a "*" in a list
// means every value.
// ---
// ResourceRule mirrors authorizationv1.ResourceRule.
type ResourceRule struct {
	// The verbs allowed ("get", "list", ...). Required.
	// +listType=atomic
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// The API groups of the resources ("" is the core group).
	// +optional
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// The resources, by plural name or "resource/subresource".
	// +optional
	// +listType=atomic
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// The names of the objects the rule is limited to; empty means every
	// object.
	// +optional
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

// NonResourceRule is a set of actions allowed on non-resource URLs.
// ---
// NonResourceRule mirrors authorizationv1.NonResourceRule.
type NonResourceRule struct {
	// The verbs allowed ("get", "post", ...; "*" for all). Required.
	// +listType=atomic
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// The URL paths allowed: exact paths, or a prefix ending in "*".
	// +optional
	// +listType=atomic
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}
