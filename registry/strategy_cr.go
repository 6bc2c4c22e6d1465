package registry

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// customResourceVerbs are the discovery verbs of a custom resource, in
// kube-apiserver 1.33's order (captured: /apis/restaurant.example.com/v1beta1).
var customResourceVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// CustomResourceStrategy is the Strategy of one served version of a
// CustomResourceDefinition (upstream
// apiextensions-apiserver/pkg/registry/customresource/strategy.go and
// tableconvertor): objects are Unstructured; with the status subresource
// the main resource ignores status and /status everything else; generation
// starts at 1 and is bumped when anything but metadata (and status, with
// the subresource) changes; metadata and the version's schema (through
// NewCRSchema) are validated; tables follow additionalPrinterColumns.
type CustomResourceStrategy struct {
	crd     *apiextensions.CustomResourceDefinition
	version *apiextensions.CustomResourceDefinitionVersion
	schema  CRSchema
	rules   *celrules.Validator // x-kubernetes-validations; nil without rules
	columns []apiextensions.CustomResourceColumnDefinition
	paths   []columnPath // of columns, compiled (jsonpath_cr.go)
	// selectable are the version's selectableFields: the field selector
	// name and its path, split once
	selectable []selectableField
	// Now is the clock for date cells; nil means time.Now.
	Now func() time.Time
	// Converter converts objects between the CRD's versions (stored
	// and served); nil means None conversion (NoneConverter).
	Converter CRConverter
	// Deprecation is the Warning every request to the version gets when
	// it is deprecated (upstream's deprecationWarning or its default
	// text, which the caller computes).
	Deprecation string
	crVersionSchemas
	// derived holds what is computed from the schema once
	// (strategy_cr_derived.go).
	derived crDerived
}

var (
	_ Strategy           = (*CustomResourceStrategy)(nil)
	_ Defaulter          = (*CustomResourceStrategy)(nil)
	_ UnknownFieldPruner = (*CustomResourceStrategy)(nil)
	_ CreateAdmitter     = (*CustomResourceStrategy)(nil)
	_ ReadDefaulter      = (*CustomResourceStrategy)(nil)

	_ UpdateWarningValidator = (*CustomResourceStrategy)(nil)
)

// DefaultOnRead applies the schema's defaults to an object read from
// storage.
func (s *CustomResourceStrategy) DefaultOnRead(obj meta.Object) { s.Default(obj) }

// AdmitCreate refuses creates while the CRD is terminating, as upstream's
// crdHandler: 405 MethodNotAllowed `create not allowed while custom
// resource definition is terminating`.
func (s *CustomResourceStrategy) AdmitCreate() error {
	if s.crd.DeletionTimestamp == nil {
		return nil
	}
	e := NewMethodNotSupported(meta.GroupResource{Group: s.crd.Spec.Group, Resource: s.crd.Status.AcceptedNames.Plural}, "create")
	e.Status.Message = "create not allowed while custom resource definition is terminating"
	return e
}

// PruneUnknownFields prunes what the schema does not know (metadata is
// always kept) and returns the pruned paths.
func (s *CustomResourceStrategy) PruneUnknownFields(obj meta.Object) []string {
	u := obj.(*Unstructured)
	m, err := u.Object()
	if err != nil {
		return nil
	}
	// Upstream's order on write: prune unknown fields, then the nulls
	// that are neither nullable nor defaulted (defaults ran before).
	paths := s.schema.Prune(m)
	s.schema.PruneNulls(m)
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	u.Content = m
	return paths
}

// NewCustomResourceStrategy returns the strategy of version of crd (as
// accepted: status.acceptedNames name the resource). Errors: no such
// version, or a schema NewCRSchema refuses.
func NewCustomResourceStrategy(crd *apiextensions.CustomResourceDefinition, version string, now func() time.Time) (*CustomResourceStrategy, error) {
	i := crdVersionIndex(crd, version)
	if i < 0 {
		return nil, fmt.Errorf("%s has no version %q", crd.Name, version)
	}
	s := &CustomResourceStrategy{crd: crd, version: &crd.Spec.Versions[i], Now: now}
	if v := s.version.Schema; v != nil && v.OpenAPIV3Schema != nil {
		raw, err := json.Marshal(v.OpenAPIV3Schema)
		if err != nil {
			return nil, err
		}
		sch, errs := NewCRSchema(raw, apiextensions.SchemaPath(&crd.Spec, i))
		if len(errs) > 0 {
			return nil, fmt.Errorf("schema of %s %s: %v", crd.Name, version, errs[0])
		}
		s.schema = sch
		if st, ok := sch.(*structural.Schema); ok && len(st.Rules()) > 0 {
			s.rules, _ = celrules.Compile(st, apiextensions.SchemaPath(&crd.Spec, i)) // its errors refused the CRD
		}
	}
	if s.schema == nil {
		s.schema = acceptAllSchema{}
	}
	s.columns = s.version.AdditionalPrinterColumns
	if len(s.columns) == 0 {
		s.columns = []apiextensions.CustomResourceColumnDefinition{{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"}}
	}
	s.columns, s.paths = compileColumns(s.columns)
	for _, f := range s.version.SelectableFields {
		name := strings.TrimPrefix(f.JSONPath, ".")
		s.selectable = append(s.selectable, selectableField{name: name, path: strings.Split(name, ".")})
	}
	return s, nil
}

// crdVersionIndex returns the index of version in crd's spec.versions,
// -1 when it has none of that name.
func crdVersionIndex(crd *apiextensions.CustomResourceDefinition, version string) int {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			return i
		}
	}
	return -1
}

