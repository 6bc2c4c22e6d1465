package registry

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/authorization"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GenericObject is a stored object whose body aggsim keeps verbatim: the
// metadata is interpreted, spec, status and webhooks are raw JSON. It backs
// resources aggsim must store, list and watch for real backends (admission
// and flow-control configuration) without modelling their schemas.
// Which of the three body fields a kind has is its GenericStrategy's
// Shape; the others are dropped on write. Unknown fields inside the raw
// bodies are kept and never reported by field validation.
type GenericObject struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Webhooks is the top-level list of Mutating/ValidatingWebhookConfiguration.
	Webhooks json.RawMessage `json:"webhooks,omitempty"`
	// Spec and Status are the object's spec and status, as sent.
	Spec   json.RawMessage `json:"spec,omitempty"`
	Status json.RawMessage `json:"status,omitempty"`
}

// GenericShape says which body fields a GenericObject kind has.
type GenericShape int

const (
	// ShapeWebhooks is a top-level "webhooks" list (webhook configurations).
	ShapeWebhooks GenericShape = iota
	// ShapeSpec is "spec" only (e.g. ValidatingAdmissionPolicyBinding).
	ShapeSpec
	// ShapeSpecStatus is "spec" plus "status" served at /status.
	ShapeSpecStatus
)

// GenericStrategy is the Strategy of a GenericObject resource. Create
// clears status; an update of the main resource keeps the old status and
// bumps generation when the body changed; a /status write keeps everything
// but status. Validation checks metadata.name (DNS subdomain), the
// cluster/namespace scope and then runs ValidateFn. Its behaviour mirrors
// the strategies of upstream's pkg/registry/admissionregistration and
// pkg/registry/flowcontrol, minus defaulting and deep validation.
type GenericStrategy struct {
	// Resource describes the resource (HasStatus must agree with Shape).
	Resource ResourceInfo
	// Shape selects the body fields kept.
	Shape GenericShape
	// WireType is the Go type that describes the kind's wire form (for
	// example admissionregistration.ValidatingAdmissionPolicy); its
	// package also holds the list kind's type. The OpenAPI definitions
	// are derived from it; objects are still stored as GenericObjects.
	WireType reflect.Type
	// Columns are the table columns besides NAME (first) and AGE (at
	// AgeIndex); Row returns the matching cells (nil Row: empty cells).
	Columns []meta.TableColumnDefinition
	Row     func(o *GenericObject) []any
	// AgeIndex is where AGE sits among Columns (0 means after them all).
	AgeIndex int
	// RowOrder, when set, orders a list's table rows (a cmp function);
	// nil keeps the store's order.
	RowOrder func(a, b *GenericObject) int
	// ValidateFn adds kind-specific checks of a new or updated object;
	// nil means none.
	ValidateFn func(o *GenericObject) meta.FieldErrors
	// DefaultFn sets the kind's defaults on a decoded object (typed over
	// the raw bodies, re-encoded in upstream's field order); nil means
	// none. It must leave bodies it cannot decode as they are, for
	// ValidateFn to report.
	DefaultFn func(o *GenericObject)
	// ZeroSpec is the spec of the kind's empty object as upstream encodes
	// it (non-omitempty fields of a zero spec, e.g. FlowSchema's
	// {"priorityLevelConfiguration":{"name":""},"matchingPrecedence":0}),
	// so that New, the "before" of a create's managedFields, is upstream's
	// empty object; nil means none.
	ZeroSpec json.RawMessage
	// MergeKeysMap are the strategic-merge-patch keys (PatchMetaProvider).
	MergeKeysMap map[string]string
	// SetPaths are the dotted paths of +listType=set lists of scalars,
	// owned per value (`v:"Audit"`) in managedFields; AtomicPaths those of
	// +structType=atomic structs and +mapType=atomic maps, owned as one
	// field (FieldSchemaProvider). Both are upstream's OpenAPI markers
	// (x-kubernetes-list-type: set, x-kubernetes-map-type: atomic).
	SetPaths, AtomicPaths []string
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
	// NoGeneration leaves metadata.generation alone, for kinds upstream
	// tracks no generation for (Lease).
	NoGeneration bool
}

