package registry

import (
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/openapi"
)

// ResourceInfo describes one REST resource for routing, discovery and error
// messages, as an APIResource does.
type ResourceInfo struct {
	Group       string   // "" for the core group
	Version     string   // "v1"
	Kind        string   // "APIService"
	ListKind    string   // "APIServiceList"
	Resource    string   // plural, "apiservices"
	Singular    string   // "apiservice"
	ShortNames  []string // e.g. ["svc"]
	Categories  []string // e.g. ["api-extensions"]
	Namespaced  bool
	Verbs       []string // discovery verbs, upstream order
	HasStatus   bool     // serves the /status subresource
	StatusVerbs []string // verbs of the /status subresource
	// Subresources are the resource's other subresources (namespaces/
	// finalize, services/proxy), listed by discovery next to status in
	// name order, as kube-apiserver lists them.
	Subresources []SubresourceInfo
	// StatusFirst lists /status before Subresources, in their given
	// order, instead of all subresources in name order: custom
	// resources' discovery (status, then scale).
	StatusFirst bool
	// NotStored marks a resource without storage (the create-only
	// reviews): discovery lists no storageVersionHash for it, as upstream
	// sets one only for storage that names a storage version
	// (apiserver endpoints/installer.go, rest.StorageVersionProvider).
	NotStored bool
	// StorageVersion, when set, is the version whose kind discovery's
	// storageVersionHash names instead of Version: a custom resource's
	// storage version, and v1beta1 for CustomResourceDefinitions (the
	// version apiextensions-apiserver stores them in), as kube-apiserver
	// 1.33.13's discovery answers.
	StorageVersion string
}

// SubresourceInfo describes one subresource other than status: its name,
// the kind discovery names for it, and its verbs in upstream's order.
type SubresourceInfo struct {
	Name string // "finalize"
	// Group and Version name the subresource's kind when it is of
	// another group/version (a custom resource's scale: autoscaling, v1);
	// empty means the resource's own.
	Group, Version string
	Kind           string   // "Namespace", "ServiceProxyOptions"
	Verbs          []string // "update"
}

// Subresource returns the subresource called name other than status, or
// false.
func (i ResourceInfo) Subresource(name string) (SubresourceInfo, bool) {
	for _, s := range i.Subresources {
		if s.Name == name {
			return s, true
		}
	}
	return SubresourceInfo{}, false
}

// GroupResource returns the group/resource pair used in error messages.
func (i ResourceInfo) GroupResource() meta.GroupResource {
	return meta.GroupResource{Group: i.Group, Resource: i.Resource}
}

// APIVersion returns "group/version", or "version" for the core group.
func (i ResourceInfo) APIVersion() string {
	if i.Group == "" {
		return i.Version
	}
	return i.Group + "/" + i.Version
}

// OpenAPIResource describes the resource for openapi.Build, its kind and
// list kind defined by the definitions kindDefinition and listDefinition.
func (i ResourceInfo) OpenAPIResource(kindDefinition, listDefinition string) openapi.Resource {
	return openapi.Resource{
		Group: i.Group, Version: i.Version, Kind: i.Kind, ListKind: i.ListKind,
		Resource: i.Resource, Namespaced: i.Namespaced, HasStatus: i.HasStatus,
		KindDefinition: kindDefinition, ListDefinition: listDefinition,
	}
}

// Strategy is the per-resource behaviour the generic store calls, as in
// the "Registry and Strategy" design of custom API servers (upstream:
// kube-aggregator/pkg/registry/apiservice/strategy.go). The store owns
// metadata bookkeeping (uid, resourceVersion, creationTimestamp,
// generateName) and keeps metadata.generation as it was; a strategy whose
// kind tracks generation upstream sets it to 1 in PrepareForCreate and bumps
// it in PrepareForUpdate when the spec changed (use BumpGeneration). Kinds
// that do not (ConfigMap, Namespace, Service, Endpoints, APIService) leave
// it alone, so it stays whatever the client created the object with.
type Strategy interface {
	// Info describes the resource.
	Info() ResourceInfo
	// New returns an empty object of the resource's type; NewList an empty
	// list whose Items the store fills (see List).
	New() meta.Object
	// PrepareForCreate clears fields a client may not set on create (e.g.
	// status) and applies defaults.
	PrepareForCreate(obj meta.Object)
	// PrepareForUpdate copies what an update of the main resource must keep
	// from old (e.g. status) and bumps generation on spec change.
	PrepareForUpdate(obj, old meta.Object)
	// PrepareForStatusUpdate keeps everything but status from old, for
	// writes to /status. Only called when Info().HasStatus.
	PrepareForStatusUpdate(obj, old meta.Object)
	// Validate checks a new object; ValidateUpdate an update (also of
	// /status). Empty means valid.
	Validate(obj meta.Object) meta.FieldErrors
	ValidateUpdate(obj, old meta.Object) meta.FieldErrors
	// Canonicalize normalises an object before it is stored.
	Canonicalize(obj meta.Object)
	// TableColumns and TableRow produce the server-side table for
	// `kubectl get` (Accept: ...;as=Table;g=meta.k8s.io;v=v1). TableRow's
	// cells line up with TableColumns.
	TableColumns() []meta.TableColumnDefinition
	TableRow(obj meta.Object) []any
}