// hasStatus reports whether the version serves /status.
func (s *CustomResourceStrategy) hasStatus() bool {
	return s.version.Subresources != nil && s.version.Subresources.Status != nil
}

// Info describes the resource as discovery lists it: the accepted names,
// upstream's verb order, /status and /scale (autoscaling/v1 Scale).
func (s *CustomResourceStrategy) Info() ResourceInfo {
	n := s.crd.Status.AcceptedNames
	info := ResourceInfo{
		Group: s.crd.Spec.Group, Version: s.version.Name,
		Kind: n.Kind, ListKind: n.ListKind, Resource: n.Plural, Singular: n.Singular,
		ShortNames: n.ShortNames, Categories: n.Categories,
		Namespaced: s.crd.Spec.Scope == apiextensions.NamespaceScoped,
		Verbs:      customResourceVerbs,
		HasStatus:  s.hasStatus(), StatusVerbs: statusVerbs, StatusFirst: true,
	}
	if s.version.Subresources != nil && s.version.Subresources.Scale != nil {
		info.Subresources = []SubresourceInfo{{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: statusVerbs}}
	}
	for _, v := range s.crd.Spec.Versions {
		if v.Storage {
			info.StorageVersion = v.Name // every served version's hash names it
		}
	}
	return info
}

// New returns an empty Unstructured.
func (s *CustomResourceStrategy) New() meta.Object { return &Unstructured{} }

// Default applies the schema's defaults.
func (s *CustomResourceStrategy) Default(obj meta.Object) {
	u := obj.(*Unstructured)
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	s.schema.Default(u.Content)
}

// PrepareForCreate drops status when the version has the status
// subresource and sets generation 1.
func (s *CustomResourceStrategy) PrepareForCreate(obj meta.Object) {
	u := obj.(*Unstructured)
	if s.hasStatus() {
		delete(u.Content, "status")
	}
	u.Generation = 1
}

// PrepareForUpdate keeps the old status (with the status subresource) and
// bumps generation when the content changed.
func (s *CustomResourceStrategy) PrepareForUpdate(obj, old meta.Object) {
	u, o := obj.(*Unstructured), old.(*Unstructured)
	if s.hasStatus() {
		if st, ok := o.Content["status"]; ok {
			if u.Content == nil {
				u.Content = map[string]any{}
			}
			u.Content["status"] = st
		} else {
			delete(u.Content, "status")
		}
	}
	BumpGeneration(&u.ObjectMeta, &o.ObjectMeta, !contentEqual(u.Content, o.Content))
}

// PrepareForStatusUpdate keeps everything but status from old (and the
// managedFields of obj, which track the status write).
func (s *CustomResourceStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	u, o := obj.(*Unstructured), old.(*Unstructured)
	st, ok := u.Content["status"]
	mf := u.ManagedFields
	copied := &Unstructured{}
	b, _ := json.Marshal(o)
	_ = json.Unmarshal(b, copied)
	*u = *copied
	u.ManagedFields = mf
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	if ok {
		u.Content["status"] = st
	} else {
		delete(u.Content, "status")
	}
}

// Validate checks metadata (a DNS subdomain name, the scope's namespace
// rule) and the schema.
func (s *CustomResourceStrategy) Validate(obj meta.Object) meta.FieldErrors {
	u := obj.(*Unstructured)
	errs := meta.ValidateObjectMeta(&u.ObjectMeta, s.Info().Namespaced, meta.NameIsDNSSubdomain)
	cerrs, _ := s.validateContent(u, nil)
	return append(errs, cerrs...)
}

// ValidateUpdate checks metadata updates and the schema.
func (s *CustomResourceStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	errs, _ := s.ValidateUpdateWithWarnings(obj, old)
	return errs
}

