package structural

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Validate checks a custom object against the schema as upstream's
// custom-resource strategy does (pkg/registry/customresource/strategy.go
// Validate, without ObjectMeta and CEL): the OpenAPI value validation with
// kube-openapi's paths and texts ("spec.replicas in body must be of type
// integer: \"string\""), then the apiVersion/kind/metadata checks of
// x-kubernetes-embedded-resource objects (objectmeta/validation.go), then
// x-kubernetes-list-type set/map uniqueness (listtype/validation.go).
// Errors without a field (anyOf/oneOf/allOf/not summaries) have the field
// "<nil>" as upstream prints them. The object is not changed.
func (s *Schema) Validate(obj map[string]any) meta.FieldErrors {
	if s == nil {
		return nil
	}
	errs := toFieldErrors("", validateValue(s.root, "", obj))
	errs = append(errs, embeddedErrors("", obj, s.root)...)
	errs = append(errs, listErrors("", s.root, obj)...)
	return errs
}

// ValidateAt validates a value (e.g. the status of a status update through
// /status) against the sub-schema at properties[name] of
// the root, as ValidateStatusUpdate does; name "" validates against the
// root. Unknown names validate nothing.
func (s *Schema) ValidateAt(name string, value any) meta.FieldErrors {
	if s == nil {
		return nil
	}
	p := s.root
	if name != "" {
		c, ok := s.root.Properties[name]
		if !ok {
			return nil
		}
		p = &c
	}
	return toFieldErrors(name, validateValue(p, "", value))
}

func embeddedErrors(pth string, x any, s *props) meta.FieldErrors {
	if s == nil {
		return nil
	}
	var errs meta.FieldErrors
	switch x := x.(type) {
	case map[string]any:
		if s.XEmbeddedResource {
			errs = append(errs, embeddedResourceErrors(pth, x)...)
		}
		for _, k := range sortedKeys(x) {
			if p := s.property(k); p != nil {
				errs = append(errs, embeddedErrors(child(pth, k), x[k], p)...)
			} else if s.AdditionalProperties != nil {
				errs = append(errs, embeddedErrors(key(pth, k), x[k], s.AdditionalProperties.Schema)...)
			}
		}
	case []any:
		if s.Items != nil {
			for i, v := range x {
				errs = append(errs, embeddedErrors(index(pth, i), v, s.Items.Schema)...)
			}
		}
	}
	return errs
}

// embeddedResourceErrors mirrors validateEmbeddedResource.
func embeddedResourceErrors(pth string, x map[string]any) meta.FieldErrors {
	var errs meta.FieldErrors
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, meta.Required(child(pth, "apiVersion"), "must not be empty"))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, meta.Required(child(pth, "kind"), "must not be empty"))
	}
	for _, k := range sortedKeys(x) {
		v := x[k]
		switch k {
		case "apiVersion":
			av, ok := v.(string)
			switch {
			case !ok:
				errs = append(errs, meta.Invalid(child(pth, k), badValue(v), "must be a string"))
			case av == "":
				errs = append(errs, meta.Invalid(child(pth, k), av, "must not be empty"))
			case strings.Count(av, "/") > 1:
				errs = append(errs, meta.Invalid(child(pth, k), av, "unexpected GroupVersion string: "+av))
			}
		case "kind":
			kind, ok := v.(string)
			switch {
			case !ok:
				errs = append(errs, meta.Invalid(child(pth, k), badValue(v), "must be a string"))
			case kind == "":
				errs = append(errs, meta.Invalid(child(pth, k), kind, "must not be empty"))
			default:
				if msgs := meta.IsDNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
					errs = append(errs, meta.Invalid(child(pth, k), kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
				}
			}
		case "metadata":
			b, _ := json.Marshal(v)
			var m meta.ObjectMeta
			if err := json.Unmarshal(b, &m); err != nil {
				errs = append(errs, meta.Invalid(child(pth, k), badValue(v), err.Error()))
				continue
			}
			if m.Name == "" {
				m.Name = "fakename" // as upstream: an embedded object may omit its name
			}
			for _, e := range meta.ValidateObjectMeta(&m, m.Namespace != "", meta.ValidatePathSegmentName) {
				e2 := *e
				e2.Field = child(pth, e.Field)
				errs = append(errs, &e2)
			}
		}
	}
	return errs
}

// listErrors mirrors ValidateListSetsAndMaps: duplicates in
// x-kubernetes-list-type set lists and duplicate keys in map lists.
func listErrors(pth string, s *props, obj map[string]any) meta.FieldErrors {
	if s == nil || obj == nil {
		return nil
	}
	var errs meta.FieldErrors
	keys := sortedKeys(obj)
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		for _, k := range keys {
			errs = append(errs, listErrorsValue(key(pth, k), s.AdditionalProperties.Schema, obj[k])...)
		}
	}
	for _, k := range keys {
		if p := s.property(k); p != nil {
			errs = append(errs, listErrorsValue(child(pth, k), p, obj[k])...)
		}
	}
	return errs
}

