package discovery

// Wire types of the discovery documents. Field order and omitempty follow
// k8s.io/apimachinery/pkg/apis/meta/v1/types.go and
// k8s.io/api/apidiscovery/v2/types.go so that encoding/json produces the same
// bytes as kube-apiserver.

// GroupVersionForDiscovery names one version of a group in APIGroup and
// APIGroupList (meta/v1 GroupVersionForDiscovery).
type GroupVersionForDiscovery struct {
	// GroupVersion is "<group>/<version>".
	GroupVersion string `json:"groupVersion"`
	// Version is the version alone.
	Version string `json:"version"`
}

// ServerAddressByClientCIDR tells a client in ClientCIDR which address to
// use for the server (meta/v1 ServerAddressByClientCIDR).
type ServerAddressByClientCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

// APIGroup is the document at /apis/<group> and one entry of APIGroupList
// (meta/v1 APIGroup). Kind and APIVersion are empty inside a list.
type APIGroup struct {
	Kind                       string                      `json:"kind,omitempty"`
	APIVersion                 string                      `json:"apiVersion,omitempty"`
	Name                       string                      `json:"name"`
	Versions                   []GroupVersionForDiscovery  `json:"versions"`
	PreferredVersion           GroupVersionForDiscovery    `json:"preferredVersion,omitempty"`
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs,omitempty"`
}

// APIGroupList is the legacy document at /apis (meta/v1 APIGroupList).
type APIGroupList struct {
	Kind       string     `json:"kind,omitempty"`
	APIVersion string     `json:"apiVersion,omitempty"`
	Groups     []APIGroup `json:"groups"`
}

// APIVersions is the legacy document at /api (meta/v1 APIVersions).
type APIVersions struct {
	Kind                       string                      `json:"kind,omitempty"`
	APIVersion                 string                      `json:"apiVersion,omitempty"`
	Versions                   []string                    `json:"versions"`
	ServerAddressByClientCIDRs []ServerAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

// APIResource is one resource of an APIResourceList (meta/v1 APIResource).
// Subresources appear as separate entries named "<resource>/<subresource>".
type APIResource struct {
	Name               string   `json:"name"`
	SingularName       string   `json:"singularName"`
	Namespaced         bool     `json:"namespaced"`
	Group              string   `json:"group,omitempty"`
	Version            string   `json:"version,omitempty"`
	Kind               string   `json:"kind"`
	Verbs              []string `json:"verbs"`
	ShortNames         []string `json:"shortNames,omitempty"`
	Categories         []string `json:"categories,omitempty"`
	StorageVersionHash string   `json:"storageVersionHash,omitempty"`
}

// APIResourceList is the document at /apis/<group>/<version> and /api/v1
// (meta/v1 APIResourceList).
type APIResourceList struct {
	Kind         string        `json:"kind,omitempty"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	GroupVersion string        `json:"groupVersion"`
	APIResources []APIResource `json:"resources"`
}

// GroupVersionKind is the responseKind of aggregated discovery
// (meta/v1 GroupVersionKind). Empty group and version mean "the group and
// version this resource is listed under".
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// Freshness values of APIVersionDiscovery (apidiscovery/v2 DiscoveryFreshness).
const (
	// FreshnessCurrent means the resources were fetched successfully.
	FreshnessCurrent = "Current"
	// FreshnessStale means the last fetch failed; resources (if any) are the
	// last good ones.
	FreshnessStale = "Stale"
)

// Scope values of APIResourceDiscovery (apidiscovery/v2 ResourceScope).
const (
	// ScopeNamespaced is the scope of namespaced resources.
	ScopeNamespaced = "Namespaced"
	// ScopeCluster is the scope of cluster-scoped resources.
	ScopeCluster = "Cluster"
)

// APISubresourceDiscovery is one subresource in aggregated discovery
// (apidiscovery/v2 APISubresourceDiscovery).
type APISubresourceDiscovery struct {
	Subresource   string             `json:"subresource"`
	ResponseKind  *GroupVersionKind  `json:"responseKind,omitempty"`
	AcceptedTypes []GroupVersionKind `json:"acceptedTypes,omitempty"`
	Verbs         []string           `json:"verbs"`
}

// APIResourceDiscovery is one resource in aggregated discovery
// (apidiscovery/v2 APIResourceDiscovery).
type APIResourceDiscovery struct {
	Resource         string                    `json:"resource"`
	ResponseKind     *GroupVersionKind         `json:"responseKind,omitempty"`
	Scope            string                    `json:"scope"`
	SingularResource string                    `json:"singularResource"`
	Verbs            []string                  `json:"verbs"`
	ShortNames       []string                  `json:"shortNames,omitempty"`
	Categories       []string                  `json:"categories,omitempty"`
	Subresources     []APISubresourceDiscovery `json:"subresources,omitempty"`
}

// APIVersionDiscovery is one version of a group in aggregated discovery
// (apidiscovery/v2 APIVersionDiscovery).
type APIVersionDiscovery struct {
	Version   string                 `json:"version"`
	Resources []APIResourceDiscovery `json:"resources,omitempty"`
	Freshness string                 `json:"freshness,omitempty"`
}

// DiscoveryObjectMeta is the part of ObjectMeta that aggregated discovery
// items carry: the group name, and creationTimestamp, which upstream always
// encodes as null.
type DiscoveryObjectMeta struct {
	Name              string  `json:"name,omitempty"`
	CreationTimestamp *string `json:"creationTimestamp"`
}

// APIGroupDiscovery is one group in aggregated discovery
// (apidiscovery/v2 APIGroupDiscovery).
type APIGroupDiscovery struct {
	Kind       string                `json:"kind,omitempty"`
	APIVersion string                `json:"apiVersion,omitempty"`
	Metadata   DiscoveryObjectMeta   `json:"metadata"`
	Versions   []APIVersionDiscovery `json:"versions,omitempty"`
}

// DiscoveryListMeta is the (always empty) list metadata of
// APIGroupDiscoveryList.
type DiscoveryListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// APIGroupDiscoveryList is the aggregated discovery document
// (apidiscovery/v2 APIGroupDiscoveryList).
type APIGroupDiscoveryList struct {
	Kind       string              `json:"kind,omitempty"`
	APIVersion string              `json:"apiVersion,omitempty"`
	Metadata   DiscoveryListMeta   `json:"metadata"`
	Items      []APIGroupDiscovery `json:"items"`
}
