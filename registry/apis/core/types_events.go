package core

import "github.com/aggsim/aggsim/registry/apis/meta"

// Wire types of core/v1 events, resource quotas and limit ranges, which
// `kubectl describe` reads (events of the object described; a namespace's
// quotas and limit ranges). Fields, JSON names, omitempty and protobuf
// numbers follow k8s.io/api/core/v1/types.go.

// Event is a report of an event somewhere in the cluster.  Events have a
// limited retention time and triggers and messages may evolve with time.
// Event consumers should not rely on the timing of an event with a given
// Reason reflecting a consistent underlying trigger, or the continued
// existence of events with that Reason.  Events should be treated as
// informative, best-effort, supplemental data.
// ---
// Event mirrors core/v1.Event (namespaced).
type Event struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// The object that this event is about.
	InvolvedObject ObjectReference `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	// This should be a short, machine understandable string that gives the
	// reason for the transition into the object's current status.
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// A human-readable description of the status of this operation.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// The component reporting this event. Should be a short machine
	// understandable string.
	Source EventSource `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	// The time at which the event was first recorded. (Time of server receipt
	// is in TypeMeta.)
	FirstTimestamp meta.Time `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	// The time at which the most recent occurrence of this event was
	// recorded.
	LastTimestamp meta.Time `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	// The number of times this event has occurred.
	Count int32 `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	// Type of this event (Normal, Warning), new types could be added in the
	// future
	Type string `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	// Time when this Event was first observed.
	EventTime meta.MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	// Data about the Event series this event represents or nil if it's a
	// singleton Event.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	// What action was taken/failed regarding to the Regarding object.
	Action string `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	// Optional secondary object for more complex actions.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// Name of the controller that emitted this Event, e.g.
	// `kubernetes.io/kubelet`.
	// +optional
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	// ID of the controller instance, e.g. `kubelet-xyzf`.
	// +optional
	ReportingInstance string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// EventSource contains information for an event.
// ---
// EventSource mirrors core/v1.EventSource.
type EventSource struct {
	// Component from which the event is generated.
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	// Node name on which the event is generated.
	Host string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries contain information on series of events, i.e. thing that
// was/is happening continuously for some time.
// ---
// EventSeries mirrors core/v1.EventSeries.
type EventSeries struct {
	// Number of occurrences in this series up to the last heartbeat time
	Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
	// Time of the last occurrence observed
	LastObservedTime meta.MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// Event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// EventList is a list of events.
// ---
// EventList is a list of Events.
type EventList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// List of events
	Items []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ResourceQuota sets aggregate quota restrictions enforced per namespace
// ---
// ResourceQuota mirrors core/v1.ResourceQuota (namespaced). aggsim
// enforces no quota and runs no quota controller, so status stays as
// written to /status (as a kube-apiserver without a controller manager).
type ResourceQuota struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec defines the desired quota.
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status
	Spec ResourceQuotaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status defines the actual enforced quota and its current usage.
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status
	Status ResourceQuotaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceQuotaSpec defines the desired hard limits to enforce for Quota.
// ---
// ResourceQuotaSpec mirrors core/v1.ResourceQuotaSpec.
type ResourceQuotaSpec struct {
	// hard is the set of desired hard limits for each named resource. More
	// info: https://kubernetes.io/docs/concepts/policy/resource-quotas/
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName"`
	// A collection of filters that must match each object tracked by a quota.
	// If not specified, the quota matches all objects.
	// +listType=atomic
	// +openapi:enum=BestEffort
	// +openapi:enum=CrossNamespacePodAffinity
	// +openapi:enum=NotBestEffort
	// +openapi:enum=NotTerminating
	// +openapi:enum=PriorityClass
	// +openapi:enum=Terminating
	// +openapi:enum=VolumeAttributesClass
	Scopes []string `json:"scopes,omitempty" protobuf:"bytes,2,rep,name=scopes,casttype=ResourceQuotaScope"`
	// scopeSelector is also a collection of filters like scopes that must
	// match each object tracked by a quota but expressed using
	// ScopeSelectorOperator in combination with possible values. For a
	// resource to match, both scopes AND scopeSelector (if specified in spec),
	// must be matched.
	ScopeSelector *ScopeSelector `json:"scopeSelector,omitempty" protobuf:"bytes,3,opt,name=scopeSelector"`
}

// A scope selector represents the AND of the selectors represented by the
// scoped-resource selector requirements.
// ---
// ScopeSelector mirrors core/v1.ScopeSelector.
// +structType=atomic
type ScopeSelector struct {
	// A list of scope selector requirements by scope of the resources.
	// +listType=atomic
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
}

