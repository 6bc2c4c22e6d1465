package meta

import (
	"crypto/sha256"
	"encoding/base64"
)

// APIResource mirrors metav1.APIResource, one entry of an APIResourceList
// (k8s.io/apimachinery/pkg/apis/meta/v1/types.go). Subresources appear as
// separate entries named "<resource>/<subresource>". Field order and
// omitempty give kube-apiserver's bytes.
type APIResource struct {
	// Name is the plural resource name, or "<resource>/<subresource>".
	Name string `json:"name"`
	// SingularName is the singular resource name ("" for subresources).
	SingularName string `json:"singularName"`
	// Namespaced is true for namespace-scoped resources.
	Namespaced bool `json:"namespaced"`
	// Group is the group (empty: the enclosing one).
	Group string `json:"group,omitempty"`
	// Version is the version (empty: the enclosing one).
	Version string `json:"version,omitempty"`
	// Kind is the kind of the resource's objects.
	Kind string `json:"kind"`
	// Verbs lists the supported verbs.
	Verbs []string `json:"verbs"`
	// ShortNames lists the short names (kubectl get fl).
	// +listType=atomic
	ShortNames []string `json:"shortNames,omitempty"`
	// Categories lists the categories (kubectl get all).
	// +listType=atomic
	Categories []string `json:"categories,omitempty"`
	// StorageVersionHash is an opaque hash of the storage version.
	StorageVersionHash string `json:"storageVersionHash,omitempty"`
}

// APIResourceList mirrors metav1.APIResourceList, the document at
// /api/v1 and /apis/<group>/<version>.
type APIResourceList struct {
	TypeMeta `json:",inline"`
	// GroupVersion is "<group>/<version>" ("v1" for the core group).
	GroupVersion string `json:"groupVersion"`
	// APIResources lists resources and "<resource>/<sub>" subresources.
	// +listType=atomic
	APIResources []APIResource `json:"resources"`
}

// APIVersions mirrors metav1.APIVersions, the document at /api.
type APIVersions struct {
	TypeMeta `json:",inline"`
	// Versions lists the core group's versions ("v1").
	// +listType=atomic
	Versions []string `json:"versions"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	// +listType=atomic
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR mirrors metav1.ServerAddressByClientCIDR: a
// client in ClientCIDR uses ServerAddress for the server.
type ServerAddressByClientCIDR struct {
	// ClientCIDR is the client network this entry is for ("0.0.0.0/0").
	ClientCIDR string `json:"clientCIDR"`
	// ServerAddress is "<host>:<port>" of the server for those clients.
	ServerAddress string `json:"serverAddress"`
}

// StorageVersionHash is the discovery storageVersionHash of a kind:
// base64 of the first 8 bytes of sha256("<group>/<version>/<kind>")
// (k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go).
func StorageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