// ValidateUpdateWithWarnings is ValidateUpdate that also returns the
// ratcheting warnings of the rules (failures on values the update did not
// change, which upstream 1.33 lets through with a warning), from the same
// evaluation (UpdateWarningValidator).
func (s *CustomResourceStrategy) ValidateUpdateWithWarnings(obj, old meta.Object) (meta.FieldErrors, []string) {
	u, o := obj.(*Unstructured), old.(*Unstructured)
	errs := meta.ValidateObjectMetaUpdate(&u.ObjectMeta, &o.ObjectMeta)
	errs = append(errs, meta.ValidateObjectMeta(&u.ObjectMeta, s.Info().Namespaced, meta.NameIsDNSSubdomain)...)
	cerrs, warnings := s.validateContent(u, o)
	return append(errs, cerrs...), warnings
}

// validateContent checks u (and old, nil on create) against the schema,
// then, as upstream's customresource strategy, the
// x-kubernetes-validations rules unless a schema error blocks them
// (celrules.BlockingError adds upstream's "some validation rules were not
// checked" cause instead). The warnings are the rules' ratcheted failures.
func (s *CustomResourceStrategy) validateContent(u, old *Unstructured) (meta.FieldErrors, []string) {
	m, err := u.Object()
	if err != nil {
		return meta.FieldErrors{meta.Invalid("metadata", "", err.Error())}, nil
	}
	om, err := oldObject(old)
	if err != nil {
		return meta.FieldErrors{meta.Invalid("metadata", "", err.Error())}, nil
	}
	return s.withRules(s.validateSchema(m, om), m, om) // strategy_cr_status.go
}

// withRules appends to errs (of metadata and the schema) the results of
// the x-kubernetes-validations rules on m (old om, nil on create), unless
// errs hold an error that blocks them: then upstream's "some validation
// rules were not checked" cause (celrules.BlockingError). The warnings
// are the rules' ratcheted failures.
func (s *CustomResourceStrategy) withRules(errs meta.FieldErrors, m, om map[string]any) (meta.FieldErrors, []string) {
	if s.rules == nil {
		return errs, nil
	}
	if e, blocked := celrules.BlockingError(errs); blocked {
		return append(errs, e), nil
	}
	rerrs, warnings := s.rules.ValidateWithWarnings(m, om)
	return append(errs, rerrs...), warnings
}

// oldObject is old's content as the rules see it, nil for none.
func oldObject(old *Unstructured) (map[string]any, error) {
	if old == nil {
		return nil, nil
	}
	return old.Object()
}

// Canonicalize does nothing.
func (s *CustomResourceStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME and the version's additionalPrinterColumns (AGE
// alone when it has none), described as upstream's tableconvertor does.
func (s *CustomResourceStrategy) TableColumns() []meta.TableColumnDefinition {
	out := []meta.TableColumnDefinition{nameColumn()}
	for _, c := range s.columns {
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		out = append(out, meta.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format, Description: desc, Priority: c.Priority})
	}
	return out
}

// TableRow evaluates each column's JSON path: strings as text, integers,
// numbers and booleans as JSON values, dates as ages; a missing value or
// one of another type is null.
func (s *CustomResourceStrategy) TableRow(obj meta.Object) []any {
	u := obj.(*Unstructured)
	row := []any{u.Name}
	m, err := u.Object()
	for i, c := range s.columns {
		var v any
		ok := false
		if err == nil {
			v, ok = s.paths[i].first(m)
		}
		if ok && v == nil && c.Type == "string" {
			row = append(row, "<no value>") // a null, as jsonpath prints it
			continue
		}
		if !ok || v == nil {
			row = append(row, nil)
			continue
		}
		row = append(row, s.cell(c.Type, v))
	}
	return row
}

func (s *CustomResourceStrategy) cell(typ string, v any) any {
	switch typ {
	case "string":
		switch x := v.(type) {
		case string:
			return x
		case json.Number:
			return x.String()
		case bool:
			return strconv.FormatBool(x)
		}
		b, _ := json.Marshal(v)
		return string(b)
	case "integer":
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return i
			}
			if f, err := n.Float64(); err == nil {
				return int64(f)
			}
		}
	case "number":
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if str, ok := v.(string); ok {
			t, err := time.Parse(time.RFC3339, str)
			if err != nil {
				return "<invalid>"
			}
			return meta.TableAge(meta.NewTime(t), nowOr(s.Now))
		}
	}
	return nil
}

