package apiregistration

import (
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Wire types of apiregistration.k8s.io/v1, field for field as upstream's
// kube-aggregator/pkg/apis/apiregistration/v1/types.go (JSON names and
// omitempty included), so `kubectl get apiservice -o yaml` prints what a
// real kube-apiserver prints.

// APIService represents a server for a particular GroupVersion. Name must be
// "version.group".
// ---
// APIService registers one group/version with the aggregator. Its name is
// always "<spec.version>.<spec.group>" ("v1." for the legacy core group).
type APIService struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec contains information for locating and communicating with a server
	// ---
	// Spec is what the user asked for.
	Spec APIServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status contains derived information about an API server
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
	// Items is the list of APIService objects.
	Items []APIService `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceReference holds a reference to Service.legacy.k8s.io
// ---
// ServiceReference names the Service in front of an aggregated API server.
type ServiceReference struct {
	// Namespace is the namespace of the service
	// ---
	// Namespace of the Service; required.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of the service
	// ---
	// Name of the Service; required (not format-checked, as upstream).
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// If specified, the port on the service that hosting webhook. Default to 443
	// for backward compatibility. `port` should be a valid port number (1-65535,
	// inclusive).
	// ---
	// Port on the Service (1..65535); defaulted to 443 on create/update.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceSpec contains information for locating and communicating with a
// server. Only https is supported, though you are able to disable certificate
// verification.
// ---
// APIServiceSpec mirrors apiregistration/v1.APIServiceSpec. A nil Service
// makes the APIService "local": served by this process, always Available.
type APIServiceSpec struct {
	// Service is a reference to the service for this API server.  It must
	// communicate on port 443. If the Service is nil, that means the handling for
	// the API groupversion is handled locally on this server. The call will
	// simply delegate to the normal handler chain to be fulfilled.
	// ---
	// Service is where requests for this group/version are proxied.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// Group is the API group name this server hosts
	// ---
	// Group is the API group name ("" only for the legacy "v1.").
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version this server hosts.  For example, "v1"
	// ---
	// Version is the API version, a DNS-1035 label ("v1alpha1").
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// InsecureSkipTLSVerify disables TLS certificate verification when
	// communicating with this server. This is strongly discouraged.  You should
	// use the CABundle instead.
	// ---
	// InsecureSkipTLSVerify disables verification of the backend's serving
	// certificate; forbidden together with CABundle.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// CABundle is a PEM encoded CA bundle which will be used to validate an API
	// server's serving certificate. If unspecified, system trust roots on the
	// apiserver are used.
	// ---
	// CABundle is the PEM bundle that verifies the backend's serving
	// certificate; base64 on the wire (a non-base64 string fails decoding
	// with "illegal base64 data at input byte N").
	// +listType=atomic
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// GroupPriorityMinimum is the priority this group should have at least.
	// Higher priority means that the group is preferred by clients over lower
	// priority ones. The primary sort is based on GroupPriorityMinimum, ordered
	// highest number to lowest (20 before 10). The secondary sort is based on the
	// alphabetical comparison of the name of the object. (v1.bar before v1.foo)
	// ---
	// GroupPriorityMinimum orders groups in discovery, highest first (1..20000).
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	// VersionPriority controls the ordering of this API version inside of its
	// group.  Must be greater than zero. The primary sort is based on
	// VersionPriority, ordered highest to lowest (20 before 10). Since it's
	// inside of a group, the number can be small, probably in the 10s. In case of
	// equal version priorities, the version string will be used to compute the
	// order inside a group.
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

// APIServiceCondition describes the state of an APIService at a particular
// point
// ---
// APIServiceCondition mirrors apiregistration/v1.APIServiceCondition.
type APIServiceCondition struct {
	// Type is the type of the condition.
	Type APIServiceConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is the status of the condition. Can be True, False, Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// Last time the condition transitioned from one status to another.
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Unique, one-word, CamelCase reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Human-readable message indicating details about last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// APIServiceStatus contains derived information about an API server
// ---
// APIServiceStatus mirrors apiregistration/v1.APIServiceStatus
// (conditions are a list-map keyed by type).
type APIServiceStatus struct {
	// Current service state of apiService.
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
