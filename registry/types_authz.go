package registry

import "encoding/json"

// API groups of the delegated-authentication surface a k8s.io/apiserver
// based backend calls back into (kube-apiserver serves them from
// pkg/registry/authentication and pkg/registry/authorization).
const (
	// GroupAuthentication serves tokenreviews and selfsubjectreviews.
	GroupAuthentication = "authentication.k8s.io"
	// GroupAuthorization serves subjectaccessreviews and its siblings.
	GroupAuthorization = "authorization.k8s.io"
)

// TokenReview mirrors authentication.k8s.io/v1 TokenReview
// (k8s.io/api/authentication/v1/types.go): a question "who is this bearer
// token?" answered in status. It is never stored.
type TokenReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       TokenReviewSpec   `json:"spec"`
	Status     TokenReviewStatus `json:"status,omitempty"`
}

// TokenReviewSpec mirrors authenticationv1.TokenReviewSpec.
type TokenReviewSpec struct {
	// Token is the opaque bearer token.
	Token string `json:"token,omitempty"`
	// Audiences the token is checked against; empty means the server's
	// API audiences.
	Audiences []string `json:"audiences,omitempty"`
}

// TokenReviewStatus mirrors authenticationv1.TokenReviewStatus. User is a
// struct (not a pointer), so an unauthenticated answer still carries
// "user":{} as upstream's does.
type TokenReviewStatus struct {
	Authenticated bool     `json:"authenticated,omitempty"`
	User          UserInfo `json:"user,omitempty"`
	Audiences     []string `json:"audiences,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// SelfSubjectReview mirrors authentication.k8s.io/v1 SelfSubjectReview:
// the server answers with the requesting user's attributes.
type SelfSubjectReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Status     SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewStatus mirrors authenticationv1.SelfSubjectReviewStatus.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty"`
}

// SubjectAccessReview mirrors authorization.k8s.io/v1 SubjectAccessReview
// (k8s.io/api/authorization/v1/types.go); LocalSubjectAccessReview has the
// same shape (its namespace is the path's). Never stored.
type SubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SubjectAccessReviewSpec   `json:"spec"`
	Status     SubjectAccessReviewStatus `json:"status,omitempty"`
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
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SelfSubjectAccessReviewSpec `json:"spec"`
	Status     SubjectAccessReviewStatus   `json:"status,omitempty"`
}

// SelfSubjectAccessReviewSpec mirrors authorizationv1.SelfSubjectAccessReviewSpec.
type SelfSubjectAccessReviewSpec struct {
	ResourceAttributes    *ResourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// SelfSubjectRulesReview mirrors authorizationv1.SelfSubjectRulesReview.
type SelfSubjectRulesReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       SelfSubjectRulesReviewSpec `json:"spec"`
	Status     SubjectRulesReviewStatus   `json:"status,omitempty"`
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
