package apiregistration

import (
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Wire types of apiregistration.k8s.io/v1, field for field as upstream's
// kube-aggregator/pkg/apis/apiregistration/v1/types.go (JSON names and
// omitempty included), so `kubectl get apiservice -o yaml` prints what a
// real kube-apiserver prints.

// APIService registers one group/version with the aggregator. Its name is
// always "<spec.version>.<spec.group>" ("v1." for the legacy core group).
type APIService struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what the user asked for.
	Spec APIServiceSpec `json:"spec,omitempty"`
	// Status is written by the availability controllers via /status.
	Status APIServiceStatus `json:"status,omitempty"`
}

// APIServiceList is a list of APIServices (kind APIServiceList).
type APIServiceList struct {
	meta.TypeMeta `json:",inline"`
	meta.ListMeta `json:"metadata,omitempty"`
	Items         []APIService `json:"items"`
}

// ServiceReference names the Service in front of an aggregated API server.
type ServiceReference struct {
	// Namespace of the Service; required.
	Namespace string `json:"namespace,omitempty"`
	// Name of the Service; required (not format-checked, as upstream).
	Name string `json:"name,omitempty"`
	// Port on the Service (1..65535); defaulted to 443 on create/update.
	Port *int32 `json:"port,omitempty"`
}

// APIServiceSpec mirrors apiregistration/v1.APIServiceSpec. A nil Service
// makes the APIService "local": served by this process, always Available.
type APIServiceSpec struct {
	// Service is where requests for this group/version are proxied.
	Service *ServiceReference `json:"service,omitempty"`
	// Group is the API group name ("" only for the legacy "v1.").
	Group string `json:"group,omitempty"`
	// Version is the API version, a DNS-1035 label ("v1alpha1").
	Version string `json:"version,omitempty"`
	// InsecureSkipTLSVerify disables verification of the backend's serving
	// certificate; forbidden together with CABundle.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`
	// CABundle is the PEM bundle that verifies the backend's serving
	// certificate; base64 on the wire (a non-base64 string fails decoding
	// with "illegal base64 data at input byte N").
	CABundle []byte `json:"caBundle,omitempty"`
	// GroupPriorityMinimum orders groups in discovery, highest first (1..20000).
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum"`
	// VersionPriority orders versions within a group, highest first (1..1000).
	VersionPriority int32 `json:"versionPriority"`
}

// ConditionStatus is "True", "False" or "Unknown".
type ConditionStatus string

// The three condition statuses upstream allows.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// APIServiceConditionType names an APIService condition; only Available
// is defined upstream.
type APIServiceConditionType string

// Available is the condition the aggregator routes on.
const Available APIServiceConditionType = "Available"

// The reasons of the Available condition, verbatim as upstream's available
// condition controllers write them
// (kube-aggregator/pkg/controllers/status/remote/remote_available_controller.go
// and local/local_available_controller.go; captured in
// testdata/kube-1.33/b-status). Status False unless stated otherwise.
const (
	// ReasonLocal: the APIService has no spec.service; status True.
	ReasonLocal = "Local"
	// ReasonPassed: every check passed; status True.
	ReasonPassed = "Passed"
	// ReasonServiceNotFound: the Service named by spec.service is missing.
	ReasonServiceNotFound = "ServiceNotFound"
	// ReasonServiceAccessError: the Service could not be read; status
	// Unknown. aggsim reads Services from memory, so it never occurs.
	ReasonServiceAccessError = "ServiceAccessError"
	// ReasonServicePortError: a ClusterIP Service has no port numbered
	// spec.service.port.
	ReasonServicePortError = "ServicePortError"
	// ReasonEndpointsNotFound: the Service has no Endpoints object.
	ReasonEndpointsNotFound = "EndpointsNotFound"
	// ReasonMissingEndpoints: no subset has a ready address and a port
	// named like the Service port.
	ReasonMissingEndpoints = "MissingEndpoints"
	// ReasonFailedDiscoveryCheck: every GET /apis/<group>/<version> probe
	// failed (or the endpoint could not be resolved).
	ReasonFailedDiscoveryCheck = "FailedDiscoveryCheck"
)

// The messages of the Available condition. The Local message comes from
// kube-aggregator/pkg/apis/apiregistration/helpers.go. The messages of the
// ServiceNotFound, ServicePortError, EndpointsNotFound and MissingEndpoints
// reasons are the Error() texts of proxy's resolver errors.
const (
	// MessageLocal is the message of every local APIService.
	MessageLocal = "Local APIServices are always available"
	// MessagePassed is the message of a remote APIService that passed.
	MessagePassed = "all checks passed"
)

