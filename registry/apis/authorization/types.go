package authorization

import "github.com/aggsim/aggsim/registry/apis/meta"

// GroupAuthorization is the API group of subjectaccessreviews and its
// siblings (kube-apiserver pkg/registry/authorization).
const GroupAuthorization = "authorization.k8s.io"

// SubjectAccessReview mirrors authorization.k8s.io/v1 SubjectAccessReview
// (k8s.io/api/authorization/v1/types.go); LocalSubjectAccessReview has the
// same shape (its namespace is the path's). Never stored.
type SubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            SubjectAccessReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SubjectAccessReviewSpec mirrors authorizationv1.SubjectAccessReviewSpec.
// Exactly one of ResourceAttributes and NonResourceAttributes must be set,
// and at least one of User and Groups.
type SubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	User                  string                 `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	Groups                []string               `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	Extra                 map[string][]string    `json:"extra,omitempty" protobuf:"bytes,5,rep,name=extra"`
	UID                   string                 `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
}

// ResourceAttributes mirrors authorizationv1.ResourceAttributes. The
// field and label selector attributes (1.31+) are carried, not
// interpreted.
type ResourceAttributes struct {
	Namespace     string                   `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	Verb          string                   `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	Group         string                   `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	Version       string                   `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	Resource      string                   `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	Subresource   string                   `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	Name          string                   `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
	FieldSelector *FieldSelectorAttributes `json:"fieldSelector,omitempty" protobuf:"bytes,8,opt,name=fieldSelector"`
	LabelSelector *LabelSelectorAttributes `json:"labelSelector,omitempty" protobuf:"bytes,9,opt,name=labelSelector"`
}

// FieldSelectorAttributes mirrors authorizationv1.FieldSelectorAttributes
// (1.31+): the field selector of a list or watch being reviewed, as its
// raw text or as parsed requirements. aggsim's authorizers do not
// interpret it; it is carried through the review as sent.
type FieldSelectorAttributes struct {
	RawSelector  string                          `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	Requirements []meta.FieldSelectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// LabelSelectorAttributes mirrors authorizationv1.LabelSelectorAttributes
// (1.31+), the label-selector counterpart of FieldSelectorAttributes.
type LabelSelectorAttributes struct {
	RawSelector  string                          `json:"rawSelector,omitempty" protobuf:"bytes,1,opt,name=rawSelector"`
	Requirements []meta.LabelSelectorRequirement `json:"requirements,omitempty" protobuf:"bytes,2,rep,name=requirements"`
}

// NonResourceAttributes mirrors authorizationv1.NonResourceAttributes.
type NonResourceAttributes struct {
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

// SubjectAccessReviewStatus mirrors authorizationv1.SubjectAccessReviewStatus.
// Allowed is always written (no omitempty upstream); Denied only when the
// authorizer said Deny (NoOpinion leaves it false).
type SubjectAccessReviewStatus struct {
	Allowed         bool   `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	Denied          bool   `json:"denied,omitempty" protobuf:"varint,4,opt,name=denied"`
	Reason          string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,3,opt,name=evaluationError"`
}

// SelfSubjectAccessReview mirrors authorizationv1.SelfSubjectAccessReview:
// a SubjectAccessReview for the requesting user.
type SelfSubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            SelfSubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          SubjectAccessReviewStatus   `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectAccessReviewSpec mirrors authorizationv1.SelfSubjectAccessReviewSpec.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

// SelfSubjectRulesReview mirrors authorizationv1.SelfSubjectRulesReview.
type SelfSubjectRulesReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            SelfSubjectRulesReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          SubjectRulesReviewStatus   `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectRulesReviewSpec mirrors authorizationv1.SelfSubjectRulesReviewSpec.
type SelfSubjectRulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

// SubjectRulesReviewStatus mirrors authorizationv1.SubjectRulesReviewStatus.
// The rule lists are always written (no omitempty upstream).
type SubjectRulesReviewStatus struct {
	ResourceRules    []ResourceRule    `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	NonResourceRules []NonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	Incomplete       bool              `json:"incomplete" protobuf:"varint,3,opt,name=incomplete"`
	EvaluationError  string            `json:"evaluationError,omitempty" protobuf:"bytes,4,opt,name=evaluationError"`
}

// ResourceRule mirrors authorizationv1.ResourceRule.
type ResourceRule struct {
	Verbs         []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups     []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources     []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

// NonResourceRule mirrors authorizationv1.NonResourceRule.
type NonResourceRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}