var (
	_ Strategy            = GenericStrategy{}
	_ PatchMetaProvider   = GenericStrategy{}
	_ Defaulter           = GenericStrategy{}
	_ TableOrderer        = GenericStrategy{}
	_ FieldSchemaProvider = GenericStrategy{}
)

// ListMapKeys declares SetPaths as lists without keys: sets of scalars
// (FieldSchemaProvider).
func (s GenericStrategy) ListMapKeys() map[string][]string {
	m := make(map[string][]string, len(s.SetPaths))
	for _, p := range s.SetPaths {
		m[p] = []string{}
	}
	return m
}

// AtomicMaps returns AtomicPaths (FieldSchemaProvider).
func (s GenericStrategy) AtomicMaps() []string { return s.AtomicPaths }

// Info returns Resource.
func (s GenericStrategy) Info() ResourceInfo { return s.Resource }

// New returns an empty *GenericObject, with ZeroSpec as its spec and, for
// a kind with status, "{}" as its status (upstream's status structs are
// never omitted).
func (s GenericStrategy) New() meta.Object {
	o := &GenericObject{}
	if len(s.ZeroSpec) > 0 {
		o.Spec = append(json.RawMessage(nil), s.ZeroSpec...)
	}
	if s.Shape == ShapeSpecStatus {
		o.Status = json.RawMessage("{}")
	}
	return o
}

// Default runs DefaultFn after dropping the body fields the kind does not
// have (upstream's decoder drops unknown fields before defaulting) and an
// empty or null webhooks list: upstream's Webhooks field is omitempty, so
// `"webhooks":[]` is neither written back nor owned in managedFields.
func (s GenericStrategy) Default(obj meta.Object) {
	o := obj.(*GenericObject)
	s.shapeFields(o)
	if w := bytes.TrimSpace(o.Webhooks); len(w) > 0 && (string(w) == "null" || isEmptyJSONList(w)) {
		o.Webhooks = nil
	}
	if s.DefaultFn != nil {
		s.DefaultFn(o)
	}
}

// shapeFields drops the body fields the kind does not have.
func (s GenericStrategy) shapeFields(o *GenericObject) {
	switch s.Shape {
	case ShapeWebhooks:
		o.Spec, o.Status = nil, nil
	case ShapeSpec:
		o.Webhooks, o.Status = nil, nil
	case ShapeSpecStatus:
		o.Webhooks = nil
	}
}

// PrepareForCreate drops foreign fields and resets status to the empty
// "{}", as upstream's PrepareForCreate of every status-bearing kind does.
func (s GenericStrategy) PrepareForCreate(obj meta.Object) {
	o := obj.(*GenericObject)
	s.shapeFields(o)
	o.Status = nil
	if s.Shape == ShapeSpecStatus {
		o.Status = json.RawMessage("{}")
	}
	if !s.NoGeneration {
		o.Generation = 1 // admission and flow-control kinds track generation upstream
	}
}

// PrepareForUpdate keeps the old status and bumps generation when spec
// (or webhooks) changed.
func (s GenericStrategy) PrepareForUpdate(obj, old meta.Object) {
	o, p := obj.(*GenericObject), old.(*GenericObject)
	s.shapeFields(o)
	o.Status = p.Status
	if s.NoGeneration {
		return
	}
	changed := !jsonEqual(o.Spec, p.Spec) || !jsonEqual(o.Webhooks, p.Webhooks)
	BumpGeneration(&o.ObjectMeta, &p.ObjectMeta, changed)
}

// PrepareForStatusUpdate keeps everything but status (and the metadata a
// /status write may change) from old.
func (s GenericStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	o, p := obj.(*GenericObject), old.(*GenericObject)
	o.Webhooks, o.Spec = p.Webhooks, p.Spec
	keepMetadataForStatus(&o.ObjectMeta, &p.ObjectMeta)
}

// Validate checks name, scope, the raw bodies' JSON type and ValidateFn.
func (s GenericStrategy) Validate(obj meta.Object) meta.FieldErrors {
	o := obj.(*GenericObject)
	errs := meta.ValidateObjectMeta(&o.ObjectMeta, s.Resource.Namespaced, meta.NameIsDNSSubdomain)
	errs = append(errs, s.validateBody(o)...)
	return errs
}