// A scoped-resource selector requirement is a selector that contains
// values, a scope name, and an operator that relates the scope name and
// values.
// ---
// ScopedResourceSelectorRequirement mirrors
// core/v1.ScopedResourceSelectorRequirement.
type ScopedResourceSelectorRequirement struct {
	// The name of the scope that the selector applies to.
	// +openapi:enum=BestEffort
	// +openapi:enum=CrossNamespacePodAffinity
	// +openapi:enum=NotBestEffort
	// +openapi:enum=NotTerminating
	// +openapi:enum=PriorityClass
	// +openapi:enum=Terminating
	// +openapi:enum=VolumeAttributesClass
	ScopeName string `json:"scopeName" protobuf:"bytes,1,opt,name=scopeName"`
	// Represents a scope's relationship to a set of values. Valid operators
	// are In, NotIn, Exists, DoesNotExist.
	// +openapi:enum=DoesNotExist
	// +openapi:enum=Exists
	// +openapi:enum=In
	// +openapi:enum=NotIn
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=ScopedResourceSelectorOperator"`
	// An array of string values. If the operator is In or NotIn, the values
	// array must be non-empty. If the operator is Exists or DoesNotExist, the
	// values array must be empty. This array is replaced during a strategic
	// merge patch.
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// ResourceQuotaStatus defines the enforced hard limits and observed use.
// ---
// ResourceQuotaStatus mirrors core/v1.ResourceQuotaStatus.
type ResourceQuotaStatus struct {
	// Hard is the set of enforced hard limits for each named resource. More
	// info: https://kubernetes.io/docs/concepts/policy/resource-quotas/
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName"`
	// Used is the current observed total usage of the resource in the
	// namespace.
	Used ResourceList `json:"used,omitempty" protobuf:"bytes,2,rep,name=used,casttype=ResourceList,castkey=ResourceName"`
}

// ResourceQuotaList is a list of ResourceQuota items.
// ---
// ResourceQuotaList is a list of ResourceQuotas.
type ResourceQuotaList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a list of ResourceQuota objects. More info:
	// https://kubernetes.io/docs/concepts/policy/resource-quotas/
	Items []ResourceQuota `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// LimitRange sets resource usage limits for each kind of resource in a
// Namespace.
// ---
// LimitRange mirrors core/v1.LimitRange (namespaced). aggsim admits no
// pods, so the limits are stored, defaulted and validated, never applied.
type LimitRange struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec defines the limits enforced. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status
	Spec LimitRangeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LimitRangeSpec defines a min/max usage limit for resources that match on
// kind.
// ---
// LimitRangeSpec mirrors core/v1.LimitRangeSpec.
type LimitRangeSpec struct {
	// Limits is the list of LimitRangeItem objects that are enforced.
	// +listType=atomic
	Limits []LimitRangeItem `json:"limits" protobuf:"bytes,1,rep,name=limits"`
}

// LimitRangeItem defines a min/max usage limit for any resource that
// matches on kind.
// ---
// LimitRangeItem mirrors core/v1.LimitRangeItem.
type LimitRangeItem struct {
	// Type of resource that this limit applies to.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type,casttype=LimitType"`
	// Max usage constraints on this kind by resource name.
	Max ResourceList `json:"max,omitempty" protobuf:"bytes,2,rep,name=max,casttype=ResourceList,castkey=ResourceName"`
	// Min usage constraints on this kind by resource name.
	Min ResourceList `json:"min,omitempty" protobuf:"bytes,3,rep,name=min,casttype=ResourceList,castkey=ResourceName"`
	// Default resource requirement limit value by resource name if resource
	// limit is omitted.
	Default ResourceList `json:"default,omitempty" protobuf:"bytes,4,rep,name=default,casttype=ResourceList,castkey=ResourceName"`
	// DefaultRequest is the default resource requirement request value by
	// resource name if resource request is omitted.
	DefaultRequest ResourceList `json:"defaultRequest,omitempty" protobuf:"bytes,5,rep,name=defaultRequest,casttype=ResourceList,castkey=ResourceName"`
	// MaxLimitRequestRatio if specified, the named resource must have a
	// request and limit that are both non-zero where limit divided by request
	// is less than or equal to the enumerated value; this represents the max
	// burst for the named resource.
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty" protobuf:"bytes,6,rep,name=maxLimitRequestRatio,casttype=ResourceList,castkey=ResourceName"`
}

// Limit types.
const (
	LimitTypePod                   = "Pod"
	LimitTypeContainer             = "Container"
	LimitTypePersistentVolumeClaim = "PersistentVolumeClaim"
)

// LimitRangeList is a list of LimitRange items.
// ---
// LimitRangeList is a list of LimitRanges.
type LimitRangeList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a list of LimitRange objects. More info:
	// https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/
	Items []LimitRange `json:"items" protobuf:"bytes,2,rep,name=items"`
}
