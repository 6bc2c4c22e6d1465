package core

import "github.com/aggsim/aggsim/registry/apis/meta"

// Wire types of core/v1 events, resource quotas and limit ranges, which
// `kubectl describe` reads (events of the object described; a namespace's
// quotas and limit ranges). Fields, JSON names, omitempty and protobuf
// numbers follow k8s.io/api/core/v1/types.go.

// Event records something that happened to an object, for people and
// tools to read. Events are best-effort: they expire after a while, and
// neither their timing nor the reasons used are a stable contract.
// ---
// Event mirrors core/v1.Event (namespaced). aggsim emits no events of its
// own; it stores what clients write, validated as upstream's legacy rules
// (ValidateEvent).
type Event struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// The object the event concerns.
	InvolvedObject ObjectReference `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	// A short CamelCase word for programs saying why the event happened
	// (for example FailedMount).
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Free text for people describing the event.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// Which component, on which node, reported the event.
	Source EventSource `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	// When the event was first seen, in whole seconds.
	FirstTimestamp meta.Time `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	// When the event was seen most recently, in whole seconds.
	LastTimestamp meta.Time `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	// How often the event has happened.
	Count int32 `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	// The severity: Normal or Warning (more may come).
	Type string `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	// When the event was first seen, to the microsecond. An event with this
	// set must also name its reporting component, instance, action and
	// reason.
	EventTime meta.MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	// Counts further occurrences when the event repeats; unset for a single
	// occurrence.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	// What was done, or failed, to the involved object.
	Action string `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	// A second object the event concerns, if any.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// The controller that reported the event, such as
	// `kubernetes.io/kubelet`.
	// +optional
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	// The instance of that controller, such as `kubelet-xyzf`.
	// +optional
	ReportingInstance string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// EventSource names who reported an event.
// ---
// EventSource mirrors core/v1.EventSource.
type EventSource struct {
	// The reporting component.
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	// The node the reporting component runs on.
	Host string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries describes an event that keeps recurring.
// ---
// EventSeries mirrors core/v1.EventSeries.
type EventSeries struct {
	// How many times the event has recurred by the last observation.
	Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
	// When the event was last observed, to the microsecond.
	LastObservedTime meta.MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// Event types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// EventList is a list of Event objects.
// ---
// EventList is a list of Events.
type EventList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The Event objects.
	Items []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ResourceQuota caps the total resources and object counts a namespace
// may use.
// ---
// ResourceQuota mirrors core/v1.ResourceQuota (namespaced). aggsim
// enforces no quota and runs no quota controller, so status stays as
// written to /status (as a kube-apiserver without a controller manager).
type ResourceQuota struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The limits asked for.
	Spec ResourceQuotaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// The limits in force and the usage counted against them, as a quota
	// controller reports them.
	Status ResourceQuotaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceQuotaSpec is the limits a quota asks for and the objects it
// counts.
// ---
// ResourceQuotaSpec mirrors core/v1.ResourceQuotaSpec.
type ResourceQuotaSpec struct {
	// The cap for each named resource (such as pods or requests.cpu).
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName"`
	// Scopes an object must be in to be counted (all of them); none
	// counts every object.
	// +listType=atomic
	// +openapi:enum=BestEffort
	// +openapi:enum=CrossNamespacePodAffinity
	// +openapi:enum=NotBestEffort
	// +openapi:enum=NotTerminating
	// +openapi:enum=PriorityClass
	// +openapi:enum=Terminating
	// +openapi:enum=VolumeAttributesClass
	Scopes []string `json:"scopes,omitempty" protobuf:"bytes,2,rep,name=scopes,casttype=ResourceQuotaScope"`
	// Further scope conditions with operators and values; an object is
	// counted only if it also meets these.
	ScopeSelector *ScopeSelector `json:"scopeSelector,omitempty" protobuf:"bytes,3,opt,name=scopeSelector"`
}

// ScopeSelector is a list of scope conditions an object must all meet.
// ---
// ScopeSelector mirrors core/v1.ScopeSelector.
// +structType=atomic
type ScopeSelector struct {
	// The conditions, all of which must hold.
	// +listType=atomic
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
}

