package meta

import (
	"encoding/json"
	"errors"
	"time"
)

// TypeMeta is the apiVersion/kind pair every Kubernetes object carries on the
// wire. It mirrors metav1.TypeMeta (k8s.io/apimachinery/pkg/apis/meta/v1/types.go).
type TypeMeta struct {
	// Kind is a string value representing the REST resource this object
	// represents. Servers may infer this from the endpoint the client submits
	// requests to. Cannot be updated. In CamelCase. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	Kind string `json:"kind,omitempty"`
	// APIVersion defines the versioned schema of this representation of an
	// object. Servers should convert recognized schemas to the latest internal
	// value, and may reject unrecognized values. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta returns the receiver so that every object embedding TypeMeta
// satisfies Object's TypeMeta accessor.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is metadata that all persisted resources must have, which
// includes all objects users must create.
// ---
// ObjectMeta is the metadata of a persisted object. It mirrors metav1.ObjectMeta;
// the store owns uid, resourceVersion, generation and creationTimestamp.
type ObjectMeta struct {
	// Name must be unique within a namespace. Is required when creating
	// resources, although some resources may allow a client to request the
	// generation of an appropriate name automatically. Name is primarily intended
	// for creation idempotence and configuration definition. Cannot be updated.
	// More info:
	// https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// GenerateName is an optional prefix, used by the server, to generate a
	// unique name ONLY IF the Name field has not been provided.
	GenerateName string `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	// Namespace defines the space within which each name must be unique. An empty
	// namespace is equivalent to the "default" namespace, but "default" is the
	// canonical representation. Not all objects are required to be scoped to a
	// namespace - the value of this field for those objects will be empty.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// Deprecated: selfLink is a legacy read-only field that is no longer
	// populated by the system.
	SelfLink string `json:"selfLink,omitempty" protobuf:"bytes,4,opt,name=selfLink"`
	// UID is the unique in time and space value for this object. Populated by the
	// system. Read-only.
	UID string `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid"`
	// An opaque value that represents the internal version of this object that
	// can be used by clients to determine when objects have changed. Populated by
	// the system. Read-only.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// A sequence number representing a specific generation of the desired state.
	// Populated by the system. Read-only.
	Generation int64 `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	// CreationTimestamp is a timestamp representing the server time when this
	// object was created. Populated by the system. Read-only. Null for lists.
	// ---
	// aggsim writes a zero value as null, as kube-apiserver 1.33 does;
	// JSON decoded from protobuf leaves it out, as the current upstream
	// type (omitzero since apimachinery 0.34) does.
	// +optional
	// +protobuf:emit=omitempty
	CreationTimestamp Time `json:"creationTimestamp" protobuf:"bytes,8,opt,name=creationTimestamp"`
	// DeletionTimestamp is RFC 3339 date and time at which this resource will be
	// deleted. Populated by the system when a graceful deletion is requested.
	// Read-only.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	// Number of seconds allowed for this object to gracefully terminate before it
	// will be removed from the system. Only set when deletionTimestamp is also
	// set. Read-only.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	// Map of string keys and values that can be used to organize and categorize
	// (scope and select) objects.
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels"`
	// Annotations is an unstructured key value map stored with a resource that
	// may be set by external tools to store and retrieve arbitrary metadata.
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`
	// List of objects depended by this object.
	// +listType=map
	// +listMapKey=uid
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty" patchMergeKey:"uid" patchStrategy:"merge" protobuf:"bytes,13,rep,name=ownerReferences"`
	// Must be empty before the object is deleted from the registry. Each entry is
	// an identifier for the responsible component that will remove the entry from
	// the list.
	// +listType=set
	Finalizers []string `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`
	// ManagedFields maps workflow-id and version to the set of fields that are
	// managed by that workflow.
	// +listType=atomic
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// GetObjectMeta returns the receiver so that every object embedding
// ObjectMeta satisfies Object's ObjectMeta accessor.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// OwnerReference contains enough information to let you identify an owning
// object. An owning object must be in the same namespace as the dependent, or
// be cluster-scoped, so there is no namespace field.
// ---
// OwnerReference mirrors metav1.OwnerReference.
// +structType=atomic
type OwnerReference struct {
	// API version of the referent.
	APIVersion string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	// Kind of the referent.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// Name of the referent.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// UID of the referent.
	UID string `json:"uid" protobuf:"bytes,4,opt,name=uid"`
	// If true, this reference points to the managing controller.
	Controller *bool `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	// If true, AND if the owner has the "foregroundDeletion" finalizer, then the
	// owner cannot be deleted from the key-value store until this reference is
	// removed.
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the
// resource that the fieldset applies to.
// ---
// ManagedFieldsEntry mirrors metav1.ManagedFieldsEntry: which manager owns
// which fields (fieldsV1), as server-side apply computes them (see
// fieldmanager.go).
type ManagedFieldsEntry struct {
	// Manager is an identifier of the workflow managing these fields.
	Manager string `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	// Operation is the type of operation which lead to this ManagedFieldsEntry
	// being created. The only valid values for this field are 'Apply' and
	// 'Update'.
	Operation string `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation"`
	// APIVersion defines the version of this resource that this field set applies
	// to.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	// Time is the timestamp of when the ManagedFields entry was added.
	Time *Time `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	// FieldsType is the discriminator for the different fields format and
	// version. There is currently only one possible value: "FieldsV1"
	FieldsType string `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	// FieldsV1 holds the first JSON version format as described in the "FieldsV1"
	// type.
	FieldsV1 FieldsV1 `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	// Subresource is the name of the subresource used to update that object, or
	// empty string if the object was updated through the main resource.
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// ListMeta describes metadata that synthetic resources must have, including
// lists and various status objects.
// ---
// ListMeta mirrors metav1.ListMeta: the resourceVersion of a list and the
// continue token for the next page.
type ListMeta struct {
	// Deprecated: selfLink is a legacy read-only field that is no longer
	// populated by the system.
	SelfLink string `json:"selfLink,omitempty" protobuf:"bytes,1,opt,name=selfLink"`
	// String that identifies the server's internal version of this object that
	// can be used by clients to determine when objects have changed.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	// continue may be set if the user set a limit on the number of items
	// returned, and indicates that the server has more data available.
	Continue string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	// remainingItemCount is the number of subsequent items in the list which are
	// not included in this list response.
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"varint,4,opt,name=remainingItemCount"`
}

// Time is a wrapper around time.Time which supports correct marshaling to YAML
// and JSON.  Wrappers are provided for many of the factory methods that the
// time package offers.
// ---
// Time is a wall-clock instant with second precision that encodes as RFC 3339
// in UTC ("2006-01-02T15:04:05Z") and as JSON null when zero, like metav1.Time.
// +openapi:type=string
// +openapi:format=date-time
type Time struct {
	time.Time
}

// NewTime truncates t to whole seconds, as metav1.NewTime's serialisation does.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

// MarshalJSON encodes the time as RFC 3339 UTC, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON accepts RFC 3339 strings and null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local()
	return nil
}

// Status is a return value for calls that don't return other objects.
// ---
// Status is the metav1.Status object every API error is reported as.
type Status struct {
	TypeMeta `json:",inline"`
	// Standard list metadata. More info:
	// https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds
	// +optional
	ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// Status of the operation. One of: "Success" or "Failure".
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// A human-readable description of the status of this operation.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// A machine-readable description of why this operation is in the "Failure"
	// status.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Extended data associated with the reason.
	// +listType=atomic
	Details *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	// Suggested HTTP return code for this status, 0 if not set.
	Code int32 `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// StatusDetails is a set of additional properties that MAY be set by the
// server to provide additional information about a response.
// ---
// StatusDetails mirrors metav1.StatusDetails.
type StatusDetails struct {
	// The name attribute of the resource associated with the status StatusReason
	// (when there is a single name which can be described).
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// The group attribute of the resource associated with the status
	// StatusReason.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// The kind attribute of the resource associated with the status StatusReason.
	Kind string `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	// UID of the resource.
	UID string `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
	// The Causes array includes more details associated with the StatusReason
	// failure.
	// +listType=atomic
	Causes []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	// If specified, the time in seconds before the operation should be retried.
	RetryAfterSeconds int32 `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// StatusCause provides more information about an api.Status failure, including
// cases when multiple errors are encountered.
// ---
// StatusCause mirrors metav1.StatusCause.
type StatusCause struct {
	// A machine-readable description of the cause of the error.
	Reason string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	// A human-readable description of the cause of the error.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// The field of the resource that has caused this error, as named by its JSON
	// serialization.
	Field string `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// Condition contains details for one aspect of the current state of this API
// Resource.
// ---
// Condition is the shape shared by status conditions (metav1.Condition-like,
// as APIServiceCondition is). Reason and Message carry upstream's default
// "" in the OpenAPI documents (upstream's json tags have no omitempty).
type Condition struct {
	// type of condition in CamelCase or in foo.example.com/CamelCase.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// status of the condition, one of True, False, Unknown.
	Status string `json:"status" protobuf:"bytes,2,opt,name=status"`
	// observedGeneration represents the .metadata.generation that the condition
	// was set based upon.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// lastTransitionTime is the last time the condition transitioned from one
	// status to another.
	// +required
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// reason contains a programmatic identifier indicating the reason for the
	// condition's last transition.
	// ---
	// JSON decoded from protobuf always has it, as upstream's json tag has
	// no omitempty; aggsim's own JSON leaves it out when empty.
	// +required
	// +protobuf:emit=always
	// +default=""
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// message is a human readable message indicating details about the
	// transition.
	// ---
	// Like Reason, always in JSON decoded from protobuf.
	// +required
	// +protobuf:emit=always
	// +default=""
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// Preconditions must be fulfilled before an operation (update, delete, etc.)
// is carried out.
// ---
// Preconditions mirrors metav1.Preconditions: a delete (or update) must
// fail with 409 Conflict unless the stored object has this UID and
// resourceVersion (each checked only when set).
type Preconditions struct {
	// Specifies the target UID.
	UID *string `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid"`
	// Specifies the target ResourceVersion
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// DeleteOptions may be provided when deleting an API object.
// ---
// DeleteOptions mirrors metav1.DeleteOptions: the optional body of a
// DELETE (registry/rest reads it).
type DeleteOptions struct {
	TypeMeta `json:",inline"`
	// The duration in seconds before the object should be deleted.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	// Must be fulfilled before a deletion is carried out.
	Preconditions *Preconditions `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	// Deprecated: please use the PropagationPolicy, this field will be deprecated
	// in 1.7.
	OrphanDependents *bool `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	// Whether and how garbage collection will be performed.
	PropagationPolicy *string `json:"propagationPolicy,omitempty" protobuf:"bytes,4,opt,name=propagationPolicy"`
	// When present, indicates that modifications should not be persisted.
	// +listType=atomic
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
	// if set to true, the object is deleted even when it cannot be read
	// from storage (a corrupt object), skipping finalizers and
	// preconditions. Unsafe; aggsim's storage never holds an object it
	// cannot read, so it has no effect there.
	// ---
	// IgnoreStoreReadErrorWithClusterBreakingPotential is accepted and
	// ignored: aggsim's storage never holds an object it cannot decode.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty" protobuf:"varint,6,opt,name=ignoreStoreReadErrorWithClusterBreakingPotential"`
}

// FieldsV1 stores a set of fields in a data structure like a Trie, in JSON
// format.
// ---
// FieldsV1 is the JSON of a managed-fields set
// (metav1.ManagedFieldsEntry.FieldsV1), kept verbatim like a
// json.RawMessage: nil is absent (written as null).
// +openapi:type=object
type FieldsV1 []byte

// MarshalJSON returns f, or null when f is nil.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	return f, nil
}

// UnmarshalJSON keeps a copy of b.
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if f == nil {
		return errors.New("meta.FieldsV1: UnmarshalJSON on nil pointer")
	}
	*f = append((*f)[0:0], b...)
	return nil
}

// Patch is provided to give a concrete name and type to the Kubernetes PATCH
// request body.
// ---
// Patch is the body of a PATCH request (metav1.Patch); it exists to be
// described in the OpenAPI documents, as upstream's does.
type Patch struct{}

// Event represents a single event to a watched resource.
// ---
// WatchEvent is one line of a watch response (metav1.WatchEvent), as
// registry/rest writes it.
type WatchEvent struct {
	// ---
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Object is:
	//  * If Type is Added or Modified: the new state of the object.
	//  * If Type is Deleted: the state of the object immediately before deletion.
	//  * If Type is Error: *Status is recommended; other types may make sense
	//    depending on context.
	// ---
	// No default {}: kube-apiserver 1.33's WatchEvent.object has none.
	// +openapi:noDefault
	Object RawExtension `json:"object" protobuf:"bytes,2,opt,name=object"`
}

// RawExtension is used to hold extensions in external versions.
// ---
// RawExtension is an embedded object kept as its JSON
// (runtime.RawExtension).
// +upstreamPackage=k8s.io/apimachinery/pkg/runtime
type RawExtension struct {
	// Raw is the object's JSON.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON returns the embedded JSON, or null when there is none.
func (r RawExtension) MarshalJSON() ([]byte, error) {
	if r.Raw == nil {
		return []byte("null"), nil
	}
	return r.Raw, nil
}

// UnmarshalJSON keeps a copy of b; null leaves no object.
func (r *RawExtension) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		r.Raw = nil
		return nil
	}
	r.Raw = append(r.Raw[0:0], b...)
	return nil
}

