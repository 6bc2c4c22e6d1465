package meta

import (
	"crypto/sha256"
	"encoding/base64"
)

// APIResource mirrors metav1.APIResource, one entry of an APIResourceList
// (k8s.io/apimachinery/pkg/apis/meta/v1/types.go; field numbers from its
// generated.proto). Subresources appear as
// separate entries named "<resource>/<subresource>". Field order and
// omitempty give kube-apiserver's bytes.
type APIResource struct {
	// Name is the plural resource name, or "<resource>/<subresource>".
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// SingularName is the singular resource name ("" for subresources).
	SingularName string `json:"singularName" protobuf:"bytes,6,opt,name=singularName"`
	// Namespaced is true for namespace-scoped resources.
	Namespaced bool `json:"namespaced" protobuf:"varint,2,opt,name=namespaced"`
	// Group is the group (empty: the enclosing one).
	Group string `json:"group,omitempty" protobuf:"bytes,8,opt,name=group"`
	// Version is the version (empty: the enclosing one).
	Version string `json:"version,omitempty" protobuf:"bytes,9,opt,name=version"`
	// Kind is the kind of the resource's objects.
	Kind string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
	// Verbs lists the supported verbs.
	Verbs Verbs `json:"verbs" protobuf:"bytes,4,opt,name=verbs"`
	// ShortNames lists the short names (kubectl get fl).
	// +listType=atomic
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,5,rep,name=shortNames"`
	// Categories lists the categories (kubectl get all).
	// +listType=atomic
	Categories []string `json:"categories,omitempty" protobuf:"bytes,7,rep,name=categories"`
	// StorageVersionHash is an opaque hash of the storage version.
	StorageVersionHash string `json:"storageVersionHash,omitempty" protobuf:"bytes,10,opt,name=storageVersionHash"`
}

// Verbs mirrors metav1.Verbs, the verbs of an APIResource: a JSON array
// of strings, and in protobuf a message of its own whose field 1 repeats
// the verbs (generated.proto `message Verbs { repeated string items = 1; }`).
type Verbs []string

// APIResourceList mirrors metav1.APIResourceList, the document at
// /api/v1 and /apis/<group>/<version>.
type APIResourceList struct {
	TypeMeta `json:",inline"`
	// GroupVersion is "<group>/<version>" ("v1" for the core group).
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// APIResources lists resources and "<resource>/<sub>" subresources.
	// +listType=atomic
	APIResources []APIResource `json:"resources" protobuf:"bytes,2,rep,name=resources"`
}

// APIVersions mirrors metav1.APIVersions, the document at /api.
type APIVersions struct {
	TypeMeta `json:",inline"`
	// Versions lists the core group's versions ("v1").
	// +listType=atomic
	Versions []string `json:"versions" protobuf:"bytes,1,rep,name=versions"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	// +listType=atomic
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs" protobuf:"bytes,2,rep,name=serverAddressByClientCIDRs"`
}

// ServerAddressByClientCIDR mirrors metav1.ServerAddressByClientCIDR: a
// client in ClientCIDR uses ServerAddress for the server.
type ServerAddressByClientCIDR struct {
	// ClientCIDR is the client network this entry is for ("0.0.0.0/0").
	ClientCIDR string `json:"clientCIDR" protobuf:"bytes,1,opt,name=clientCIDR"`
	// ServerAddress is "<host>:<port>" of the server for those clients.
	ServerAddress string `json:"serverAddress" protobuf:"bytes,2,opt,name=serverAddress"`
}

// GroupVersionForDiscovery mirrors metav1.GroupVersionForDiscovery, one
// version of a group in APIGroup and APIGroupList.
type GroupVersionForDiscovery struct {
	// GroupVersion is "<group>/<version>".
	GroupVersion string `json:"groupVersion" protobuf:"bytes,1,opt,name=groupVersion"`
	// Version is the version alone.
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
}

// APIGroup mirrors metav1.APIGroup, the document at /apis/<group> and one
// entry of APIGroupList. Kind and APIVersion are empty inside a list.
type APIGroup struct {
	// Kind is the object kind; empty inside lists.
	Kind string `json:"kind,omitempty"`
	// APIVersion is the object's apiVersion; empty inside lists.
	APIVersion string `json:"apiVersion,omitempty"`
	// Name is the group name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Versions lists the versions, in discovery order.
	// +listType=atomic
	Versions []GroupVersionForDiscovery `json:"versions" protobuf:"bytes,2,rep,name=versions"`
	// PreferredVersion is the version clients should use: the first one.
	PreferredVersion GroupVersionForDiscovery `json:"preferredVersion,omitempty" protobuf:"bytes,3,opt,name=preferredVersion"`
	// ServerAddressByClientCIDRs tells clients which address to use.
	// +listType=atomic
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty" protobuf:"bytes,4,rep,name=serverAddressByClientCIDRs"`
}

// APIGroupList mirrors metav1.APIGroupList, the legacy document at /apis.
type APIGroupList struct {
	// Kind is the object kind.
	Kind string `json:"kind,omitempty"`
	// APIVersion is the object's apiVersion.
	APIVersion string `json:"apiVersion,omitempty"`
	// Groups lists the groups, in discovery order.
	// +listType=atomic
	Groups []APIGroup `json:"groups" protobuf:"bytes,1,rep,name=groups"`
}

// StorageVersionHash is the discovery storageVersionHash of a kind:
// base64 of the first 8 bytes of sha256("<group>/<version>/<kind>")
// (k8s.io/apiserver/pkg/endpoints/discovery/storageversionhash.go).
func StorageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