// ScopedResourceSelectorRequirement is one scope condition: a scope, an
// operator and the values it compares with.
// ---
// ScopedResourceSelectorRequirement mirrors
// core/v1.ScopedResourceSelectorRequirement.
type ScopedResourceSelectorRequirement struct {
	// The scope tested.
	// +openapi:enum=BestEffort
	// +openapi:enum=CrossNamespacePodAffinity
	// +openapi:enum=NotBestEffort
	// +openapi:enum=NotTerminating
	// +openapi:enum=PriorityClass
	// +openapi:enum=Terminating
	// +openapi:enum=VolumeAttributesClass
	ScopeName string `json:"scopeName" protobuf:"bytes,1,opt,name=scopeName"`
	// How the scope is tested: In, NotIn, Exists or DoesNotExist.
	// +openapi:enum=DoesNotExist
	// +openapi:enum=Exists
	// +openapi:enum=In
	// +openapi:enum=NotIn
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=ScopedResourceSelectorOperator"`
	// The values for In and NotIn (at least one); must be empty for Exists
	// and DoesNotExist. A strategic merge patch replaces the whole list.
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// ResourceQuotaStatus is the limits in force and the usage counted.
// ---
// ResourceQuotaStatus mirrors core/v1.ResourceQuotaStatus.
type ResourceQuotaStatus struct {
	// The cap in force for each named resource.
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName"`
	// How much of each named resource the namespace uses now.
	Used ResourceList `json:"used,omitempty" protobuf:"bytes,2,rep,name=used,casttype=ResourceList,castkey=ResourceName"`
}

// ResourceQuotaList is a list of ResourceQuota objects.
// ---
// ResourceQuotaList is a list of ResourceQuotas.
type ResourceQuotaList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The ResourceQuota objects.
	Items []ResourceQuota `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// LimitRange sets per-object bounds and defaults for the resources of
// pods, containers and claims in its namespace.
// ---
// LimitRange mirrors core/v1.LimitRange (namespaced). aggsim admits no
// pods, so the limits are stored, defaulted and validated, never applied.
type LimitRange struct {
	meta.TypeMeta `json:",inline"`
	// Standard object's metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The bounds and defaults.
	Spec LimitRangeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LimitRangeSpec is the list of bounds and defaults, one entry per kind
// of object.
// ---
// LimitRangeSpec mirrors core/v1.LimitRangeSpec.
type LimitRangeSpec struct {
	// The entries.
	// +listType=atomic
	Limits []LimitRangeItem `json:"limits" protobuf:"bytes,1,rep,name=limits"`
}

// LimitRangeItem is the bounds and defaults for one kind of object.
// ---
// LimitRangeItem mirrors core/v1.LimitRangeItem. For a Container entry
// aggsim defaults default from max and defaultRequest from default, else
// min (DefaultLimitRange).
type LimitRangeItem struct {
	// The kind of object bounded: Pod, Container or PersistentVolumeClaim.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type,casttype=LimitType"`
	// The most of each named resource one such object may use.
	Max ResourceList `json:"max,omitempty" protobuf:"bytes,2,rep,name=max,casttype=ResourceList,castkey=ResourceName"`
	// The least of each named resource one such object must ask for.
	Min ResourceList `json:"min,omitempty" protobuf:"bytes,3,rep,name=min,casttype=ResourceList,castkey=ResourceName"`
	// The limit given for each named resource when an object sets none.
	Default ResourceList `json:"default,omitempty" protobuf:"bytes,4,rep,name=default,casttype=ResourceList,castkey=ResourceName"`
	// The request given for each named resource when an object sets none.
	DefaultRequest ResourceList `json:"defaultRequest,omitempty" protobuf:"bytes,5,rep,name=defaultRequest,casttype=ResourceList,castkey=ResourceName"`
	// The largest limit-to-request ratio allowed for each named resource;
	// an object then needs both a nonzero request and a limit for it.
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty" protobuf:"bytes,6,rep,name=maxLimitRequestRatio,casttype=ResourceList,castkey=ResourceName"`
}

// Limit types.
const (
	LimitTypePod                   = "Pod"
	LimitTypeContainer             = "Container"
	LimitTypePersistentVolumeClaim = "PersistentVolumeClaim"
)

// LimitRangeList is a list of LimitRange objects.
// ---
// LimitRangeList is a list of LimitRanges.
type LimitRangeList struct {
	meta.TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	meta.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The LimitRange objects.
	Items []LimitRange `json:"items" protobuf:"bytes,2,rep,name=items"`
}