func listErrorsValue(pth string, s *props, v any) meta.FieldErrors {
	switch x := v.(type) {
	case []any:
		var errs meta.FieldErrors
		if s.XListType != nil {
			switch *s.XListType {
			case "set":
				for _, i := range duplicates(x) {
					errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: index(pth, i), BadValue: badValue(x[i])})
				}
			case "map":
				errs = append(errs, mapListErrors(pth, s, x)...)
			}
		}
		if s.Items != nil && s.Items.Schema != nil {
			for i := range x {
				errs = append(errs, listErrorsValue(index(pth, i), s.Items.Schema, x[i])...)
			}
		}
		return errs
	case map[string]any:
		return listErrors(pth, s, x)
	}
	return nil
}

// duplicates returns the index of each value's second occurrence.
func duplicates(l []any) []int {
	if len(l) <= 1 {
		return nil
	}
	seen := map[string]int{}
	var out []int
	for i, x := range l {
		b, _ := json.Marshal(normalizeDeep(x))
		k := string(b)
		seen[k]++
		if seen[k] == 2 {
			out = append(out, i)
		}
	}
	return out
}

type unspecified struct{}

func mapListErrors(pth string, s *props, l []any) meta.FieldErrors {
	for i, x := range l {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return meta.FieldErrors{meta.Invalid(index(pth, i), badValue(x), "must be an object for an array of list-type map")}
		}
	}
	if len(l) <= 1 {
		return nil
	}
	keyOf := func(x any) map[string]any {
		k := map[string]any{}
		if m, ok := x.(map[string]any); ok {
			for _, f := range s.XListMapKeys {
				if v, ok := m[f]; ok {
					k[f] = v
				}
			}
		}
		return k
	}
	keys := make([]any, len(l))
	for i, x := range l {
		keys[i] = keyOf(x)
	}
	var errs meta.FieldErrors
	for _, i := range duplicates(keys) {
		errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: index(pth, i), BadValue: badValue(keys[i])})
	}
	return errs
}

// objectMetaFields are the JSON fields of ObjectMeta; others are dropped
// from an embedded resource's metadata, as upstream's round trip through
// ObjectMeta does (objectmeta/coerce.go).
var objectMetaFields = map[string]bool{
	"name": true, "generateName": true, "namespace": true, "selfLink": true, "uid": true,
	"resourceVersion": true, "generation": true, "creationTimestamp": true, "deletionTimestamp": true,
	"deletionGracePeriodSeconds": true, "labels": true, "annotations": true, "ownerReferences": true,
	"finalizers": true, "managedFields": true,
}

// Prune removes, in place, every field the schema does not specify, as
// upstream prunes custom resources (pruning/algorithm.go with the object
// as the resource root: apiVersion, kind and metadata are kept;
// x-kubernetes-preserve-unknown-fields keeps unknown fields below it, but
// specified fields under it are still pruned). The metadata of
// x-kubernetes-embedded-resource objects loses the fields ObjectMeta does
// not have, as upstream's coercion does (objectmeta/coerce.go); the
// object's own metadata is the caller's. It returns the removed fields'
// paths ("spec.colour", "spec.toppings[0].chopped"), sorted, as upstream
// reports them for fieldValidation=Strict/Warn.
func (s *Schema) Prune(obj map[string]any) []string {
	if s == nil || obj == nil {
		return nil
	}
	root := *s.root
	root.XEmbeddedResource = true
	var paths []string
	prune(obj, &root, "", &paths, true)
	sort.Strings(paths)
	return paths
}

func appendKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func prune(x any, s *props, path string, unknown *[]string, isRoot bool) {
	if s != nil && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		skipPrune(x, s, path, unknown, isRoot)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		if s == nil {
			for _, k := range sortedKeys(x) {
				*unknown = append(*unknown, appendKey(path, k))
				delete(x, k)
			}
			return
		}
		for _, k := range sortedKeys(x) {
			v := x[k]
			if s.XEmbeddedResource && metaFields[k] {
				if k == "metadata" && !isRoot {
					pruneEmbeddedMeta(v, appendKey(path, k), unknown)
				}
				continue
			}
			if p := s.property(k); p != nil {
				prune(v, p, appendKey(path, k), unknown, false)
			} else if s.AdditionalProperties != nil {
				prune(v, s.AdditionalProperties.Schema, appendKey(path, k), unknown, false)
			} else {
				if !metaFields[k] || path != "" {
					*unknown = append(*unknown, appendKey(path, k))
				}
				delete(x, k)
			}
		}
	case []any:
		var items *props
		if s != nil && s.Items != nil {
			items = s.Items.Schema
		}
		for i, v := range x {
			prune(v, items, fmt.Sprintf("%s[%d]", path, i), unknown, false)
		}
	}
}

func skipPrune(x any, s *props, path string, unknown *[]string, isRoot bool) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			v := x[k]
			if s.XEmbeddedResource && metaFields[k] {
				if k == "metadata" && !isRoot {
					pruneEmbeddedMeta(v, appendKey(path, k), unknown)
				}
				continue
			}
			if p := s.property(k); p != nil {
				prune(v, p, appendKey(path, k), unknown, false)
			} else if s.AdditionalProperties != nil {
				prune(v, s.AdditionalProperties.Schema, appendKey(path, k), unknown, false)
			}
		}
	case []any:
		if s.Items == nil {
			return
		}
		for i, v := range x {
			skipPrune(v, s.Items.Schema, fmt.Sprintf("%s[%d]", path, i), unknown, false)
		}
	}
}

