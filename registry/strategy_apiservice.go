package registry

import (
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
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

// Interface guards: the optional store extensions this strategy implements.
var (
	_ Strategy             = APIServiceStrategy{}
	_ CreateOnUpdater      = APIServiceStrategy{}
	_ UnconditionalUpdater = APIServiceStrategy{}
)

// Info describes apiservices as upstream's discovery does: cluster-scoped,
// category api-extensions, no short names, with a status subresource.
func (APIServiceStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: apiregistration.GroupAPIRegistration, Version: VersionV1,
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
func (APIServiceStrategy) New() meta.Object { return &apiregistration.APIService{} }

// PrepareForCreate wipes status, defaults the port and, for a local
// APIService, sets Available=True/Local at once.
func (s APIServiceStrategy) PrepareForCreate(obj meta.Object) {
	a := obj.(*apiregistration.APIService)
	a.Status = apiregistration.APIServiceStatus{}
	apiregistration.DefaultAPIService(a)
	if a.IsLocal() {
		a.SetCondition(apiregistration.NewLocalAvailableCondition(nowOr(s.Now)))
	}
}

// PrepareForUpdate keeps the old status and defaults the port. An
// APIService has no generation upstream (the store keeps whatever it had).
func (APIServiceStrategy) PrepareForUpdate(obj, old meta.Object) {
	a, o := obj.(*apiregistration.APIService), old.(*apiregistration.APIService)
	a.Status = o.Status
	apiregistration.DefaultAPIService(a)
}

// PrepareForStatusUpdate keeps the old spec, labels, annotations,
// finalizers and owner references: only status changes.
func (APIServiceStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	a, o := obj.(*apiregistration.APIService), old.(*apiregistration.APIService)
	a.Spec = o.Spec
	keepMetadataForStatus(&a.ObjectMeta, &o.ObjectMeta)
}

// keepMetadataForStatus copies what a /status write may not change.
func keepMetadataForStatus(m, old *meta.ObjectMeta) {
	m.Labels = old.Labels
	m.Annotations = old.Annotations
	m.Finalizers = old.Finalizers
	m.OwnerReferences = old.OwnerReferences
	m.Generation = old.Generation
}

// Default applies apiregistration/v1 defaulting (Defaulter).
func (APIServiceStrategy) Default(obj meta.Object) {
	apiregistration.DefaultAPIService(obj.(*apiregistration.APIService))
}

// Validate runs ValidateAPIService.
func (APIServiceStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return apiregistration.ValidateAPIService(obj.(*apiregistration.APIService))
}

// ValidateUpdate runs ValidateAPIServiceUpdate.
func (APIServiceStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return apiregistration.ValidateAPIServiceUpdate(obj.(*apiregistration.APIService), old.(*apiregistration.APIService))
}

// Canonicalize does nothing for APIServices.
func (APIServiceStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME, SERVICE, AVAILABLE, AGE, all priority 0, with
// upstream's descriptions.
func (APIServiceStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Service", "The reference to the service that hosts this API endpoint."),
		stringColumn("Available", "Whether this service is available."),
		ageColumn(),
	}
}

// TableRow returns name, "ns/name" or "Local", the Available cell and age.
func (s APIServiceStrategy) TableRow(obj meta.Object) []any {
	a := obj.(*apiregistration.APIService)
	service := "Local"
	if a.Spec.Service != nil {
		service = a.Spec.Service.Namespace + "/" + a.Spec.Service.Name
	}
	return []any{a.Name, service, availableCell(a), meta.TableAge(a.CreationTimestamp, nowOr(s.Now))}
}

// availableCell is "Unknown" without an Available condition, "True", or
// "<Status> (<Reason>)" / "<Status>" otherwise.
func availableCell(a *apiregistration.APIService) string {
	c := a.GetCondition(apiregistration.Available)
	switch {
	case c == nil:
		return string(apiregistration.ConditionUnknown)
	case c.Status == apiregistration.ConditionTrue:
		return string(apiregistration.ConditionTrue)
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
