package structural

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// openapiV3Types are the types a CRD schema may name, in sorted order as
// upstream lists them (openapiV3Types in validation.go).
var openapiV3Types = []string{"array", "boolean", "integer", "number", "object", "string"}

// supportedValidationReasons are the x-kubernetes-validations reasons, sorted.
var supportedValidationReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

var metaFields = map[string]bool{"metadata": true, "kind": true, "apiVersion": true}

// checkCRDSchema runs upstream's checks of one openAPIV3Schema; fldPath
// names the schema itself ("...openAPIV3Schema").
func checkCRDSchema(root *props, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	if root.Nullable {
		errs = append(errs, meta.Forbidden(child(fldPath, "nullable"), "nullable cannot be true at the root"))
	}
	initErr := unsupportedField(root)
	if initErr == "" {
		if serrs := validateStructural(root, fldPath); len(serrs) > 0 {
			errs = append(errs, serrs...)
		} else {
			errs = append(errs, validateDefaults(root, fldPath)...)
		}
	}
	v := &specValidator{allowDefaults: true}
	errs = append(errs, openAPISchemaErrors(root, fldPath, v, true)...)
	if len(errs) == 0 && initErr != "" {
		errs = append(errs, meta.Invalid(fldPath, "", initErr))
	}
	return errs
}

// unsupportedField mirrors NewStructural's refusal of keywords a structural
// schema cannot hold (convert.go validateUnsupportedFields): the first one
// found, depth first.
func unsupportedField(p *props) string {
	if p == nil {
		return ""
	}
	switch {
	case p.ID != "":
		return "OpenAPIV3Schema 'id' is not supported"
	case p.Schema != "":
		return "OpenAPIV3Schema 'schema' is not supported"
	case p.Ref != nil:
		return "OpenAPIV3Schema '$ref' is not supported"
	case len(p.PatternProperties) > 0:
		return "OpenAPIV3Schema 'patternProperties' is not supported"
	case p.Dependencies != nil:
		return "OpenAPIV3Schema 'dependencies' is not supported"
	case p.AdditionalItems != nil:
		return "OpenAPIV3Schema 'additionalItems' is not supported"
	case len(p.Definitions) > 0:
		return "OpenAPIV3Schema 'definitions' is not supported"
	case p.XPreserveUnknownFields != nil && !*p.XPreserveUnknownFields:
		return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
	}
	if p.Items != nil && len(p.Items.Schemas) > 0 {
		return "OpenAPIV3Schema 'items' must be a schema, but is an array"
	}
	var subs []*props
	if p.Items != nil {
		subs = append(subs, p.Items.Schema)
	}
	for _, k := range sortedKeys(p.Properties) {
		c := p.Properties[k]
		subs = append(subs, &c)
	}
	if p.AdditionalProperties != nil {
		subs = append(subs, p.AdditionalProperties.Schema)
	}
	for i := range p.AllOf {
		subs = append(subs, &p.AllOf[i])
	}
	for i := range p.AnyOf {
		subs = append(subs, &p.AnyOf[i])
	}
	for i := range p.OneOf {
		subs = append(subs, &p.OneOf[i])
	}
	subs = append(subs, p.Not)
	for _, c := range subs {
		if e := unsupportedField(c); e != "" {
			return e
		}
	}
	return ""
}

