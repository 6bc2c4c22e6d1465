package registry

import (
	"reflect"
	"time"
)

// APIServiceStrategy is the Strategy of apiregistration.k8s.io/v1
// apiservices, as kube-aggregator/pkg/registry/apiservice/strategy.go:
// create clears status (and marks local APIServices Available), update
// keeps the old status, a /status write keeps the old spec and metadata.
// The zero value is ready to use.
type APIServiceStrategy struct {
	// Now is the clock for the Local condition's lastTransitionTime and
	// for AGE cells; nil means time.Now.
	Now func() time.Time
}

// DefaultServicePort is the spec.service.port an APIService gets when it
// names a Service without a port (apiregistration/v1 defaults.go).
const DefaultServicePort int32 = 443

// Interface guards: the optional store extensions this strategy implements.
var (
	_ Strategy             = APIServiceStrategy{}
	_ CreateOnUpdater      = APIServiceStrategy{}
	_ UnconditionalUpdater = APIServiceStrategy{}
	_ PatchMetaProvider    = APIServiceStrategy{}
)

// Info describes apiservices as upstream's discovery does: cluster-scoped,
// category api-extensions, no short names, with a status subresource.
func (APIServiceStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupAPIRegistration, Version: VersionV1,
		Kind: "APIService", ListKind: "APIServiceList",
		Resource: "apiservices", Singular: "apiservice",
		Categories:  []string{"api-extensions"},
		Namespaced:  false,
		Verbs:       []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
		HasStatus:   true,
		StatusVerbs: []string{"get", "patch", "update"},
	}
}

// New returns an empty *APIService.
func (APIServiceStrategy) New() Object { return &APIService{} }

// DefaultAPIService applies upstream's defaulting: a Service without a
// port gets port 443.
func DefaultAPIService(a *APIService) {
	if a.Spec.Service != nil && a.Spec.Service.Port == nil {
		p := DefaultServicePort
		a.Spec.Service.Port = &p
	}
}

// PrepareForCreate wipes status, defaults the port and, for a local
// APIService, sets Available=True/Local at once.
func (s APIServiceStrategy) PrepareForCreate(obj Object) {
	a := obj.(*APIService)
	a.Status = APIServiceStatus{}
	DefaultAPIService(a)
	if a.IsLocal() {
		a.SetCondition(NewLocalAvailableCondition(nowOr(s.Now)))
	}
}

// PrepareForUpdate keeps the old status, defaults the port and bumps
// generation when the spec changed.
func (APIServiceStrategy) PrepareForUpdate(obj, old Object) {
	a, o := obj.(*APIService), old.(*APIService)
	a.Status = o.Status
	DefaultAPIService(a)
	BumpGeneration(&a.ObjectMeta, &o.ObjectMeta, !reflect.DeepEqual(a.Spec, o.Spec))
}

// PrepareForStatusUpdate keeps the old spec, labels, annotations,
// finalizers and owner references: only status changes.
func (APIServiceStrategy) PrepareForStatusUpdate(obj, old Object) {
	a, o := obj.(*APIService), old.(*APIService)
	a.Spec = o.Spec
	keepMetadataForStatus(&a.ObjectMeta, &o.ObjectMeta)
}

// keepMetadataForStatus copies what a /status write may not change.
func keepMetadataForStatus(m, old *ObjectMeta) {
	m.Labels = old.Labels
	m.Annotations = old.Annotations
	m.Finalizers = old.Finalizers
	m.OwnerReferences = old.OwnerReferences
	m.Generation = old.Generation
}

// Validate runs ValidateAPIService.
func (APIServiceStrategy) Validate(obj Object) FieldErrors {
	return ValidateAPIService(obj.(*APIService))
}

// ValidateUpdate runs ValidateAPIServiceUpdate.
func (APIServiceStrategy) ValidateUpdate(obj, old Object) FieldErrors {
	return ValidateAPIServiceUpdate(obj.(*APIService), old.(*APIService))
}

// Canonicalize does nothing for APIServices.
func (APIServiceStrategy) Canonicalize(Object) {}

// TableColumns are NAME, SERVICE, AVAILABLE, AGE, all priority 0, with
// upstream's descriptions.
func (APIServiceStrategy) TableColumns() []TableColumnDefinition {
	return []TableColumnDefinition{
		nameColumn(),
		stringColumn("Service", "The reference to the service that hosts this API endpoint."),
		stringColumn("Available", "Whether this service is available."),
		ageColumn(),
	}
}

// TableRow returns name, "ns/name" or "Local", the Available cell and age.
func (s APIServiceStrategy) TableRow(obj Object) []any {
	a := obj.(*APIService)
	service := "Local"
	if a.Spec.Service != nil {
		service = a.Spec.Service.Namespace + "/" + a.Spec.Service.Name
	}
	return []any{a.Name, service, availableCell(a), TableAge(a.CreationTimestamp, nowOr(s.Now))}
}

// availableCell is "Unknown" without an Available condition, "True", or
// "<Status> (<Reason>)" / "<Status>" otherwise.
func availableCell(a *APIService) string {
	c := a.GetCondition(Available)
	switch {
	case c == nil:
		return string(ConditionUnknown)
	case c.Status == ConditionTrue:
		return string(ConditionTrue)
	case c.Reason != "":
		return string(c.Status) + " (" + c.Reason + ")"
	}
	return string(c.Status)
}

// AllowCreateOnUpdate is false: PUT of a missing APIService is 404.
func (APIServiceStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is false: an update must carry
// metadata.resourceVersion.
func (APIServiceStrategy) AllowUnconditionalUpdate() bool { return false }

// MergeKeys are the strategic-merge-patch keys of APIService lists
// (field path → merge key): status.conditions merge on type.
func (APIServiceStrategy) MergeKeys() map[string]string {
	return map[string]string{"status.conditions": "type"}
}
