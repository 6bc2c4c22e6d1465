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
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            TokenReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status          TokenReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenReviewSpec mirrors authenticationv1.TokenReviewSpec.
type TokenReviewSpec struct {
	// Token is the opaque bearer token.
	Token string `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	// Audiences the token is checked against; empty means the server's
	// API audiences.
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

// TokenReviewStatus mirrors authenticationv1.TokenReviewStatus. User is a
// struct (not a pointer), so an unauthenticated answer still carries
// "user":{} as upstream's does.
type TokenReviewStatus struct {
	Authenticated bool     `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	User          UserInfo `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	Audiences     []string `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	Error         string   `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// SelfSubjectReview mirrors authentication.k8s.io/v1 SelfSubjectReview:
// the server answers with the requesting user's attributes.
type SelfSubjectReview struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Status          SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// SelfSubjectReviewStatus mirrors authenticationv1.SelfSubjectReviewStatus.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}

// UserInfo is an authenticated identity, as authentication.k8s.io/v1
// UserInfo carries it on the wire (TokenReview status.user) and as the
// request filters attach it to a request's context.
type UserInfo struct {
	Username string              `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	UID      string              `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	Groups   []string            `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	Extra    map[string][]string `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra"`
}
