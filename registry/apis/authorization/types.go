package authorization

import (
	"encoding/json"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupAuthorization is the API group of subjectaccessreviews and its
// siblings (kube-apiserver pkg/registry/authorization).
const GroupAuthorization = "authorization.k8s.io"

// SubjectAccessReview mirrors authorization.k8s.io/v1 SubjectAccessReview
// (k8s.io/api/authorization/v1/types.go); LocalSubjectAccessReview has the
// same shape (its namespace is the path's). Never stored.
type SubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SubjectAccessReviewSpec   `json:"spec"`
	Status          SubjectAccessReviewStatus `json:"status,omitempty"`
}

// SubjectAccessReviewSpec mirrors authorizationv1.SubjectAccessReviewSpec.
// Exactly one of ResourceAttributes and NonResourceAttributes must be set,
// and at least one of User and Groups.
type SubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	User                  string                 `json:"user,omitempty"`
	Groups                []string               `json:"groups,omitempty"`
	Extra                 map[string][]string    `json:"extra,omitempty"`
	UID                   string                 `json:"uid,omitempty"`
}

// ResourceAttributes mirrors authorizationv1.ResourceAttributes. The
// field and label selector attributes (1.31+) are kept verbatim and not
// interpreted.
type ResourceAttributes struct {
	Namespace     string          `json:"namespace,omitempty"`
	Verb          string          `json:"verb,omitempty"`
	Group         string          `json:"group,omitempty"`
	Version       string          `json:"version,omitempty"`
	Resource      string          `json:"resource,omitempty"`
	Subresource   string          `json:"subresource,omitempty"`
	Name          string          `json:"name,omitempty"`
	FieldSelector json.RawMessage `json:"fieldSelector,omitempty"`
	LabelSelector json.RawMessage `json:"labelSelector,omitempty"`
}

// NonResourceAttributes mirrors authorizationv1.NonResourceAttributes.
type NonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

// SubjectAccessReviewStatus mirrors authorizationv1.SubjectAccessReviewStatus.
// Allowed is always written (no omitempty upstream); Denied only when the
// authorizer said Deny (NoOpinion leaves it false).
type SubjectAccessReviewStatus struct {
	Allowed         bool   `json:"allowed"`
	Denied          bool   `json:"denied,omitempty"`
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// SelfSubjectAccessReview mirrors authorizationv1.SelfSubjectAccessReview:
// a SubjectAccessReview for the requesting user.
type SelfSubjectAccessReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SelfSubjectAccessReviewSpec `json:"spec"`
	Status          SubjectAccessReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectAccessReviewSpec mirrors authorizationv1.SelfSubjectAccessReviewSpec.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// SelfSubjectRulesReview mirrors authorizationv1.SelfSubjectRulesReview.
type SelfSubjectRulesReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            SelfSubjectRulesReviewSpec `json:"spec"`
	Status          SubjectRulesReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectRulesReviewSpec mirrors authorizationv1.SelfSubjectRulesReviewSpec.
type SelfSubjectRulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty"`
}

// SubjectRulesReviewStatus mirrors authorizationv1.SubjectRulesReviewStatus.
// The rule lists are always written (no omitempty upstream).
type SubjectRulesReviewStatus struct {
	ResourceRules    []ResourceRule    `json:"resourceRules"`
	NonResourceRules []NonResourceRule `json:"nonResourceRules"`
	Incomplete       bool              `json:"incomplete"`
	EvaluationError  string            `json:"evaluationError,omitempty"`
}

// ResourceRule mirrors authorizationv1.ResourceRule.
type ResourceRule struct {
	Verbs         []string `json:"verbs"`
	APIGroups     []string `json:"apiGroups,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule mirrors authorizationv1.NonResourceRule.
type NonResourceRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}
