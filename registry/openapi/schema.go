package openapi

import (
	"reflect"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Schema is a format-neutral schema (a subset of kube-openapi's
// spec.Schema): Build renders it as swagger 2.0 (refs to #/definitions/)
// or OpenAPI 3 (refs to #/components/schemas/, wrapped in allOf when the
// property carries its own description or default; defaults only in v3).
type Schema struct {
	Type        string             // "object", "string", "integer", "boolean", "array"
	Format      string             // "int32", "int64", "byte", "date-time", "int-or-string"
	Description string             // the doc comment of the type or field
	Ref         string             // the definition name this schema refers to
	Items       *Schema            // an array's items
	AddlProps   *Schema            // a map's values (additionalProperties)
	Props       map[string]*Schema // an object's properties by JSON name
	Required    []string           // the required properties, in field order
	Default     any                // the default (rendered in v3 only)
	Enum        []string           // the allowed values (+enum types)
	Ext         map[string]any     // x-kubernetes-* extensions
	// V3OneOf replaces Type in /openapi/v3 by a oneOf of these types
	// (upstream's OpenAPIV3OneOfTypes: Quantity is string or number).
	V3OneOf []string
}

// render encodes s with kube-openapi's key order (spec.Schema's
// marshalling: description, type, format, default, enum, required,
// items, allOf, properties, additionalProperties, $ref, then the
// extensions sorted by name).
func (s *Schema) render(v3 bool) obj {
	var m obj
	ref := ""
	if s.Ref != "" {
		ref = "#/definitions/" + s.Ref
		if v3 {
			ref = "#/components/schemas/" + s.Ref
		}
	}
	allOf := v3 && ref != "" && (s.Description != "" || s.Default != nil)
	if s.Description != "" {
		m.add("description", s.Description)
	}
	// int-or-string: v3 says oneOf integer or string instead of its
	// type (upstream's IntOrString.OpenAPIV3OneOfTypes).
	intOrString := v3 && s.Format == "int-or-string"
	oneOf := v3 && len(s.V3OneOf) > 0
	if s.Type != "" && !intOrString && !oneOf {
		m.add("type", s.Type)
	}
	if s.Format != "" {
		m.add("format", s.Format)
	}
	if s.Default != nil && v3 {
		m.add("default", s.Default)
	}
	if len(s.Enum) > 0 {
		m.add("enum", s.Enum)
	}
	if len(s.Required) > 0 {
		m.add("required", s.Required)
	}
	if s.Items != nil {
		m.add("items", s.Items.render(v3))
	}
	if allOf {
		m.add("allOf", []any{obj{{"$ref", ref}}})
	}
	if intOrString {
		m.add("oneOf", []any{obj{{"type", "integer"}}, obj{{"type", "string"}}})
	}
	if oneOf {
		types := make([]any, len(s.V3OneOf))
		for i, t := range s.V3OneOf {
			types[i] = obj{{"type", t}}
		}
		m.add("oneOf", types)
	}
	if len(s.Props) > 0 {
		props := map[string]obj{}
		for k, p := range s.Props {
			props[k] = p.render(v3)
		}
		m.add("properties", sortedObj(props))
	}
	if s.AddlProps != nil {
		m.add("additionalProperties", s.AddlProps.render(v3))
	}
	if ref != "" && !allOf {
		m.add("$ref", ref)
	}
	m = append(m, sortedObj(s.Ext)...)
	return m
}

// refs appends every definition s refers to.
func (s *Schema) refs(out []string) []string {
	if s == nil {
		return out
	}
	if s.Ref != "" {
		out = append(out, s.Ref)
	}
	out = s.Items.refs(out)
	out = s.AddlProps.refs(out)
	for _, p := range s.Props {
		out = p.refs(out)
	}
	return out
}

// Builders, shared by the derivation from Go types and by the definitions
// written by hand (kinds without Go types: registry's GenericObject kinds,
// the demo's wardle kinds).

// String is a string property.
func String(desc string) *Schema { return &Schema{Type: "string", Description: desc} }

// Ref is a property holding the definition named definition: a pointer
// field, or a type with its own JSON form (Time, IntOrString).
func Ref(definition, desc string) *Schema { return &Schema{Ref: definition, Description: desc} }

// Struct is a non-pointer struct property of the definition named
// definition: kube-openapi gives it the default {} (rendered in v3).
func Struct(definition, desc string) *Schema {
	s := Ref(definition, desc)
	s.Default = map[string]any{}
	return s
}

// Array is an array property with items items and the extensions ext.
func Array(items *Schema, desc string, ext map[string]any) *Schema {
	return &Schema{Type: "array", Description: desc, Items: items, Ext: ext}
}

// Object is an object definition with properties props (none: an object
// whose fields aggsim does not model) and the required properties
// required.
func Object(desc string, props map[string]*Schema, required ...string) *Schema {
	return &Schema{Type: "object", Description: desc, Props: props, Required: required}
}

// MapList is the extensions of a list of objects keyed by keys and merged
// by mergeKey (upstream: +listType=map, +listMapKey and the patchStrategy
// merge and patchMergeKey struct tags).
func MapList(mergeKey string, keys ...string) map[string]any {
	return map[string]any{
		"x-kubernetes-list-type":       "map",
		"x-kubernetes-list-map-keys":   keys,
		"x-kubernetes-patch-merge-key": mergeKey,
		"x-kubernetes-patch-strategy":  "merge",
	}
}

// AddGroupVersionKind appends group, version and kind to the
// x-kubernetes-group-version-kind extension of the definition s, as
// kube-openapi's definition namer does for a type registered in a
// group-version.
func AddGroupVersionKind(s *Schema, group, version, kind string) {
	if s.Ext == nil {
		s.Ext = map[string]any{}
	}
	list, _ := s.Ext[extGVK].([]any)
	s.Ext[extGVK] = append(list, map[string]any{"group": group, "version": version, "kind": kind})
}

const extGVK = "x-kubernetes-group-version-kind"

// KindSchema returns the definition of a top-level kind written by hand:
// an object with the properties every persisted kind has (apiVersion,
// kind and metadata, as meta.PartialObjectMetadata declares them) plus
// props, and the x-kubernetes-group-version-kind extension naming group,
// version and kind.
func KindSchema(group, version, kind, desc string, props map[string]*Schema) *Schema {
	p := map[string]*Schema{}
	for k, v := range standardProperties(reflect.TypeFor[meta.PartialObjectMetadata]()) {
		p[k] = v
	}
	for k, v := range props {
		p[k] = v
	}
	s := Object(desc, p)
	AddGroupVersionKind(s, group, version, kind)
	return s
}

// ListSchema returns the definition of the list kind listKind written by
// hand: apiVersion, kind and metadata (ListMeta, as
// meta.PartialObjectMetadataList declares them) and the required items,
// an array of the definition itemDefinition, with its
// group-version-kind extension.
func ListSchema(group, version, listKind, itemDefinition, desc string) *Schema {
	p := standardProperties(reflect.TypeFor[meta.PartialObjectMetadataList]())
	delete(p, "items")
	p["items"] = Array(Struct(itemDefinition, ""), "Items is the list of "+strings.TrimSuffix(listKind, "List")+" objects.", nil)
	s := Object(desc, p, "items")
	AddGroupVersionKind(s, group, version, listKind)
	return s
}

// standardProperties returns fresh copies of the derived properties of
// t, one of the meta types every document includes.
func standardProperties(t reflect.Type) map[string]*Schema {
	d := &deriver{defs: map[string]*Schema{}, seen: map[reflect.Type]string{}}
	props, _ := d.properties(t)
	if d.err != nil {
		panic("openapi: " + d.err.Error()) // meta's types are static
	}
	return props
}
