package apiregistration

import (
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Wire types of apiregistration.k8s.io/v1, field for field as upstream's
// kube-aggregator/pkg/apis/apiregistration/v1/types.go (JSON names and
// omitempty included), so `kubectl get apiservice -o yaml` prints what a
// real kube-apiserver prints.

// APIService tells the aggregator where one API group/version is served:
// by this server or by a Service in front of another API server. Its name
// is "<version>.<group>".
// ---
// APIService registers one group/version with the aggregator. Its name is
// always "<spec.version>.<spec.group>" ("v1." for the legacy core group).
type APIService struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Where the group/version is served and how it is ordered in discovery.
	// ---
	// Spec is what the user asked for.
	Spec APIServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Whether the group/version is reachable, as the server last found.
	// ---
	// Status is written by the availability controllers via /status.
	Status APIServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// APIServiceList is a list of APIService objects.
// ---
// APIServiceList is a list of APIServices (kind APIServiceList).
type APIServiceList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The APIService objects.
	Items []APIService `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceReference names a core/v1 Service and a port on it.
// ---
// ServiceReference names the Service in front of an aggregated API server.
type ServiceReference struct {
	// The Service's namespace.
	// ---
	// Namespace of the Service; required.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// The Service's name.
	// ---
	// Name of the Service; required (not format-checked, as upstream).
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// The Service port requests go to, 1 to 65535; defaults to 443.
	// ---
	// Port on the Service (1..65535); defaulted to 443 on create/update.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceSpec says how the aggregator reaches the server of a
// group/version (always over https) and where the group and version sort
// in discovery.
// ---
// APIServiceSpec mirrors apiregistration/v1.APIServiceSpec. A nil Service
// makes the APIService "local": served by this process, always Available.
type APIServiceSpec struct {
	// The Service in front of the API server that serves the group/version;
	// absent, this server serves it itself.
	// ---
	// Service is where requests for this group/version are proxied.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// The API group served.
	// ---
	// Group is the API group name ("" only for the legacy "v1.").
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// The API version served, such as "v1".
	// ---
	// Version is the API version, a DNS-1035 label ("v1alpha1").
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// Skips checking the server's certificate. Unsafe; prefer caBundle.
	// ---
	// InsecureSkipTLSVerify disables verification of the backend's serving
	// certificate; forbidden together with CABundle.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// PEM certificates of the CA that signed the server's serving
	// certificate; absent, the system's trust roots are used.
	// ---
	// CABundle is the PEM bundle that verifies the backend's serving
	// certificate; base64 on the wire (a non-base64 string fails decoding
	// with "illegal base64 data at input byte N").
	// +listType=atomic
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// The least priority the group has in discovery: groups are listed
	// highest priority first (20 before 10), ties by APIService name
	// (v1.bar before v1.foo). Clients prefer groups listed earlier.
	// ---
	// GroupPriorityMinimum orders groups in discovery, highest first (1..20000).
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	// Where the version sorts within its group, above zero: highest first
	// (20 before 10), ties by the version string's Kubernetes ordering.
	// ---
	// VersionPriority orders versions within a group, highest first (1..1000).
	VersionPriority int32 `json:"versionPriority" protobuf:"varint,8,opt,name=versionPriority"`
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

// APIServiceCondition is one observation of an APIService's state.
// ---
// APIServiceCondition mirrors apiregistration/v1.APIServiceCondition.
type APIServiceCondition struct {
	// The condition's type (Available).
	Type APIServiceConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Whether the condition holds: True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// When the status last changed.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// A CamelCase word for why the status last changed.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// A sentence for people about the last change.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// APIServiceStatus is what the server found about an APIService.
// ---
// APIServiceStatus mirrors apiregistration/v1.APIServiceStatus
// (conditions are a list-map keyed by type).
type APIServiceStatus struct {
	// The APIService's current conditions, one per type.
	// +listType=map
	// +listMapKey=type
	Conditions []APIServiceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
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
	if a.HasCondition(c) {
		return false
	}
	if existing.Status == c.Status {
		c.LastTransitionTime = existing.LastTransitionTime
	}
	*existing = c
	return true
}

// HasCondition reports whether a carries a condition of c's type with c's
// status, reason and message: then SetCondition(c) changes nothing (the
// transition time is not compared). It does not modify a, so a controller
// can ask it of a shared (informer) object before copying it.
func (a *APIService) HasCondition(c APIServiceCondition) bool {
	existing := a.GetCondition(c.Type)
	return existing != nil && existing.Status == c.Status && existing.Reason == c.Reason && existing.Message == c.Message
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
