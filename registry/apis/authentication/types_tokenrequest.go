package authentication

import "github.com/aggsim/aggsim/registry/apis/meta"

// TokenRequest asks for a token of a ServiceAccount (POST to its token
// subresource): the audiences, lifetime and bound object are in spec, the
// signed token and its expiry come back in status. It is never stored.
// ---
// TokenRequest mirrors authentication.k8s.io/v1 TokenRequest
// (k8s.io/api/authentication/v1/types.go).
type TokenRequest struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	// +optional
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// What the token is for: audiences, lifetime, bound object.
	Spec TokenRequestSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// The issued token, filled in by the server.
	// +optional
	Status TokenRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenRequestSpec is what a token is requested for.
// ---
// TokenRequestSpec mirrors authentication.k8s.io/v1 TokenRequestSpec.
type TokenRequestSpec struct {
	// The intended audiences of the token; a recipient must find one of its
	// own identifiers here or reject the token. Empty means the API
	// server's audiences.
	// +listType=atomic
	Audiences []string `json:"audiences" protobuf:"bytes,1,rep,name=audiences"`
	// The requested lifetime in seconds; the server may shorten or
	// lengthen it, and status.expirationTimestamp says what was granted.
	// +optional
	ExpirationSeconds *int64 `json:"expirationSeconds" protobuf:"varint,4,opt,name=expirationSeconds"`
	// An object the token is bound to: the token becomes invalid when that
	// object (a Pod, Secret or Node) is deleted.
	// +optional
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef" protobuf:"bytes,3,opt,name=boundObjectRef"`
}

// TokenRequestStatus is the result of a TokenRequest.
// ---
// TokenRequestStatus mirrors authentication.k8s.io/v1 TokenRequestStatus.
type TokenRequestStatus struct {
	// The opaque bearer token.
	Token string `json:"token" protobuf:"bytes,1,opt,name=token"`
	// When the token expires.
	ExpirationTimestamp meta.Time `json:"expirationTimestamp" protobuf:"bytes,2,opt,name=expirationTimestamp"`
}

// BoundObjectReference names the object a token is bound to.
// ---
// BoundObjectReference mirrors authentication.k8s.io/v1
// BoundObjectReference.
type BoundObjectReference struct {
	// The referent's kind: Pod, Secret or Node.
	// +optional
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// The referent's API version.
	// +optional
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=aPIVersion"`
	// The referent's name.
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// The referent's UID.
	// +optional
	UID string `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uID"`
}
