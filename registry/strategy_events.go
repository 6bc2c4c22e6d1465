package registry

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// EventStrategy is the Strategy of core/v1 events
// (kubernetes/pkg/registry/core/event/strategy.go): no defaults, upstream's
// legacy event validation, and its field selectors (involvedObject.*,
// reason, reportingComponent, source, type), which `kubectl describe`
// uses to find an object's events. aggsim records no events itself. The
// zero value is ready to use.
type EventStrategy struct {
	// Now is the clock for LAST SEEN and FIRST SEEN cells; nil means
	// time.Now.
	Now func() time.Time
}

var (
	_ Strategy                        = EventStrategy{}
	_ meta.FieldsProvider             = EventStrategy{}
	_ GarbageCollectionDeleteStrategy = EventStrategy{}
)

// Info describes events as /api/v1 discovery does (short name ev).
func (EventStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "Event", ListKind: "EventList",
		Resource: "events", Singular: "event",
		ShortNames: []string{"ev"},
		Namespaced: true,
		Verbs:      crudVerbs,
	}
}

// New returns an empty *Event.
func (EventStrategy) New() meta.Object { return &core.Event{} }

// PrepareForCreate does nothing: events are stored as sent.
func (EventStrategy) PrepareForCreate(meta.Object) {}

// PrepareForUpdate does nothing: events have no status.
func (EventStrategy) PrepareForUpdate(obj, old meta.Object) {}

