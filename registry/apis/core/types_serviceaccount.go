package core

import "github.com/aggsim/aggsim/registry/apis/meta"

// ServiceAccount is an identity for processes: a name users understand, a
// principal that can be authenticated (with tokens from its TokenRequest
// subresource) and authorized, and a set of secrets.
// ---
// ServiceAccount mirrors core/v1.ServiceAccount (namespaced). aggsim signs
// TokenRequests for it and authenticates the tokens while it exists with
// the same uid.
type ServiceAccount struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Secrets in the same namespace that pods running as this
	// ServiceAccount may use (only enforced with the deprecated
	// kubernetes.io/enforce-mountable-secrets annotation). Request tokens
	// with the TokenRequest API instead of looking for token secrets here.
	// ---
	// Secrets is kept as sent; aggsim serves no Secrets.
	// +listType=map
	// +listMapKey=name
	Secrets []ObjectReference `json:"secrets,omitempty" patchMergeKey:"name" patchStrategy:"merge" protobuf:"bytes,2,rep,name=secrets"`
	// Secrets in the same namespace the kubelet uses to pull the images of
	// pods running as this ServiceAccount.
	// ---
	// ImagePullSecrets is kept as sent.
	// +listType=atomic
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,3,rep,name=imagePullSecrets"`
	// Whether pods running as this ServiceAccount get an API token mounted
	// automatically; a pod can override it.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,4,opt,name=automountServiceAccountToken"`
}

// ServiceAccountList is a list of ServiceAccount objects.
// ---
// ServiceAccountList is a list of ServiceAccounts.
type ServiceAccountList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ServiceAccount objects.
	Items []ServiceAccount `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// LocalObjectReference names an object in the same namespace.
// ---
// LocalObjectReference mirrors core/v1.LocalObjectReference.
// +structType=atomic
type LocalObjectReference struct {
	// The referenced object's name; effectively required, though an empty
	// one is accepted for backwards compatibility. More info:
	// https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
	// +default=""
	// +optional
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
}