// LabelSelector picks objects by their labels: an object matches when it
// meets every matchLabels entry and every matchExpressions requirement. An
// empty selector matches everything; an absent one nothing.
// ---
// The wire form of metav1.LabelSelector (admission webhooks and policies,
// RBAC aggregation rules); ParsedLabelSelector is the parsed form of the
// labelSelector query parameter. Its descriptions are the ones aggsim's
// OpenAPI documents published while rbac and admissionregistration had
// their own copies of this type.
// +structType=atomic
type LabelSelector struct {
	// Labels the object must have with exactly these values.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	// Further requirements on labels, all of which must hold.
	// +optional
	// +listType=atomic
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one condition on a label: its key, an
// operator and, for In and NotIn, the values.
// ---
// The wire form of a label selector's matchExpressions entry (admission
// webhooks and policies, RBAC aggregation rules) and of a
// SubjectAccessReview's parsed label selector requirements. Its
// descriptions are the ones aggsim's OpenAPI documents published while
// rbac had its own copy of this type.
type LabelSelectorRequirement struct {
	// The label's key.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// In, NotIn, Exists or DoesNotExist.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=LabelSelectorOperator"`
	// The values In and NotIn compare with (at least one); empty for
	// Exists and DoesNotExist.
	// +optional
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// FieldSelectorRequirement is one requirement on a field: its path, an
// operator and the values the operator compares with.
// ---
// The wire form of a SubjectAccessReview's parsed field selector
// requirements (upstream metav1.FieldSelectorRequirement).
type FieldSelectorRequirement struct {
	// The field path the requirement is about, for example
	// "metadata.name".
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// How the field's value is compared: In, NotIn, Exists or
	// DoesNotExist.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=k8s.io/apimachinery/pkg/selection.Operator"`
	// The values In and NotIn compare with (at least one); empty for
	// Exists and DoesNotExist.
	// +optional
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}
