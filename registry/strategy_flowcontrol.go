package registry

import (
	"cmp"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/flowcontrol"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupFlowControl is the API Priority and Fairness configuration group.
const GroupFlowControl = "flowcontrol.apiserver.k8s.io"

// flowControlInfo is the ResourceInfo of a flowcontrol.apiserver.k8s.io/v1
// kind: cluster-scoped with /status, no short names or categories
// (capture a-discovery/apis.aggregated.v2.json).
func flowControlInfo(kind, resource string) ResourceInfo {
	return ResourceInfo{
		Group: GroupFlowControl, Version: VersionV1,
		Kind: kind, ListKind: kind + "List",
		Resource: resource, Singular: strings.ToLower(kind),
		Verbs:     crudVerbs,
		HasStatus: true, StatusVerbs: statusVerbs,
	}
}

// FlowControlStrategies returns the strategies of flowschemas and
// prioritylevelconfigurations (upstream pkg/registry/flowcontrol/*/strategy.go).
// aggsim does not do priority and fairness: the objects are
// GenericObjects whose specs are defaulted and validated as upstream's
// (typed by registry/apis/flowcontrol) and stored in upstream's field
// order. now is the clock for AGE cells.
func FlowControlStrategies(now func() time.Time) []Strategy {
	return []Strategy{
		GenericStrategy{
			Resource: flowControlInfo("FlowSchema", "flowschemas"),
			WireType: reflect.TypeFor[flowcontrol.FlowSchema](),
			Shape:    ShapeSpecStatus,
			Columns: []meta.TableColumnDefinition{
				{Name: "PriorityLevel", Type: "string", Description: "`name` is the name of the priority level configuration being referenced Required."},
				{Name: "MatchingPrecedence", Type: "string", Description: "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default."},
				{Name: "DistinguisherMethod", Type: "string", Description: "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string."},
				{Name: "MissingPL", Type: "string", Description: "references a broken or non-existent PriorityLevelConfiguration"},
			},
			AgeIndex:     3,
			Row:          flowSchemaRow,
			RowOrder:     flowSchemaOrder,
			DefaultFn:    defaultFlowSchema,
			ValidateFn:   validateFlowSchema,
			ZeroSpec:     json.RawMessage(`{"priorityLevelConfiguration":{"name":""},"matchingPrecedence":0}`),
			MergeKeysMap: map[string]string{"status.conditions": "type"},
			Now:          now,
		},
		GenericStrategy{
			Resource: flowControlInfo("PriorityLevelConfiguration", "prioritylevelconfigurations"),
			WireType: reflect.TypeFor[flowcontrol.PriorityLevelConfiguration](),
			Shape:    ShapeSpecStatus,
			Columns: []meta.TableColumnDefinition{
				{Name: "Type", Type: "string", Description: "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required."},
				{Name: "NominalConcurrencyShares", Type: "string", Description: "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level."},
				{Name: "Queues", Type: "string", Description: "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64."},
				{Name: "HandSize", Type: "string", Description: "`handSize` is a small positive number that configures the shuffle sharding of requests into queues."},
				{Name: "QueueLengthLimit", Type: "string", Description: "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50."},
			},
			Row:          priorityLevelRow,
			DefaultFn:    defaultPriorityLevelConfiguration,
			ValidateFn:   validatePriorityLevelConfiguration,
			ZeroSpec:     json.RawMessage(`{"type":""}`),
			MergeKeysMap: map[string]string{"status.conditions": "type"},
			Now:          now,
		},
	}
}

// defaultFlowSchema applies upstream's FlowSchema spec defaults and
// encodes spec and status in upstream's field order.
func defaultFlowSchema(o *GenericObject) {
	recode(&o.Spec, flowcontrol.DefaultFlowSchemaSpec)
	recode(&o.Status, func(*flowcontrol.FlowSchemaStatus) {})
}

// validateFlowSchema mirrors upstream's ValidateFlowSchema: the spec's
// checks, then the fixed spec of the mandatory exempt and catch-all.
func validateFlowSchema(o *GenericObject) meta.FieldErrors {
	var spec flowcontrol.FlowSchemaSpec
	if err := decodeBody(o.Spec, &spec); err != nil {
		return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
	}
	errs := flowcontrol.ValidateFlowSchemaSpec(o.Name, &spec)
	return append(errs, flowcontrol.ValidateMandatoryFlowSchema(o.Name, &spec)...)
}

// defaultPriorityLevelConfiguration applies upstream's
// PriorityLevelConfiguration spec defaults and encodes spec and status in
// upstream's field order.
func defaultPriorityLevelConfiguration(o *GenericObject) {
	recode(&o.Spec, flowcontrol.DefaultPriorityLevelConfigurationSpec)
	recode(&o.Status, func(*flowcontrol.PriorityLevelConfigurationStatus) {})
}

// validatePriorityLevelConfiguration mirrors upstream's
// ValidatePriorityLevelConfiguration: the spec's checks, then the fixed
// spec of the mandatory exempt and catch-all levels.
func validatePriorityLevelConfiguration(o *GenericObject) meta.FieldErrors {
	var spec flowcontrol.PriorityLevelConfigurationSpec
	if err := decodeBody(o.Spec, &spec); err != nil {
		return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
	}
	errs := flowcontrol.ValidatePriorityLevelConfigurationSpec(o.Name, &spec)
	return append(errs, flowcontrol.ValidateMandatoryPriorityLevel(o.Name, &spec)...)
}

// flowSchemaOrder orders FlowSchema table rows as upstream's
// printFlowSchemaList (FlowSchemaSequence): by matchingPrecedence, then
// by name.
func flowSchemaOrder(a, b *GenericObject) int {
	pa, _ := rawField(a.Spec, "matchingPrecedence").(float64)
	pb, _ := rawField(b.Spec, "matchingPrecedence").(float64)
	if c := cmp.Compare(pa, pb); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// flowSchemaRow: priority level name, matching precedence, distinguisher
// type or "<none>", and the Dangling condition's status or "?".
func flowSchemaRow(o *GenericObject) []any {
	pl, _ := rawField(o.Spec, "priorityLevelConfiguration", "name").(string)
	var prec any = "<none>"
	if p, ok := rawField(o.Spec, "matchingPrecedence").(float64); ok {
		prec = int64(p)
	}
	dist := "<none>"
	if d, ok := rawField(o.Spec, "distinguisherMethod", "type").(string); ok {
		dist = d
	}
	missing := "?"
	conds, _ := rawField(o.Status, "conditions").([]any)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Dangling" {
			if s, ok := m["status"].(string); ok {
				missing = s
			}
		}
	}
	return []any{pl, prec, dist, missing}
}

// priorityLevelRow: type, then nominalConcurrencyShares and the queuing
// parameters of spec.limited, "<none>" where absent (always for Exempt).
func priorityLevelRow(o *GenericObject) []any {
	t, _ := rawField(o.Spec, "type").(string)
	num := func(path ...string) any {
		if v, ok := rawField(o.Spec, path...).(float64); ok {
			return int64(v)
		}
		return "<none>"
	}
	// upstream's printPriorityLevelConfiguration reads only spec.limited:
	// the exempt level's shares print as <none>
	return []any{t, num("limited", "nominalConcurrencyShares"),
		num("limited", "limitResponse", "queuing", "queues"),
		num("limited", "limitResponse", "queuing", "handSize"),
		num("limited", "limitResponse", "queuing", "queueLengthLimit"),
	}
}