// APIServiceCondition mirrors apiregistration/v1.APIServiceCondition.
type APIServiceCondition struct {
	Type               APIServiceConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastTransitionTime meta.Time               `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
}

// APIServiceStatus mirrors apiregistration/v1.APIServiceStatus
// (conditions are a list-map keyed by type).
type APIServiceStatus struct {
	Conditions []APIServiceCondition `json:"conditions,omitempty"`
}

// APIServiceName returns the only valid name for group/version:
// "<version>.<group>".
func APIServiceName(group, version string) string { return version + "." + group }

// IsLocal reports whether the APIService is served in-process (no
// spec.service).
func (a *APIService) IsLocal() bool { return a.Spec.Service == nil }

// GetCondition returns the condition of type t, or nil.
func (a *APIService) GetCondition(t APIServiceConditionType) *APIServiceCondition {
	for i := range a.Status.Conditions {
		if a.Status.Conditions[i].Type == t {
			return &a.Status.Conditions[i]
		}
	}
	return nil
}

// IsAvailable reports whether the Available condition is True.
func (a *APIService) IsAvailable() bool {
	c := a.GetCondition(Available)
	return c != nil && c.Status == ConditionTrue
}

// SetCondition adds c or replaces the condition of the same type. As
// upstream's SetAPIServiceCondition, an existing condition keeps its
// lastTransitionTime unless its status changes; reason and message are
// always replaced. It reports whether anything changed.
func (a *APIService) SetCondition(c APIServiceCondition) bool {
	existing := a.GetCondition(c.Type)
	if existing == nil {
		a.Status.Conditions = append(a.Status.Conditions, c)
		return true
	}
	if existing.Status == c.Status && existing.Reason == c.Reason && existing.Message == c.Message {
		return false
	}
	if existing.Status == c.Status {
		c.LastTransitionTime = existing.LastTransitionTime
	}
	*existing = c
	return true
}

// NewLocalAvailableCondition is the condition every local APIService
// carries: Available=True, reason Local, transition time now.
func NewLocalAvailableCondition(now time.Time) APIServiceCondition {
	return APIServiceCondition{
		Type: Available, Status: ConditionTrue,
		LastTransitionTime: meta.NewTime(now),
		Reason:             ReasonLocal,
		Message:            MessageLocal,
	}
}

// DeepCopy returns a copy sharing no memory with a, so a controller can
// change it while others read the original.
func (a *APIService) DeepCopy() *APIService {
	if a == nil {
		return nil
	}
	out := *a
	out.ObjectMeta = *deepCopyObjectMeta(&a.ObjectMeta)
	if a.Spec.Service != nil {
		s := *a.Spec.Service
		if s.Port != nil {
			p := *s.Port
			s.Port = &p
		}
		out.Spec.Service = &s
	}
	if a.Spec.CABundle != nil {
		out.Spec.CABundle = append([]byte(nil), a.Spec.CABundle...)
	}
	if a.Status.Conditions != nil {
		out.Status.Conditions = append([]APIServiceCondition(nil), a.Status.Conditions...)
	}
	return &out
}

// deepCopyObjectMeta copies the maps and slices of m.
func deepCopyObjectMeta(m *meta.ObjectMeta) *meta.ObjectMeta {
	out := *m
	if m.DeletionTimestamp != nil {
		t := *m.DeletionTimestamp
		out.DeletionTimestamp = &t
	}
	if m.DeletionGracePeriodSeconds != nil {
		g := *m.DeletionGracePeriodSeconds
		out.DeletionGracePeriodSeconds = &g
	}
	out.Labels = copyStringMap(m.Labels)
	out.Annotations = copyStringMap(m.Annotations)
	if m.OwnerReferences != nil {
		out.OwnerReferences = make([]meta.OwnerReference, len(m.OwnerReferences))
		for i, r := range m.OwnerReferences {
			if r.Controller != nil {
				c := *r.Controller
				r.Controller = &c
			}
			if r.BlockOwnerDeletion != nil {
				b := *r.BlockOwnerDeletion
				r.BlockOwnerDeletion = &b
			}
			out.OwnerReferences[i] = r
		}
	}
	if m.Finalizers != nil {
		out.Finalizers = append([]string(nil), m.Finalizers...)
	}
	if m.ManagedFields != nil {
		out.ManagedFields = make([]meta.ManagedFieldsEntry, len(m.ManagedFields))
		for i, e := range m.ManagedFields {
			if e.Time != nil {
				t := *e.Time
				e.Time = &t
			}
			if e.FieldsV1 != nil {
				e.FieldsV1 = append([]byte(nil), e.FieldsV1...)
			}
			out.ManagedFields[i] = e
		}
	}
	return &out
}

func copyStringMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