// ValidateUpdate checks the updated object as Validate does.
func (s GenericStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	o := obj.(*GenericObject)
	errs := meta.ValidateObjectMetaUpdate(&o.ObjectMeta, &old.(*GenericObject).ObjectMeta)
	errs = append(errs, meta.ValidateNamespaceField(&o.ObjectMeta, s.Resource.Namespaced)...)
	return append(errs, s.validateBody(o)...)
}

func (s GenericStrategy) validateBody(o *GenericObject) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(o.Webhooks) > 0 && !isJSONKind(o.Webhooks, '[') {
		errs = append(errs, meta.Invalid("webhooks", string(o.Webhooks), "must be a list"))
	}
	if len(o.Spec) > 0 && !isJSONKind(o.Spec, '{') {
		errs = append(errs, meta.Invalid("spec", string(o.Spec), "must be an object"))
	}
	if len(o.Status) > 0 && !isJSONKind(o.Status, '{') {
		errs = append(errs, meta.Invalid("status", string(o.Status), "must be an object"))
	}
	if len(errs) == 0 && s.ValidateFn != nil {
		errs = append(errs, s.ValidateFn(o)...)
	}
	return errs
}

// Canonicalize turns JSON null bodies into absent ones; the status of a
// kind with status is "{}" then, as upstream encodes an empty status.
func (s GenericStrategy) Canonicalize(obj meta.Object) {
	o := obj.(*GenericObject)
	for _, f := range []*json.RawMessage{&o.Webhooks, &o.Spec, &o.Status} {
		if bytes.Equal(bytes.TrimSpace(*f), []byte("null")) {
			*f = nil
		}
	}
	if s.Shape == ShapeSpecStatus && len(o.Status) == 0 {
		o.Status = json.RawMessage("{}")
	}
}