// BumpGeneration sets newMeta.Generation to old+1 when specChanged, and keeps
// the old generation otherwise, as upstream strategies do.
func BumpGeneration(newMeta, oldMeta *meta.ObjectMeta, specChanged bool) {
	newMeta.Generation = oldMeta.Generation
	if specChanged {
		newMeta.Generation++
	}
}

// TerminatingDeleter is an optional Strategy extension for a resource
// whose DELETE first marks the object and whose removal waits for
// finalizers of its own besides metadata.finalizers: namespaces, as
// upstream's namespace REST Delete and ShouldDeleteNamespaceDuringUpdate
// (pkg/registry/core/namespace/storage/storage.go).
type TerminatingDeleter interface {
	// BeginTerminating changes obj as the first DELETE does, after the
	// Store set its deletionTimestamp (a namespace: status.phase
	// Terminating).
	BeginTerminating(obj meta.Object)
	// Finalized reports whether the resource's own finalizers are all
	// gone (a namespace: spec.finalizers is empty).
	Finalized(obj meta.Object) bool
}

// Defaulter is an optional Strategy extension: Default applies the
// scheme defaults upstream applies when it decodes a request body (core/v1
// and apiregistration/v1 defaults.go), before the field manager records
// ownership, so defaulted fields are credited to the writer as upstream
// credits them. The REST layer calls it on every decoded create, update
// and patch result.
type Defaulter interface {
	Default(obj meta.Object)
}

// DeleteAdmitter is an optional Strategy extension: AdmitDelete refuses
// deleting namespace/name before the store looks the object up, as an
// admission plugin does upstream (NamespaceLifecycle refuses deleting
// default, kube-system and kube-public whether or not they exist). A
// non-nil error is what the DELETE answers.
type DeleteAdmitter interface {
	AdmitDelete(namespace, name string) error
}

// FieldSchemaProvider is an optional Strategy extension describing the
// resource's lists and maps for server-side apply where they differ from
// the strategic-merge-patch keys: ListMapKeys maps a dotted list path to
// its +listMapKey fields (e.g. "spec.ports": port, protocol), AtomicMaps
// lists the paths of +mapType=atomic maps (owned as one field).
type FieldSchemaProvider interface {
	ListMapKeys() map[string][]string
	AtomicMaps() []string
}

// ReadDefaulter is an optional Strategy extension: DefaultOnRead applies
// defaults to every object decoded from storage (custom resources:
// upstream defaults on read, so a default added to a CRD's schema shows
// on objects stored before it).
type ReadDefaulter interface {
	DefaultOnRead(obj meta.Object)
}

// StrategicMergeRefuser is an optional Strategy extension: when
// RefusesStrategicMergePatch is true, a strategic merge patch is 415 with
// upstream's `the body of the request was in an unknown format - accepted
// media types include: application/json-patch+json,
// application/merge-patch+json, application/apply-patch+yaml` (custom
// resources have no patch strategy metadata).
type StrategicMergeRefuser interface {
	RefusesStrategicMergePatch() bool
}

// CreateAdmitter is an optional Strategy extension: a non-nil
// AdmitCreate refuses every create before anything else is checked (the
// custom resources of a terminating CRD: 405 `create not allowed while
// custom resource definition is terminating`).
type CreateAdmitter interface {
	AdmitCreate() error
}

// UnknownFieldPruner is an optional Strategy extension of kinds whose
// schema is data (custom resources): PruneUnknownFields removes the
// fields the schema does not know from a decoded request object, in
// place, and returns their paths ("spec.colour"), which the REST layer
// reports as field validation does for Go types (Strict: 400 `strict
// decoding error: unknown field "spec.colour"`; Warn: warnings).
type UnknownFieldPruner interface {
	PruneUnknownFields(obj meta.Object) []string
}

// PatchMetaProvider is an optional Strategy extension declaring the
// strategic-merge-patch merge keys of a resource: a dotted field path
// (without list indices, e.g. "status.conditions", "spec.ports",
// "subsets.addresses") mapped to the key that identifies list elements
// ("type", "port", "ip"), as the patchMergeKey struct tags do upstream. An
// empty key declares a list of scalars merged as a set (patchStrategy
// merge without a key, e.g. "metadata.finalizers"). Lists not named are
// replaced. metadata.ownerReferences (uid) and metadata.finalizers are
// always declared.
type PatchMetaProvider interface {
	MergeKeys() map[string]string
}

// TableOrderer is an optional Strategy extension for kinds whose table
// printer sorts the rows of a list (upstream printFlowSchemaList sorts by
// matchingPrecedence, then name): OrderTableRows sorts objs in place.
// Lists in other representations keep the store's order.
type TableOrderer interface {
	OrderTableRows(objs []meta.Object)
}
