package discovery

// Wire types of the discovery documents. Field order and omitempty follow
// k8s.io/apimachinery/pkg/apis/meta/v1/types.go and
// k8s.io/api/apidiscovery/v2/types.go so that encoding/json produces the same
// bytes as kube-apiserver. The meta/v1 types the registry also answers
// (APIResourceList, APIVersions, APIGroup, APIGroupList) are aliases of
// the registry's, which carry their protobuf field numbers.

import (
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupVersionForDiscovery names one version of a group in APIGroup and
// APIGroupList (meta/v1 GroupVersionForDiscovery); registry owns the wire
// type.
type GroupVersionForDiscovery = meta.GroupVersionForDiscovery

// ServerAddressByClientCIDR tells a client in ClientCIDR which address to
// use for the server (meta/v1 ServerAddressByClientCIDR); registry owns
// the wire type.
type ServerAddressByClientCIDR = meta.ServerAddressByClientCIDR

// APIGroup is the document at /apis/<group> and one entry of APIGroupList
// (meta/v1 APIGroup); registry owns the wire type.
type APIGroup = meta.APIGroup

// APIGroupList is the legacy document at /apis (meta/v1 APIGroupList);
// registry owns the wire type.
type APIGroupList = meta.APIGroupList

// APIVersions is the legacy document at /api (meta/v1 APIVersions);
// registry owns the wire type.
type APIVersions = meta.APIVersions

// APIResource is one resource of an APIResourceList (meta/v1 APIResource);
// registry owns the wire type.
type APIResource = meta.APIResource

// APIResourceList is the document at /apis/<group>/<version> and /api/v1
// (meta/v1 APIResourceList); registry owns the wire type.
type APIResourceList = meta.APIResourceList

// GroupVersionKind is the responseKind of aggregated discovery
// (meta/v1 GroupVersionKind). Empty group and version mean "the group and
// version this resource is listed under".
type GroupVersionKind struct {
	// Group is the group (empty: the enclosing one).
	Group string `json:"group"`
	// Version is the version (empty: the enclosing one).
	Version string `json:"version"`
	// Kind is the object kind; empty inside lists.
	Kind string `json:"kind"`
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
	// Subresource is the subresource name ("status").
	Subresource string `json:"subresource"`
	// ResponseKind is the kind returned (never nil once normalised).
	ResponseKind *GroupVersionKind `json:"responseKind,omitempty"`
	// AcceptedTypes lists the kinds the subresource accepts.
	AcceptedTypes []GroupVersionKind `json:"acceptedTypes,omitempty"`
	// Verbs lists the supported verbs.
	Verbs []string `json:"verbs"`
}

// APIResourceDiscovery is one resource in aggregated discovery
// (apidiscovery/v2 APIResourceDiscovery).
type APIResourceDiscovery struct {
	// Resource is the plural resource name.
	Resource string `json:"resource"`
	// ResponseKind is the kind returned (never nil once normalised).
	ResponseKind *GroupVersionKind `json:"responseKind,omitempty"`
	// Scope is ScopeNamespaced or ScopeCluster.
	Scope string `json:"scope"`
	// SingularResource is the singular resource name.
	SingularResource string `json:"singularResource"`
	// Verbs lists the supported verbs.
	Verbs []string `json:"verbs"`
	// ShortNames lists the short names (kubectl get fl).
	ShortNames []string `json:"shortNames,omitempty"`
	// Categories lists the categories (kubectl get all).
	Categories []string `json:"categories,omitempty"`
	// Subresources lists the resource's subresources.
	Subresources []APISubresourceDiscovery `json:"subresources,omitempty"`
}

// APIVersionDiscovery is one version of a group in aggregated discovery
// (apidiscovery/v2 APIVersionDiscovery).
type APIVersionDiscovery struct {
	// Version is the version (empty: the enclosing one).
	Version string `json:"version"`
	// Resources lists the version's resources; omitted when none.
	Resources []APIResourceDiscovery `json:"resources,omitempty"`
	// Freshness is FreshnessCurrent or FreshnessStale.
	Freshness string `json:"freshness,omitempty"`
}

// DiscoveryObjectMeta is the part of ObjectMeta that aggregated discovery
// items carry: the group name, and creationTimestamp, which upstream always
// encodes as null.
type DiscoveryObjectMeta struct {
	// Name is the group name (APIGroup) or resource name (APIResource).
	Name string `json:"name,omitempty"`
	// CreationTimestamp is always nil, encoded as null as upstream does.
	CreationTimestamp *string `json:"creationTimestamp"`
}

// APIGroupDiscovery is one group in aggregated discovery
// (apidiscovery/v2 APIGroupDiscovery).
type APIGroupDiscovery struct {
	// Kind is the object kind; empty inside lists.
	Kind string `json:"kind,omitempty"`
	// APIVersion is the object's apiVersion; empty inside lists.
	APIVersion string `json:"apiVersion,omitempty"`
	// Metadata carries the group name (items) or nothing (lists).
	Metadata DiscoveryObjectMeta `json:"metadata"`
	// Versions lists the versions, in discovery order.
	Versions []APIVersionDiscovery `json:"versions,omitempty"`
}

// DiscoveryListMeta is the (always empty) list metadata of
// APIGroupDiscoveryList.
type DiscoveryListMeta struct {
	// ResourceVersion is always empty.
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// APIGroupDiscoveryList is the aggregated discovery document
// (apidiscovery/v2 APIGroupDiscoveryList).
type APIGroupDiscoveryList struct {
	// Kind is the object kind; empty inside lists.
	Kind string `json:"kind,omitempty"`
	// APIVersion is the object's apiVersion; empty inside lists.
	APIVersion string `json:"apiVersion,omitempty"`
	// Metadata carries the group name (items) or nothing (lists).
	Metadata DiscoveryListMeta `json:"metadata"`
	// Items lists the groups, in discovery order.
	Items []APIGroupDiscovery `json:"items"`
}