// encodeBody encodes a typed body as upstream does (no HTML escaping).
func encodeBody(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// decodeBody decodes a stored body (spec, webhooks, ...) into v; an absent
// body leaves v as it is. Errors are encoding/json's.
func decodeBody(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// recode decodes raw into v, applies def and re-encodes it into *raw;
// raw is left as it was when it does not decode.
func recode[T any](raw *json.RawMessage, def func(*T)) {
	var v T
	if len(*raw) > 0 && json.Unmarshal(*raw, &v) != nil {
		return
	}
	def(&v)
	if b, err := encodeBody(&v); err == nil {
		*raw = b
	}
}

// TableColumns are NAME, Columns with AGE at AgeIndex.
func (s GenericStrategy) TableColumns() []meta.TableColumnDefinition {
	cols := []meta.TableColumnDefinition{nameColumn()}
	at := s.ageIndex()
	cols = append(cols, s.Columns[:at]...)
	cols = append(cols, ageColumn())
	return append(cols, s.Columns[at:]...)
}

func (s GenericStrategy) ageIndex() int {
	if s.AgeIndex <= 0 || s.AgeIndex > len(s.Columns) {
		return len(s.Columns)
	}
	return s.AgeIndex
}

// TableRow returns the cells of TableColumns.
func (s GenericStrategy) TableRow(obj meta.Object) []any {
	o := obj.(*GenericObject)
	var extra []any
	if s.Row != nil {
		extra = s.Row(o)
	}
	for len(extra) < len(s.Columns) {
		extra = append(extra, "")
	}
	at := s.ageIndex()
	row := []any{o.Name}
	row = append(row, extra[:at]...)
	row = append(row, meta.TableAge(o.CreationTimestamp, nowOr(s.Now)))
	return append(row, extra[at:]...)
}

// OrderTableRows sorts objs by RowOrder (stable), if set.
func (s GenericStrategy) OrderTableRows(objs []meta.Object) {
	if s.RowOrder == nil {
		return
	}
	slices.SortStableFunc(objs, func(a, b meta.Object) int { return s.RowOrder(a.(*GenericObject), b.(*GenericObject)) })
}

// MergeKeys returns MergeKeysMap.
func (s GenericStrategy) MergeKeys() map[string]string { return s.MergeKeysMap }

// AllowUnconditionalUpdate is true, as for every admission and flow-control
// kind upstream.
func (GenericStrategy) AllowUnconditionalUpdate() bool { return true }

// isEmptyJSONList reports whether raw is a JSON list without elements.
func isEmptyJSONList(raw []byte) bool {
	var l []json.RawMessage
	return isJSONKind(raw, '[') && json.Unmarshal(raw, &l) == nil && len(l) == 0
}

// isJSONKind reports whether raw JSON starts with the given delimiter.
func isJSONKind(raw json.RawMessage, delim byte) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == delim
}

// jsonEqual compares two raw JSON values semantically.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// rawField decodes a dotted path ("priorityLevelConfiguration.name") from a
// raw JSON object; nil when absent.
func rawField(raw json.RawMessage, path ...string) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// ReviewStrategy describes a create-only, never stored review resource
// (tokenreviews, subjectaccessreviews, ...) for routing and discovery. The
// aggregator answers POSTs to these resources itself
// (aggregator/reviews.go, mirroring kube-apiserver's
// pkg/registry/authentication and pkg/registry/authorization REST
// storages); the generic store behind this strategy only ever sees other
// verbs (405 MethodNotAllowed, since Verbs is [create]) and, should a
// create reach it, Validate refuses it so nothing is persisted.
type ReviewStrategy struct {
	// Resource describes the resource; Verbs should be ["create"].
	Resource ResourceInfo
}

var _ Strategy = ReviewStrategy{}

// Info returns Resource.
func (s ReviewStrategy) Info() ResourceInfo { return s.Resource }

// New returns an empty *GenericObject (reviews are decoded elsewhere).
func (ReviewStrategy) New() meta.Object { return &GenericObject{} }

// PrepareForCreate does nothing.
func (ReviewStrategy) PrepareForCreate(meta.Object) {}

// PrepareForUpdate does nothing.
func (ReviewStrategy) PrepareForUpdate(obj, old meta.Object) {}

// PrepareForStatusUpdate does nothing.
func (ReviewStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Validate always refuses: reviews are answered, never stored.
func (s ReviewStrategy) Validate(meta.Object) meta.FieldErrors {
	return meta.FieldErrors{meta.Forbidden("metadata", s.Resource.Kind+" objects are answered, not stored")}
}

// ValidateUpdate always refuses, as Validate.
func (s ReviewStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors { return s.Validate(obj) }

// Canonicalize does nothing.
func (ReviewStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME and AGE.
func (ReviewStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{nameColumn(), ageColumn()}
}

// TableRow returns the name and an empty age.
func (ReviewStrategy) TableRow(obj meta.Object) []any {
	return []any{obj.GetObjectMeta().Name, "<unknown>"}
}

// reviewInfo builds the ResourceInfo of a create-only review kind.
func reviewInfo(group, kind, resource string, namespaced bool) ResourceInfo {
	return ResourceInfo{
		Group: group, Version: VersionV1,
		Kind: kind, ListKind: kind + "List",
		Resource: resource, Singular: strings.ToLower(kind),
		Namespaced: namespaced,
		Verbs:      []string{"create"},
		NotStored:  true,
	}
}

// ReviewStrategies returns the review resources kube-apiserver 1.33 lists
// in authentication.k8s.io/v1 (selfsubjectreviews, tokenreviews) and
// authorization.k8s.io/v1 (localsubjectaccessreviews namespaced;
// selfsubjectaccessreviews, selfsubjectrulesreviews, subjectaccessreviews),
// all verbs [create], no short names or categories (capture
// a-discovery/apis.aggregated.v2.json). They are kept out of Strategies so
// that OpenAPI and the stored-resource tests see only stored kinds; the
// aggregator adds them to its API.
func ReviewStrategies() []Strategy {
	return []Strategy{
		ReviewStrategy{reviewInfo(authentication.GroupAuthentication, "SelfSubjectReview", "selfsubjectreviews", false)},
		ReviewStrategy{reviewInfo(authentication.GroupAuthentication, "TokenReview", "tokenreviews", false)},
		ReviewStrategy{reviewInfo(authorization.GroupAuthorization, "LocalSubjectAccessReview", "localsubjectaccessreviews", true)},
		ReviewStrategy{reviewInfo(authorization.GroupAuthorization, "SelfSubjectAccessReview", "selfsubjectaccessreviews", false)},
		ReviewStrategy{reviewInfo(authorization.GroupAuthorization, "SelfSubjectRulesReview", "selfsubjectrulesreviews", false)},
		ReviewStrategy{reviewInfo(authorization.GroupAuthorization, "SubjectAccessReview", "subjectaccessreviews", false)},
	}
}
