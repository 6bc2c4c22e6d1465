package authentication

import "github.com/aggsim/aggsim/registry/apis/meta"

// API groups of the delegated-authentication surface a k8s.io/apiserver
// based backend calls back into (kube-apiserver serves them from
// pkg/registry/authentication and pkg/registry/authorization).
const (
	// GroupAuthentication serves tokenreviews and selfsubjectreviews.
	GroupAuthentication = "authentication.k8s.io"
)

// TokenReview asks the server who a bearer token belongs to: the client
// sends the token in spec and the server answers in status. It is never
// stored.
// ---
// TokenReview mirrors authentication.k8s.io/v1 TokenReview
// (k8s.io/api/authentication/v1/types.go).
type TokenReview struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata; the server stores nothing, so only the
	// fields sent come back.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The token to check and the audiences it must be valid for.
	Spec TokenReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The answer: whether the token is valid and whose it is. Written by
	// the server.
	// +optional
	Status TokenReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenReviewSpec is the token a TokenReview asks about.
// ---
// TokenReviewSpec mirrors authenticationv1.TokenReviewSpec.
type TokenReviewSpec struct {
	// The bearer token, as a client would send it in its Authorization
	// header (without "Bearer ").
	// +optional
	Token string `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	// The audiences the token must be valid for (at least one of them);
	// empty means the API server's own audiences.
	// +optional
	// +listType=atomic
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

// TokenReviewStatus is the server's answer to a TokenReview.
// ---
// TokenReviewStatus mirrors authenticationv1.TokenReviewStatus. User is a
// struct (not a pointer), so an unauthenticated answer still carries
// "user":{} as upstream's does.
type TokenReviewStatus struct {
	// Whether the token is valid and identifies a user.
	// +optional
	Authenticated bool `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	// The user the token belongs to, when authenticated.
	// +optional
	User UserInfo `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// The audiences, of those asked for (or the server's), the token is
	// valid for. A client that asked for audiences checks that one of
	// them is here.
	// +optional
	// +listType=atomic
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	// Why the token could not be checked or is not valid, when it is not.
	// +optional
	Error string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// SelfSubjectReview asks the server who the requesting client is: the
// server answers with the user it authenticated the request as. It is
// never stored.
// ---
// SelfSubjectReview mirrors authentication.k8s.io/v1 SelfSubjectReview.
type SelfSubjectReview struct {
	meta.TypeMeta `json:",inline"`
	// Standard object metadata; the server stores nothing, so only the
	// fields sent come back.
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The answer: the requesting user's attributes. Written by the
	// server.
	Status SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// SelfSubjectReviewStatus is the server's answer to a SelfSubjectReview.
// ---
// SelfSubjectReviewStatus mirrors authenticationv1.SelfSubjectReviewStatus.
type SelfSubjectReviewStatus struct {
	// The user the request was authenticated as.
	// +optional
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}

// UserInfo is an authenticated user: a name, a unique id, groups and
// further attributes the authenticator supplied.
// ---
// UserInfo is also the identity the request path carries (the request
// filters attach it to a request's context).
type UserInfo struct {
	// The user's name, unique among active users.
	// +optional
	Username string `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	// An id that tells this user apart from any other that ever had the
	// same name.
	// +optional
	UID string `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	// The groups the user belongs to.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	// Further attributes from the authenticator, by key, each with a list
	// of values; authorizers may use them.
	// +optional
	Extra map[string][]string `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra"`
}
