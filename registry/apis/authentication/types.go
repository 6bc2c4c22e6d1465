package authentication

import "github.com/aggsim/aggsim/registry/apis/meta"

// API groups of the delegated-authentication surface a k8s.io/apiserver
// based backend calls back into (kube-apiserver serves them from
// pkg/registry/authentication and pkg/registry/authorization).
const (
	// GroupAuthentication serves tokenreviews and selfsubjectreviews.
	GroupAuthentication = "authentication.k8s.io"
)

// TokenReview mirrors authentication.k8s.io/v1 TokenReview
// (k8s.io/api/authentication/v1/types.go): a question "who is this bearer
// token?" answered in status. It is never stored.
type TokenReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            TokenReviewSpec   `json:"spec"`
	Status          TokenReviewStatus `json:"status,omitempty"`
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
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Status          SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewStatus mirrors authenticationv1.SelfSubjectReviewStatus.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty"`
}

// UserInfo is an authenticated identity, as authentication.k8s.io/v1
// UserInfo carries it on the wire (TokenReview status.user) and as the
// request filters attach it to a request's context.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}