func pruneEmbeddedMeta(v any, path string, unknown *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range sortedKeys(m) {
		if !objectMetaFields[k] {
			*unknown = append(*unknown, path+"."+k)
			delete(m, k)
		}
	}
}

// Default applies the schema's defaults in place, as upstream's
// defaulting/algorithm.go does on every read from storage and every write:
// a property that is missing, or null while not nullable, gets a deep copy
// of its default; then the walk goes into properties, additionalProperties
// (a non-nullable null value there is replaced by its default) and array
// items (likewise), so nested defaults apply inside defaulted values and
// list items. Defaults under x-kubernetes-preserve-unknown-fields apply
// to the specified properties there.
func (s *Schema) Default(obj map[string]any) {
	if s == nil || obj == nil {
		return
	}
	applyDefaults(obj, s.root)
}

func isNonNullableNull(x any, s *props) bool {
	return x == nil && s != nil && !s.Nullable
}

func applyDefaults(x any, s *props) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range s.defaulted {
			p := s.prop[k]
			if v, found := x[k]; !found || isNonNullableNull(v, p) {
				x[k] = meta.DeepCopyJSONValue(p.defaultValue)
			}
		}
		for k, v := range x { // each key is visited once; order does not matter
			if p := s.property(k); p != nil {
				applyDefaults(v, p)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				ap := s.AdditionalProperties.Schema
				if isNonNullableNull(v, ap) {
					v = meta.DeepCopyJSONValue(ap.defaultValue)
					x[k] = v
				}
				applyDefaults(v, ap)
			}
		}
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return
		}
		it := s.Items.Schema
		for i := range x {
			if isNonNullableNull(x[i], it) {
				x[i] = meta.DeepCopyJSONValue(it.defaultValue)
			}
			applyDefaults(x[i], it)
		}
	}
}

// PruneNulls removes, in place, null values of fields that are neither
// nullable nor defaulted, as upstream does after pruning on write
// (defaulting/prunenulls.go PruneNonNullableNullsWithoutDefaults).
func (s *Schema) PruneNulls(obj map[string]any) {
	if s == nil || obj == nil {
		return
	}
	pruneNulls(obj, s.root)
}

func fieldSchema(k string, s *props) *props {
	if s == nil {
		return nil
	}
	if p := s.property(k); p != nil {
		return p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Schema
	}
	return nil
}

func pruneNulls(x any, s *props) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			fs := fieldSchema(k, s)
			if x[k] == nil && fs != nil && !fs.Nullable && !fs.hasDefault {
				delete(x, k)
			} else {
				pruneNulls(x[k], fs)
			}
		}
	case []any:
		var items *props
		if s != nil && s.Items != nil {
			items = s.Items.Schema
		}
		for i := range x {
			pruneNulls(x[i], items)
		}
	}
}

// validateDefaults mirrors defaulting/validation.go ValidateDefaults with
// the schema as resource root: every default must validate against its
// own node, be free of unknown fields (pruned), and, inside an object's
// metadata, produce valid metadata.
func validateDefaults(root *props, fldPath string) meta.FieldErrors {
	r := *root
	r.XEmbeddedResource = true
	return defaultsAt(&r, fldPath, false)
}

func defaultsAt(s *props, pth string, insideMeta bool) meta.FieldErrors {
	if s == nil {
		return nil
	}
	if s.XEmbeddedResource {
		insideMeta = false
	}
	var errs meta.FieldErrors
	if s.hasDefault {
		dp := child(pth, "default")
		if insideMeta {
			// a default inside metadata: wrap it as the metadata of an object
			if verrs := toFieldErrors(dp, validateValue(s, "", s.defaultValue)); len(verrs) > 0 {
				errs = append(errs, verrs...)
			}
		} else {
			pruned := meta.DeepCopyJSONValue(s.defaultValue)
			var unknown []string
			prune(pruned, s, "", &unknown, s.XEmbeddedResource)
			if len(unknown) > 0 {
				errs = append(errs, meta.Invalid(dp, badValue(s.defaultValue), "must not have unknown fields"))
			}
			if m, ok := s.defaultValue.(map[string]any); ok && s.XEmbeddedResource {
				if eerrs := embeddedResourceErrors(dp, m); len(eerrs) > 0 {
					errs = append(errs, eerrs...)
					return errs
				}
			}
			if verrs := toFieldErrors(dp, validateValue(s, "", s.defaultValue)); len(verrs) > 0 {
				errs = append(errs, verrs...)
			}
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, defaultsAt(s.Items.Schema, child(pth, "items"), insideMeta)...)
	}
	for _, k := range sortedKeys(s.Properties) {
		p := s.Properties[k]
		sub := insideMeta
		if s.XEmbeddedResource && metaFields[k] {
			sub = true
		}
		errs = append(errs, defaultsAt(&p, key(child(pth, "properties"), k), sub)...)
	}
	return errs
}