type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// validateStructural mirrors ValidateStructural (schema/validation.go and
// complete.go): invariants plus completeness, sorted by error text.
func validateStructural(root *props, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	errs = append(errs, structuralInvariants(root, rootLevel, fldPath)...)
	errs = append(errs, completeness(root, root, fldPath, fldPath)...)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

func isIntOrStringAnyOf(l []props) bool {
	if len(l) != 2 {
		return false
	}
	onlyType := func(p props, t string) bool {
		q := props{Type: t}
		p.finishClear()
		return reflect.DeepEqual(p, q)
	}
	return onlyType(l[0], "integer") && onlyType(l[1], "string")
}

// finishClear drops the parsed-only fields so two nodes compare by keywords.
func (p *props) finishClear() {
	p.defaultValue, p.hasDefault, p.enumValues, p.patternRE = nil, false, nil, nil
	p.prop, p.defaulted = nil, nil
}

func structuralInvariants(s *props, lvl level, fldPath string) meta.FieldErrors {
	if s == nil {
		return nil
	}
	var errs meta.FieldErrors
	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil) {
		errs = append(errs, meta.Required(child(fldPath, "items"), "must be specified"))
	}
	if s.Items != nil {
		errs = append(errs, structuralInvariants(s.Items.Schema, itemLevel, child(fldPath, "items"))...)
	}
	for _, k := range sortedKeys(s.Properties) {
		c := s.Properties[k]
		errs = append(errs, structuralInvariants(&c, fieldLevel, key(child(fldPath, "properties"), k))...)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, meta.Forbidden(child(fldPath, "additionalProperties"), "must not be used at the root"))
		}
		if s.AdditionalProperties.Schema != nil {
			errs = append(errs, structuralInvariants(s.AdditionalProperties.Schema, fieldLevel, child(fldPath, "additionalProperties"))...)
		}
	}
	// extensions
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if s.XIntOrString && preserve {
		errs = append(errs, meta.Invalid(child(fldPath, "x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		errs = append(errs, meta.Invalid(child(fldPath, "x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	skipAnyOf := isIntOrStringAnyOf(s.AnyOf)
	skipFirstAllOfAnyOf := len(s.AllOf) >= 1 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)
	errs = append(errs, valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, fldPath)...)

	checkMetadata := lvl == rootLevel || s.XEmbeddedResource
	if s.XEmbeddedResource && s.Type != "object" {
		if s.Type == "" {
			errs = append(errs, meta.Required(child(fldPath, "type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			errs = append(errs, meta.Invalid(child(fldPath, "type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	} else if s.Type == "" && !s.XIntOrString && !preserve {
		switch lvl {
		case rootLevel:
			errs = append(errs, meta.Required(child(fldPath, "type"), "must not be empty at the root"))
		case itemLevel:
			errs = append(errs, meta.Required(child(fldPath, "type"), "must not be empty for specified array items"))
		case fieldLevel:
			errs = append(errs, meta.Required(child(fldPath, "type"), "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		errs = append(errs, meta.Forbidden(child(fldPath, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		errs = append(errs, meta.Invalid(child(fldPath, "type"), s.Type, "must be object at the root"))
	}
	if k, ok := s.Properties["kind"]; ok && checkMetadata && k.Type != "string" {
		errs = append(errs, meta.Invalid(child(key(child(fldPath, "properties"), "kind"), "type"), k.Type, "must be string"))
	}
	if a, ok := s.Properties["apiVersion"]; ok && checkMetadata && a.Type != "string" {
		errs = append(errs, meta.Invalid(child(key(child(fldPath, "properties"), "apiVersion"), "type"), a.Type, "must be string"))
	}
	if m, ok := s.Properties["metadata"]; ok {
		errs = append(errs, metadataInvariants(m, checkMetadata, lvl, key(child(fldPath, "properties"), "metadata"))...)
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		errs = append(errs, meta.Required(child(fldPath, "properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

// metadataInvariants: metadata must be an object; at the root it may
// specify nothing but the name and generateName properties.
func metadataInvariants(m props, checkMetadata bool, lvl level, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	if checkMetadata && m.Type != "object" {
		errs = append(errs, meta.Invalid(child(fldPath, "type"), m.Type, "must be object"))
	}
	if lvl == rootLevel {
		_, name := m.Properties["name"]
		_, generateName := m.Properties["generateName"]
		if (name && generateName && len(m.Properties) == 2) || ((name || generateName) && len(m.Properties) == 1) {
			m.Properties = nil
		}
		m.Type = ""
		m.Default = nil
		m.finishClear()
		if !reflect.DeepEqual(m, props{}) {
			errs = append(errs, meta.Forbidden(fldPath, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
		}
	}
	return errs
}

// valueValidation checks the value-validation part of a node (allOf,
// anyOf, oneOf, not, pattern) as validateValueValidation does.
func valueValidation(s *props, skipAnyOf, skipFirstAllOfAnyOf bool, lvl level, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	if !skipAnyOf {
		for i := range s.AnyOf {
			errs = append(errs, nestedValueValidation(&s.AnyOf[i], false, lvl, index(child(fldPath, "anyOf"), i))...)
		}
	}
	for i := range s.AllOf {
		errs = append(errs, nestedValueValidation(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0, lvl, index(child(fldPath, "allOf"), i))...)
	}
	for i := range s.OneOf {
		errs = append(errs, nestedValueValidation(&s.OneOf[i], false, lvl, index(child(fldPath, "oneOf"), i))...)
	}
	if s.Not != nil {
		errs = append(errs, nestedValueValidation(s.Not, false, lvl, child(fldPath, "not"))...)
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, meta.Invalid(child(fldPath, "pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

// nestedValueValidation checks a schema under allOf/anyOf/oneOf/not: it
// may only restrict values, never declare types, defaults or extensions.
func nestedValueValidation(v *props, skipAnyOf bool, lvl level, fldPath string) meta.FieldErrors {
	if v == nil {
		return nil
	}
	var errs meta.FieldErrors
	skipAllOfAnyOf := false
	errs = append(errs, valueValidation(v, skipAnyOf, skipAllOfAnyOf, lvl, fldPath)...)
	if v.Items != nil && v.Items.Schema != nil {
		errs = append(errs, nestedValueValidation(v.Items.Schema, false, lvl, child(fldPath, "items"))...)
	}
	for _, k := range sortedKeys(v.Properties) {
		c := v.Properties[k]
		errs = append(errs, nestedValueValidation(&c, false, fieldLevel, key(child(fldPath, "properties"), k))...)
	}
	if v.Type != "" {
		errs = append(errs, meta.Forbidden(child(fldPath, "type"), "must be empty to be structural"))
	}
	if v.AdditionalProperties != nil && (v.AdditionalProperties.Schema != nil || v.AdditionalProperties.Allows) {
		errs = append(errs, meta.Forbidden(child(fldPath, "additionalProperties"), "must be undefined to be structural"))
	}
	if v.hasDefault {
		errs = append(errs, meta.Forbidden(child(fldPath, "default"), "must be undefined to be structural"))
	}
	if v.Title != "" {
		errs = append(errs, meta.Forbidden(child(fldPath, "title"), "must be empty to be structural"))
	}
	if v.Description != "" {
		errs = append(errs, meta.Forbidden(child(fldPath, "description"), "must be empty to be structural"))
	}
	if v.Nullable {
		errs = append(errs, meta.Forbidden(child(fldPath, "nullable"), "must be false to be structural"))
	}
	if v.XPreserveUnknownFields != nil && *v.XPreserveUnknownFields {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-preserve-unknown-fields"), "must be false to be structural"))
	}
	if v.XEmbeddedResource {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-embedded-resource"), "must be false to be structural"))
	}
	if v.XIntOrString {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-int-or-string"), "must be false to be structural"))
	}
	if len(v.XListMapKeys) > 0 {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-list-map-keys"), "must be empty to be structural"))
	}
	if v.XListType != nil {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-list-type"), "must be undefined to be structural"))
	}
	if v.XMapType != nil {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-map-type"), "must be undefined to be structural"))
	}
	if len(v.XValidations) > 0 {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-validations"), "must be empty to be structural"))
	}
	if _, ok := v.Properties["metadata"]; ok {
		errs = append(errs, meta.Forbidden(key(child(fldPath, "properties"), "metadata"), "must not be specified in a nested context"))
	}
	return errs
}

// completeness mirrors validateStructuralCompleteness: every property or
// items restricted under the root's allOf/anyOf/oneOf/not must be declared
// in the structural part too (upstream checks the root's value validations
// only).
func completeness(v *props, s *props, sPath, vPath string) meta.FieldErrors {
	if v == nil {
		return nil
	}
	if s == nil {
		return meta.FieldErrors{meta.Required(sPath, "because it is defined in "+vPath)}
	}
	var errs meta.FieldErrors
	if v.Not != nil {
		errs = append(errs, nestedCompleteness(v.Not, s, sPath, child(vPath, "not"))...)
	}
	for i := range v.AllOf {
		errs = append(errs, nestedCompleteness(&v.AllOf[i], s, sPath, index(child(vPath, "allOf"), i))...)
	}
	for i := range v.AnyOf {
		errs = append(errs, nestedCompleteness(&v.AnyOf[i], s, sPath, index(child(vPath, "anyOf"), i))...)
	}
	for i := range v.OneOf {
		errs = append(errs, nestedCompleteness(&v.OneOf[i], s, sPath, index(child(vPath, "oneOf"), i))...)
	}
	return errs
}

func nestedCompleteness(v *props, s *props, sPath, vPath string) meta.FieldErrors {
	if v == nil {
		return nil
	}
	if s == nil {
		return meta.FieldErrors{meta.Required(sPath, "because it is defined in "+vPath)}
	}
	var errs meta.FieldErrors
	vv := *v
	vv.Items, vv.Properties = nil, nil
	errs = append(errs, completeness(&vv, s, sPath, vPath)...)
	if v.Items != nil && v.Items.Schema != nil {
		var si *props
		if s.Items != nil {
			si = s.Items.Schema
		}
		errs = append(errs, nestedCompleteness(v.Items.Schema, si, child(sPath, "items"), child(vPath, "items"))...)
	}
	for _, k := range sortedKeys(v.Properties) {
		vf := v.Properties[k]
		if sf, ok := s.Properties[k]; ok {
			errs = append(errs, nestedCompleteness(&vf, &sf, key(child(sPath, "properties"), k), key(child(vPath, "properties"), k))...)
		} else {
			errs = append(errs, meta.Required(key(child(sPath, "properties"), k), "because it is defined in "+key(child(vPath, "properties"), k)))
		}
	}
	return errs
}

// specValidator carries the context of ValidateCustomResourceDefinitionOpenAPISchema
// (specStandardValidatorV3): whether defaults are allowed here and whether
// the node is inside an object's apiVersion/kind/metadata.
type specValidator struct {
	allowDefaults          bool
	disallowDefaultsReason string
	insideResourceMeta     bool
}

func (v specValidator) withForbiddenDefaults(reason string) *specValidator {
	v.allowDefaults, v.disallowDefaultsReason = false, reason
	return &v
}

func (v specValidator) withInsideResourceMeta() *specValidator {
	v.insideResourceMeta = true
	return &v
}

func (v *specValidator) validate(s *props, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	if s.Type != "" && !contains(openapiV3Types, s.Type) {
		errs = append(errs, meta.NotSupported(child(fldPath, "type"), s.Type, openapiV3Types))
	}
	if s.hasDefault && !v.allowDefaults {
		detail := "must not be set"
		if v.disallowDefaultsReason != "" {
			detail += " " + v.disallowDefaultsReason
		}
		errs = append(errs, meta.Forbidden(child(fldPath, "default"), detail))
	}
	if s.ID != "" {
		errs = append(errs, meta.Forbidden(child(fldPath, "id"), "id is not supported"))
	}
	if s.AdditionalItems != nil {
		errs = append(errs, meta.Forbidden(child(fldPath, "additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		errs = append(errs, meta.Forbidden(child(fldPath, "patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		errs = append(errs, meta.Forbidden(child(fldPath, "definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		errs = append(errs, meta.Forbidden(child(fldPath, "dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		errs = append(errs, meta.Forbidden(child(fldPath, "$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		errs = append(errs, meta.Forbidden(child(fldPath, "type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if s.Items != nil && len(s.Items.Schemas) != 0 {
		errs = append(errs, meta.Forbidden(child(fldPath, "items"), "items must be a schema object and not an array"))
	}
	if v.insideResourceMeta && s.XEmbeddedResource {
		errs = append(errs, meta.Forbidden(child(fldPath, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
	return errs
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// openAPISchemaErrors mirrors ValidateCustomResourceDefinitionOpenAPISchema
// without the CEL compilation (the caller owns CEL): keyword checks, then
// children, then the x-kubernetes-* combinations.
func openAPISchemaErrors(s *props, fldPath string, v *specValidator, isRoot bool) meta.FieldErrors {
	if s == nil {
		return nil
	}
	errs := v.validate(s, fldPath)
	if s.UniqueItems {
		errs = append(errs, meta.Forbidden(child(fldPath, "uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if s.AdditionalProperties != nil {
		if len(s.Properties) != 0 && (!s.AdditionalProperties.Allows || s.AdditionalProperties.Schema != nil) {
			errs = append(errs, meta.Forbidden(child(fldPath, "additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := v
		if v.insideResourceMeta {
			sub = v.withForbiddenDefaults("inside additionalProperties applying to object metadata")
		}
		errs = append(errs, openAPISchemaErrors(s.AdditionalProperties.Schema, child(fldPath, "additionalProperties"), sub, false)...)
	}
	for _, k := range sortedKeys(s.Properties) {
		sub := v
		if (isRoot || s.XEmbeddedResource) && metaFields[k] {
			sub = sub.withInsideResourceMeta()
			if isRoot {
				sub = sub.withForbiddenDefaults("in top-level " + k)
			}
		}
		c := s.Properties[k]
		errs = append(errs, openAPISchemaErrors(&c, key(child(fldPath, "properties"), k), sub, false)...)
	}
	errs = append(errs, openAPISchemaErrors(s.Not, child(fldPath, "not"), v, false)...)
	for i := range s.AllOf {
		errs = append(errs, openAPISchemaErrors(&s.AllOf[i], index(child(fldPath, "allOf"), i), v, false)...)
	}
	for i := range s.OneOf {
		errs = append(errs, openAPISchemaErrors(&s.OneOf[i], index(child(fldPath, "oneOf"), i), v, false)...)
	}
	for i := range s.AnyOf {
		errs = append(errs, openAPISchemaErrors(&s.AnyOf[i], index(child(fldPath, "anyOf"), i), v, false)...)
	}
	for _, k := range sortedKeys(s.Definitions) {
		c := s.Definitions[k]
		errs = append(errs, openAPISchemaErrors(&c, key(child(fldPath, "definitions"), k), v, false)...)
	}
	if s.Items != nil {
		errs = append(errs, openAPISchemaErrors(s.Items.Schema, child(fldPath, "items"), v, false)...)
		for i := range s.Items.Schemas {
			errs = append(errs, openAPISchemaErrors(&s.Items.Schemas[i], index(child(fldPath, "items"), i), v, false)...)
		}
	}
	// dependencies: reported as not supported above; their schemas are not walked here.

	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		errs = append(errs, meta.Invalid(child(fldPath, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	if s.XMapType != nil && s.Type != "object" {
		if s.Type == "" {
			errs = append(errs, meta.Required(child(fldPath, "type"), "must be object if x-kubernetes-map-type is specified"))
		} else {
			errs = append(errs, meta.Invalid(child(fldPath, "type"), s.Type, "must be object if x-kubernetes-map-type is specified"))
		}
	}
	if s.XMapType != nil && *s.XMapType != "atomic" && *s.XMapType != "granular" {
		errs = append(errs, meta.NotSupported(child(fldPath, "x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
	}
	if s.XListType != nil && s.Type != "array" {
		if s.Type == "" {
			errs = append(errs, meta.Required(child(fldPath, "type"), "must be array if x-kubernetes-list-type is specified"))
		} else {
			errs = append(errs, meta.Invalid(child(fldPath, "type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	} else if s.XListType != nil && *s.XListType == "set" && s.Items != nil && s.Items.Schema != nil {
		is := s.Items.Schema
		switch is.Type {
		case "array":
			if is.XListType != nil && *is.XListType != "atomic" {
				errs = append(errs, meta.Invalid(child(child(fldPath, "items"), "x-kubernetes-list-type"), *is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		case "object":
			if is.XMapType == nil || *is.XMapType != "atomic" {
				// upstream reports the items' list type here (nil when unset)
				var bad any
				if is.XListType != nil {
					bad = *is.XListType
				}
				errs = append(errs, meta.Invalid(child(child(fldPath, "items"), "x-kubernetes-map-type"), bad, "must be atomic as item of a list with x-kubernetes-list-type=set"))
			}
		}
	}
	if s.XListType != nil && *s.XListType != "atomic" && *s.XListType != "set" && *s.XListType != "map" {
		errs = append(errs, meta.NotSupported(child(fldPath, "x-kubernetes-list-type"), *s.XListType, []string{"atomic", "set", "map"}))
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			errs = append(errs, meta.Required(child(fldPath, "x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			errs = append(errs, meta.Invalid(child(fldPath, "x-kubernetes-list-type"), *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if s.XListType != nil && *s.XListType == "map" {
		if len(s.XListMapKeys) == 0 {
			errs = append(errs, meta.Required(child(fldPath, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
		}
		if s.Items == nil {
			errs = append(errs, meta.Required(child(fldPath, "items"), "must have a schema if x-kubernetes-list-type is map"))
		}
		if s.Items != nil && s.Items.Schema == nil {
			errs = append(errs, meta.Invalid(child(fldPath, "items"), "", "must only have a single schema if x-kubernetes-list-type is map"))
		}
		if s.Items != nil && s.Items.Schema != nil && s.Items.Schema.Type != "object" {
			errs = append(errs, meta.Invalid(child(child(fldPath, "items"), "type"), s.Items.Schema.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		}
		if s.Items != nil && s.Items.Schema != nil && s.Items.Schema.Type == "object" {
			seen := map[string]bool{}
			for _, k := range s.XListMapKeys {
				if p, ok := s.Items.Schema.Properties[k]; ok {
					if p.Type == "array" || p.Type == "object" {
						errs = append(errs, meta.Invalid(child(key(child(child(fldPath, "items"), "properties"), k), "type"), s.Items.Schema.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
					}
				} else {
					errs = append(errs, meta.Invalid(child(fldPath, "x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
				}
				if seen[k] {
					errs = append(errs, meta.Invalid(child(fldPath, "x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
				}
				seen[k] = true
			}
		}
	}
	errs = append(errs, mapListKeysMapSet(s, fldPath)...)
	errs = append(errs, validationRuleErrors(s, fldPath)...)
	return errs
}

// mapListKeysMapSet mirrors validateMapListKeysMapSet: items of set and
// map lists cannot be nullable; map keys must be required or defaulted.
func mapListKeysMapSet(s *props, fldPath string) meta.FieldErrors {
	if s.Items == nil || s.Items.Schema == nil || s.XListType == nil || (*s.XListType != "set" && *s.XListType != "map") {
		return nil
	}
	var errs meta.FieldErrors
	if s.Items.Schema.Nullable {
		errs = append(errs, meta.Forbidden(child(child(fldPath, "items"), "nullable"), "cannot be nullable when x-kubernetes-list-type is "+*s.XListType))
	}
	if *s.XListType == "map" {
		required := map[string]bool{}
		for _, r := range s.Items.Schema.Required {
			required[r] = true
		}
		for _, k := range s.XListMapKeys {
			p, ok := s.Items.Schema.Properties[k]
			if !ok {
				continue
			}
			base := key(child(child(fldPath, "items"), "properties"), k)
			if !required[k] && !p.hasDefault {
				errs = append(errs, meta.Required(child(base, "default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
			}
			if p.Nullable {
				errs = append(errs, meta.Forbidden(child(base, "nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
			}
		}
	}
	return errs
}

var newlines = lazyRegexp(`[\n\r]+`)

// validationRuleErrors holds the static checks of x-kubernetes-validations
// entries (the CEL compilation is the caller's).
func validationRuleErrors(s *props, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	for i, r := range s.XValidations {
		p := index(child(fldPath, "x-kubernetes-validations"), i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			errs = append(errs, meta.Required(child(p, "rule"), "rule is not specified"))
		case r.Message != "" && msg == "":
			errs = append(errs, meta.Invalid(child(p, "message"), r.Message, "message must be non-empty if specified"))
		case newlines().MatchString(msg):
			errs = append(errs, meta.Invalid(child(p, "message"), r.Message, "message must not contain line breaks"))
		case newlines().MatchString(rule) && msg == "":
			errs = append(errs, meta.Required(child(p, "message"), "message must be specified if rule contains line breaks"))
		}
		if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
			errs = append(errs, meta.Required(child(p, "messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !contains(supportedValidationReasons, *r.Reason) {
			errs = append(errs, meta.NotSupported(child(p, "reason"), *r.Reason, supportedValidationReasons))
		}
		if r.FieldPath != "" && strings.TrimSpace(r.FieldPath) == "" {
			errs = append(errs, meta.Invalid(child(p, "fieldPath"), r.FieldPath, "fieldPath must be non-empty if specified"))
		}
		if newlines().MatchString(r.FieldPath) {
			errs = append(errs, meta.Invalid(child(p, "fieldPath"), r.FieldPath, "fieldPath must not contain line breaks"))
		}
		if r.FieldPath != "" && !validFieldPath(s, r.FieldPath) {
			errs = append(errs, meta.Invalid(child(p, "fieldPath"), r.FieldPath, "fieldPath must be a valid path"))
		}
	}
	return errs
}

// validFieldPath reports whether a rule's fieldPath names a field of the
// schema node the rule sits on (pathValid in validation.go, which skips
// the check for a non-structural node).
func validFieldPath(s *props, path string) bool {
	if unsupportedField(s) != "" {
		return true
	}
	_, _, err := lookupFieldPath(path, s, true)
	return err == nil
}

// fieldPathTokens splits a JSON path into ".", "[", "]" and the names
// between them; a token starting with a single quote runs to the next
// unescaped quote (the scanner of cel.ValidFieldPath).
func fieldPathTokens(path string) []string {
	var toks []string
	for len(path) > 0 {
		if path[0] == '\'' {
			end := len(path)
			for i := 1; i < len(path); i++ {
				if path[i] == '\'' && path[i-1] != '\\' {
					end = i + 1
					break
				}
			}
			toks = append(toks, path[:end])
			path = path[end:]
			continue
		}
		i := strings.IndexAny(path, ".[]")
		switch {
		case i == 0:
			toks = append(toks, path[:1])
			path = path[1:]
		case i < 0:
			toks = append(toks, path)
			path = ""
		default:
			toks = append(toks, path[:i])
			path = path[i:]
		}
	}
	return toks
}

var unescapeQuote = strings.NewReplacer(`\a`, "\a", `\b`, "\b", `\f`, "\f", `\n`, "\n", `\r`, "\r", `\t`, "\t", `\v`, "\v", `\'`, "'", `\\`, "\\")

// lookupFieldPath mirrors cel.ValidFieldPath: it walks ".name" and
// "['name']" steps through properties (or additionalProperties) and
// returns the field.Path form of the path and the schema it names, or
// upstream's error text.
func lookupFieldPath(jsonPath string, s *props, allowArrayNotation bool) (string, *props, error) {
	var out string
	step := func(name string) error {
		switch {
		case s == nil:
			return fmt.Errorf("does not refer to a valid field")
		case s.Properties != nil:
			out = child(out, name)
			p, ok := s.Properties[name]
			if !ok {
				return fmt.Errorf("does not refer to a valid field")
			}
			s = &p
		case s.AdditionalProperties != nil:
			out = key(out, name)
			s = s.AdditionalProperties.Schema
		default:
			return fmt.Errorf("does not refer to a valid field")
		}
		return nil
	}
	toks := fieldPathTokens(jsonPath)
	for i := 0; i < len(toks); i++ {
		switch tok := toks[i]; tok {
		case "[":
			if !allowArrayNotation {
				return "", nil, fmt.Errorf("array notation is not allowed")
			}
			if i+1 >= len(toks) {
				return "", nil, fmt.Errorf("unexpected end of JSON path")
			}
			i++
			tok = toks[i]
			if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
				return "", nil, fmt.Errorf("expected single quoted string but got %s", tok)
			}
			if err := step(unescapeQuote.Replace(tok[1 : len(tok)-1])); err != nil {
				return "", nil, err
			}
			if i+1 >= len(toks) {
				return "", nil, fmt.Errorf("unexpected end of JSON path")
			}
			i++
			if toks[i] != "]" {
				return "", nil, fmt.Errorf("expected ] but got %s", toks[i])
			}
		case ".":
			if i+1 >= len(toks) {
				return "", nil, fmt.Errorf("unexpected end of JSON path")
			}
			i++
			if err := step(toks[i]); err != nil {
				return "", nil, err
			}
		default:
			return "", nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
	}
	return out, s, nil
}

// MaxSelectableFields is how many selectableFields a CRD version may
// declare (MaxSelectableFields in validation.go).
const MaxSelectableFields = 8

// SelectableFieldErrors checks a version's selectableFields jsonPaths
// against the schema as ValidateCustomResourceSelectableFields does;
// fldPath names the list ("spec.versions[0].selectableFields").
func (s *Schema) SelectableFieldErrors(jsonPaths []string, fldPath string) meta.FieldErrors {
	var errs meta.FieldErrors
	seen := map[string]bool{}
	for i, jp := range jsonPaths {
		p := child(index(fldPath, i), "jsonPath")
		if jp == "" {
			errs = append(errs, meta.Required(p, ""))
			continue
		}
		path, found, err := lookupFieldPath(jp, s.root, false)
		if err != nil {
			errs = append(errs, meta.Invalid(p, jp, "is an invalid path: "+err.Error()))
			continue
		}
		if path == "metadata" || strings.HasPrefix(path, "metadata.") || strings.HasPrefix(path, "metadata[") {
			errs = append(errs, meta.Invalid(p, jp, "must not point to fields in metadata"))
		}
		if found == nil || (found.Type != "string" && found.Type != "boolean" && found.Type != "integer") {
			errs = append(errs, meta.Invalid(p, jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if seen[path] {
			errs = append(errs, &meta.FieldError{Type: meta.FieldValueDuplicate, Field: p, BadValue: jp})
		}
		seen[path] = true
	}
	if len(seen) > MaxSelectableFields {
		errs = append(errs, &meta.FieldError{Type: meta.FieldValueTooMany, Field: fldPath, BadValue: len(seen), Detail: fmt.Sprintf("must have at most %d items", MaxSelectableFields)})
	}
	return errs
}

// FieldSchemaType returns the type and format of the field a
// ".spec.replicas"-style path names (for printer columns and the scale
// subresource's paths), and whether the path names a field.
func (s *Schema) FieldSchemaType(jsonPath string) (typ, format string, ok bool) {
	if s == nil {
		return "", "", false
	}
	_, found, err := lookupFieldPath(jsonPath, s.root, true)
	if err != nil || found == nil {
		return "", "", false
	}
	return found.Type, found.Format, true
}

// allowedAtStatusRoot are the JSONSchemaProps fields a root schema may set
// when the status subresource is enabled (allowedFieldsAtRootSchema in
// validation.go), in upstream's order for the message.
var allowedAtStatusRoot = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// setRootFields lists the JSONSchemaProps fields the root sets, in the
// field order of upstream's internal JSONSchemaProps struct.
func setRootFields(p *props) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(p.ID != "", "ID")
	add(p.Schema != "", "Schema")
	add(p.Ref != nil, "Ref")
	add(p.Description != "", "Description")
	add(p.Type != "", "Type")
	add(p.Nullable, "Nullable")
	add(p.Format != "", "Format")
	add(p.Title != "", "Title")
	add(p.hasDefault, "Default")
	add(p.Maximum != nil, "Maximum")
	add(p.ExclusiveMaximum, "ExclusiveMaximum")
	add(p.Minimum != nil, "Minimum")
	add(p.ExclusiveMinimum, "ExclusiveMinimum")
	add(p.MaxLength != nil, "MaxLength")
	add(p.MinLength != nil, "MinLength")
	add(p.Pattern != "", "Pattern")
	add(p.MaxItems != nil, "MaxItems")
	add(p.MinItems != nil, "MinItems")
	add(p.UniqueItems, "UniqueItems")
	add(p.MultipleOf != nil, "MultipleOf")
	add(p.Enum != nil, "Enum")
	add(p.MaxProperties != nil, "MaxProperties")
	add(p.MinProperties != nil, "MinProperties")
	add(p.Required != nil, "Required")
	add(p.Items != nil, "Items")
	add(p.AllOf != nil, "AllOf")
	add(p.OneOf != nil, "OneOf")
	add(p.AnyOf != nil, "AnyOf")
	add(p.Not != nil, "Not")
	add(p.Properties != nil, "Properties")
	add(p.AdditionalProperties != nil, "AdditionalProperties")
	add(p.PatternProperties != nil, "PatternProperties")
	add(p.Dependencies != nil, "Dependencies")
	add(p.AdditionalItems != nil, "AdditionalItems")
	add(p.Definitions != nil, "Definitions")
	add(len(p.ExternalDocs) > 0, "ExternalDocs")
	add(len(p.Example) > 0, "Example")
	add(p.XPreserveUnknownFields != nil, "XPreserveUnknownFields")
	add(p.XEmbeddedResource, "XEmbeddedResource")
	add(p.XIntOrString, "XIntOrString")
	add(p.XListMapKeys != nil, "XListMapKeys")
	add(p.XListType != nil, "XListType")
	add(p.XMapType != nil, "XMapType")
	add(p.XValidations != nil, "XValidations")
	return out
}

// StatusSubresourceErrors are the checks upstream runs on the root schema
// of a version with the status subresource (validateCustomResourceDefinitionValidation,
// before New's checks): only "object" as the root type, and only the
// fields of allowedFieldsAtRootSchema; at most one error. fldPath names the
// schema ("...openAPIV3Schema"), as for New. Upstream prints the whole
// schema as a Go struct for the second error; this prints the
// placeholder `apiextensions.JSONSchemaProps{...}`.
func (s *Schema) StatusSubresourceErrors(fldPath string) meta.FieldErrors {
	if s == nil {
		return nil
	}
	for _, f := range setRootFields(s.root) {
		if f == "Type" {
			if s.root.Type != "object" {
				return meta.FieldErrors{meta.Invalid(child(fldPath, "type"), s.root.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		if !contains(allowedAtStatusRoot, f) {
			return meta.FieldErrors{meta.Invalid(fldPath, meta.GoSyntax("apiextensions.JSONSchemaProps{...}"),
				fmt.Sprintf("only [%s] fields are allowed at the root of the schema if the status subresource is enabled", strings.Join(allowedAtStatusRoot, " ")))}
		}
	}
	return nil
}