// evalSimpleJSONPath follows a column's path (".a.b", ".a[0].b",
// ".a['b.c']") through m.
func evalSimpleJSONPath(m map[string]any, path string) (any, bool) {
	var cur any = m
	p := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(path, "{"), "}"), "$")
	for p != "" {
		switch {
		case strings.HasPrefix(p, "['") || strings.HasPrefix(p, `["`):
			q := p[1]
			end := strings.IndexByte(p[2:], q)
			if end < 0 || len(p) < end+4 {
				return nil, false
			}
			key := p[2 : 2+end]
			p = p[2+end+2:]
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = obj[key]; !ok {
				return nil, false
			}
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, false
			}
			i, err := strconv.Atoi(p[1:end])
			p = p[end+1:]
			l, ok := cur.([]any)
			if err != nil || !ok {
				return nil, false
			}
			if i < 0 {
				i += len(l)
			}
			if i < 0 || i >= len(l) {
				return nil, false
			}
			cur = l[i]
		case p[0] == '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			key := p[:end]
			p = p[end:]
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = obj[key]; !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return cur, true
}

// contentEqual compares two decoded JSON values.
func contentEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

var (
	_ FieldSchemaProvider   = (*CustomResourceStrategy)(nil)
	_ StrategicMergeRefuser = (*CustomResourceStrategy)(nil)
)

// RefusesStrategicMergePatch is true: custom resources accept JSON,
// merge and apply patches only (upstream's 415).
func (s *CustomResourceStrategy) RefusesStrategicMergePatch() bool { return true }

// ListMapKeys returns the schema's x-kubernetes-list-type map lists with
// their x-kubernetes-list-map-keys and its set lists (no keys), by dotted
// path without list indices, for server-side apply. The map is computed
// once and shared: callers must not change it.
func (s *CustomResourceStrategy) ListMapKeys() map[string][]string {
	return s.derived.listMapKeys(s)
}

// listMapKeysOfSchema is ListMapKeys computed from the schema.
func (s *CustomResourceStrategy) listMapKeysOfSchema() map[string][]string {
	out := map[string][]string{}
	s.walkSchema(func(path string, p *apiextensions.JSONSchemaProps) {
		if p.XListType == nil {
			return
		}
		switch *p.XListType {
		case "map":
			out[path] = slices.Clone(p.XListMapKeys)
		case "set":
			out[path] = []string{}
		}
	})
	return out
}

// AtomicMaps returns the paths of x-kubernetes-map-type atomic objects
// (computed once and shared: callers must not change them).
func (s *CustomResourceStrategy) AtomicMaps() []string {
	return s.derived.atomicMaps(s)
}

// atomicMapsOfSchema is AtomicMaps computed from the schema.
func (s *CustomResourceStrategy) atomicMapsOfSchema() []string {
	var out []string
	s.walkSchema(func(path string, p *apiextensions.JSONSchemaProps) {
		if p.XMapType != nil && *p.XMapType == "atomic" {
			out = append(out, path)
		}
	})
	sort.Strings(out)
	return out
}

// walkSchema calls f for every property schema of the version's schema
// with its dotted path (list items share their list's path).
func (s *CustomResourceStrategy) walkSchema(f func(path string, p *apiextensions.JSONSchemaProps)) {
	if s.version.Schema == nil || s.version.Schema.OpenAPIV3Schema == nil {
		return
	}
	var walk func(path string, p *apiextensions.JSONSchemaProps, depth int)
	walk = func(path string, p *apiextensions.JSONSchemaProps, depth int) {
		if depth > 64 {
			return
		}
		if path != "" {
			f(path, p)
		}
		for name, c := range p.Properties {
			child := name
			if path != "" {
				child = path + "." + name
			}
			walk(child, &c, depth+1)
		}
		if p.Items != nil && p.Items.Schema != nil {
			for name, c := range p.Items.Schema.Properties {
				walk(path+"."+name, &c, depth+1)
			}
		}
	}
	walk("", s.version.Schema.OpenAPIV3Schema, 0)
}

// SelectableFields are the version's selectableFields for field
// selectors, as upstream's customresource strategy (GetAttrs): each
// jsonPath without its leading dot names the field ("spec.color"); a
// string is taken as it is, an integer in decimal, a boolean as "true" or
// "false", and a missing field as "" (measured on kube-apiserver 1.33.13:
// `--field-selector spec.color=` lists the objects without a colour).
func (s *CustomResourceStrategy) SelectableFields(obj meta.Object) map[string]string {
	if len(s.selectable) == 0 {
		return nil
	}
	out := make(map[string]string, len(s.selectable))
	var content map[string]any
	if u, ok := obj.(*Unstructured); ok {
		content = u.Content
	}
	for _, f := range s.selectable {
		out[f.name] = selectableValue(content, f.path)
	}
	return out
}

// selectableField is one selectableFields entry: its field selector name
// ("spec.color") and that name's path.
type selectableField struct {
	name string
	path []string
}

// selectableValue is the field selector value at path in m ("" when
// missing or of another type).
func selectableValue(m map[string]any, path []string) string {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[p]
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}