// PrepareForStatusUpdate is never called: events have no /status.
func (EventStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Validate runs ValidateEvent and, when it passes, the generic ObjectMeta
// validation, in the order upstream's store runs them.
func (EventStrategy) Validate(obj meta.Object) meta.FieldErrors {
	e := obj.(*core.Event)
	if errs := core.ValidateEvent(e); len(errs) > 0 {
		return errs
	}
	return core.ValidateEventMeta(e)
}

// ValidateUpdate runs the metadata update rules and ValidateEvent.
func (EventStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	e, o := obj.(*core.Event), old.(*core.Event)
	return append(meta.ValidateObjectMetaUpdate(&e.ObjectMeta, &o.ObjectMeta), core.ValidateEvent(e)...)
}

// Canonicalize does nothing for events.
func (EventStrategy) Canonicalize(meta.Object) {}

// TableColumns are upstream's event columns (printers.go): LAST SEEN,
// TYPE, REASON, OBJECT, SUBOBJECT, SOURCE, MESSAGE, FIRST SEEN, COUNT and
// NAME, the wide ones at priority 1.
func (EventStrategy) TableColumns() []meta.TableColumnDefinition {
	wide := func(c meta.TableColumnDefinition) meta.TableColumnDefinition { c.Priority = 1; return c }
	name := nameColumn()
	name.Priority = 1
	return []meta.TableColumnDefinition{
		stringColumn("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
		stringColumn("Type", "Type of this event (Normal, Warning), new types could be added in the future."),
		stringColumn("Reason", "This should be a short, machine understandable string that gives the reason for this event being generated."),
		stringColumn("Object", "The object that this event is about."),
		wide(stringColumn("Subobject", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.")),
		wide(stringColumn("Source", "The component reporting this event. Should be a short machine understandable string.")),
		stringColumn("Message", "A human-readable description of the status of this operation."),
		wide(stringColumn("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)")),
		wide(stringColumn("Count", "The number of times this event has occurred.")),
		name,
	}
}

// TableRow is upstream's printEvent with wide output: ages of the last and
// first occurrence (falling back to eventTime and series), type, reason,
// "<kind>/<name>" of the involved object, its fieldPath, the source
// ("component[, host]" or the reporting controller and instance), the
// trimmed message, the count (1 for a singleton) and the name.
func (s EventStrategy) TableRow(obj meta.Object) []any {
	e := obj.(*core.Event)
	now := nowOr(s.Now)
	micro := func(t meta.MicroTime) string { return meta.TableAge(meta.Time{Time: t.Time}, now) }
	first := meta.TableAge(e.FirstTimestamp, now)
	if e.FirstTimestamp.IsZero() {
		first = micro(e.EventTime)
	}
	last := meta.TableAge(e.LastTimestamp, now)
	if e.LastTimestamp.IsZero() {
		last = first
	}
	count := e.Count
	if e.Series != nil {
		last = micro(e.Series.LastObservedTime)
		count = e.Series.Count
	} else if count == 0 {
		count = 1
	}
	target := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		target += "/" + e.InvolvedObject.Name
	}
	component, instance := eventSource(e), e.Source.Host
	if instance == "" {
		instance = e.ReportingInstance
	}
	source := component
	if instance != "" {
		source += ", " + instance
	}
	return []any{last, e.Type, e.Reason, target, e.InvolvedObject.FieldPath, source,
		strings.TrimSpace(e.Message), first, int64(count), e.Name}
}

// SelectableFields are upstream's event field selectors
// (event/strategy.go ToSelectableFields): the involved object's fields,
// reason, reportingComponent, source (the component, else the reporting
// controller) and type.
func (EventStrategy) SelectableFields(obj meta.Object) map[string]string {
	e := obj.(*core.Event)
	return map[string]string{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             e.InvolvedObject.UID,
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         eventSource(e),
		"type":                           e.Type,
	}
}

// eventSource is an event's source component, else its reporting
// controller (upstream's printer and its "source" field selector).
func eventSource(e *core.Event) string {
	if e.Source.Component != "" {
		return e.Source.Component
	}
	return e.ReportingController
}

// AtomicMaps: involvedObject and related are +structType=atomic
// (FieldSchemaProvider).
func (EventStrategy) AtomicMaps() []string { return []string{"involvedObject", "related"} }

// ListMapKeys: events have no keyed lists (FieldSchemaProvider).
func (EventStrategy) ListMapKeys() map[string][]string { return nil }

// AllowCreateOnUpdate is true: PUT of a missing event creates it.
func (EventStrategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is true for events.
func (EventStrategy) AllowUnconditionalUpdate() bool { return true }

// ResourceQuotaStrategy is the Strategy of core/v1 resourcequotas
// (kubernetes/pkg/registry/core/resourcequota/strategy.go): status is
// cleared on create and kept on update, written only through /status;
// resource lists are rounded to thousandths; upstream's validation. aggsim
// runs no quota controller and enforces nothing, like a kube-apiserver
// without a controller manager: status stays {} until written. The zero
// value is ready to use.
type ResourceQuotaStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var (
	_ Strategy              = ResourceQuotaStrategy{}
	_ StatusValidator       = ResourceQuotaStrategy{}
	_ DeletedObjectReturner = ResourceQuotaStrategy{}
)

// Info describes resourcequotas as /api/v1 discovery does (short name
// quota, a status subresource).
func (ResourceQuotaStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "ResourceQuota", ListKind: "ResourceQuotaList",
		Resource: "resourcequotas", Singular: "resourcequota",
		ShortNames:  []string{"quota"},
		Namespaced:  true,
		Verbs:       crudVerbs,
		HasStatus:   true,
		StatusVerbs: statusVerbs,
	}
}

// New returns an empty *ResourceQuota.
func (ResourceQuotaStrategy) New() meta.Object { return &core.ResourceQuota{} }

// PrepareForCreate clears status.
func (ResourceQuotaStrategy) PrepareForCreate(obj meta.Object) {
	q := obj.(*core.ResourceQuota)
	q.Status = core.ResourceQuotaStatus{}
	core.DefaultResourceQuota(q)
}

// PrepareForUpdate keeps the stored status.
func (ResourceQuotaStrategy) PrepareForUpdate(obj, old meta.Object) {
	q := obj.(*core.ResourceQuota)
	q.Status = old.(*core.ResourceQuota).Status
	core.DefaultResourceQuota(q)
}

// PrepareForStatusUpdate keeps the stored spec.
func (ResourceQuotaStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	q := obj.(*core.ResourceQuota)
	q.Spec = old.(*core.ResourceQuota).Spec
	core.DefaultResourceQuota(q)
}

// Default applies core/v1 defaulting (Defaulter).
func (ResourceQuotaStrategy) Default(obj meta.Object) {
	core.DefaultResourceQuota(obj.(*core.ResourceQuota))
}

// Validate runs ValidateResourceQuota.
func (ResourceQuotaStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateResourceQuota(obj.(*core.ResourceQuota))
}

// ValidateUpdate runs ValidateResourceQuotaUpdate.
func (ResourceQuotaStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateResourceQuotaUpdate(obj.(*core.ResourceQuota), old.(*core.ResourceQuota))
}

// ValidateStatusUpdate runs ValidateResourceQuotaStatusUpdate
// (StatusValidator).
func (ResourceQuotaStrategy) ValidateStatusUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateResourceQuotaStatusUpdate(obj.(*core.ResourceQuota), old.(*core.ResourceQuota))
}

// Canonicalize does nothing for resource quotas.
func (ResourceQuotaStrategy) Canonicalize(meta.Object) {}

// TableColumns are upstream's: NAME, REQUEST, LIMIT, AGE.
func (ResourceQuotaStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Request", "Request represents a minimum amount of cpu/memory that a container may consume."),
		stringColumn("Limit", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
		ageColumn(),
	}
}

// TableRow is upstream's printResourceQuota: "<name>: <used>/<hard>" of
// each resource in status.hard in name order, those named "limits.*" in
// the LIMIT column, the others in REQUEST.
func (s ResourceQuotaStrategy) TableRow(obj meta.Object) []any {
	q := obj.(*core.ResourceQuota)
	var request, limit []string
	for _, k := range slices.Sorted(maps.Keys(q.Status.Hard)) {
		cell := k + ": " + q.Status.Used[k].String() + "/" + q.Status.Hard[k].String()
		if pieces := strings.Split(k, "."); len(pieces) > 1 && pieces[0] == "limits" {
			limit = append(limit, cell)
		} else {
			request = append(request, cell)
		}
	}
	return []any{q.Name, strings.Join(request, ", "), strings.Join(limit, ", "), meta.TableAge(q.CreationTimestamp, nowOr(s.Now))}
}

// AtomicMaps: spec.scopeSelector is +structType=atomic (FieldSchemaProvider).
func (ResourceQuotaStrategy) AtomicMaps() []string { return []string{"spec.scopeSelector"} }

// ListMapKeys: resource quotas have no keyed lists (FieldSchemaProvider).
func (ResourceQuotaStrategy) ListMapKeys() map[string][]string { return nil }

// ReturnDeletedObject is true: DELETE answers with the quota, as
// upstream's resourcequota storage does.
func (ResourceQuotaStrategy) ReturnDeletedObject() bool { return true }

// AllowCreateOnUpdate is true: PUT of a missing quota creates it.
func (ResourceQuotaStrategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is true for resource quotas.
func (ResourceQuotaStrategy) AllowUnconditionalUpdate() bool { return true }

// LimitRangeStrategy is the Strategy of core/v1 limitranges
// (kubernetes/pkg/registry/core/limitrange/strategy.go): Container items
// get upstream's default limits and requests, resource lists are rounded to
// thousandths, upstream's validation. aggsim admits no pods, so nothing
// applies the limits. The zero value is ready to use.
// It needs no clock: its table shows the creation time, not an age.
type LimitRangeStrategy struct{}

var _ Strategy = LimitRangeStrategy{}

// Info describes limitranges as /api/v1 discovery does (short name
// limits).
func (LimitRangeStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "LimitRange", ListKind: "LimitRangeList",
		Resource: "limitranges", Singular: "limitrange",
		ShortNames: []string{"limits"},
		Namespaced: true,
		Verbs:      crudVerbs,
	}
}

// New returns an empty *LimitRange.
func (LimitRangeStrategy) New() meta.Object { return &core.LimitRange{} }

// PrepareForCreate applies defaults.
func (LimitRangeStrategy) PrepareForCreate(obj meta.Object) {
	core.DefaultLimitRange(obj.(*core.LimitRange))
}

// PrepareForUpdate applies defaults.
func (LimitRangeStrategy) PrepareForUpdate(obj, old meta.Object) {
	core.DefaultLimitRange(obj.(*core.LimitRange))
}

// PrepareForStatusUpdate is never called: limit ranges have no /status.
func (LimitRangeStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Default applies core/v1 defaulting (Defaulter).
func (LimitRangeStrategy) Default(obj meta.Object) { core.DefaultLimitRange(obj.(*core.LimitRange)) }

// Validate runs ValidateLimitRange.
func (LimitRangeStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateLimitRange(obj.(*core.LimitRange))
}

// ValidateUpdate runs ValidateLimitRangeUpdate.
func (LimitRangeStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateLimitRangeUpdate(obj.(*core.LimitRange), old.(*core.LimitRange))
}

// Canonicalize does nothing for limit ranges.
func (LimitRangeStrategy) Canonicalize(meta.Object) {}

// TableColumns are upstream's: NAME and CREATED AT (a date).
func (LimitRangeStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(), createdAtColumn()}
}

// TableRow is upstream's printLimitRange: the name and the creation time
// in RFC 3339.
func (LimitRangeStrategy) TableRow(obj meta.Object) []any {
	l := obj.(*core.LimitRange)
	return []any{l.Name, createdAtCell(&l.ObjectMeta)}
}

// AllowCreateOnUpdate is true: PUT of a missing limit range creates it.
func (LimitRangeStrategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is true for limit ranges.
func (LimitRangeStrategy) AllowUnconditionalUpdate() bool { return true }

// DefaultGarbageCollectionPolicy is Unsupported: an event's DELETE ignores
// propagationPolicy and orphanDependents and never waits for the garbage
// collector, as upstream's eventStrategy (pkg/registry/core/event).
func (EventStrategy) DefaultGarbageCollectionPolicy() GarbageCollectionPolicy { return Unsupported }
