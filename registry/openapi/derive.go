package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/internal/apidoc"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// DefinitionName returns the OpenAPI definition name of the Go type t:
// the upstream package it mirrors (its +upstreamPackage marker, else its
// package's; without either, its own import path) with the domain
// reversed, dots for slashes, then the type name:
// "io.k8s.api.core.v1.Service" for core.Service. It mirrors the names
// kube-openapi's namer gives upstream's types
// (k8s.io/kube-openapi/pkg/util.ToRESTFriendlyName).
func DefinitionName(t reflect.Type) string {
	pkg := t.PkgPath()
	doc, p := apidoc.Lookup(t)
	if p != nil {
		if v, ok := p.Markers.Get("upstreamPackage"); ok {
			pkg = v
		}
	}
	if doc != nil {
		if v, ok := doc.Markers.Get("upstreamPackage"); ok {
			pkg = v
		}
	}
	parts := strings.Split(pkg, "/")
	domain := strings.Split(parts[0], ".")
	slices.Reverse(domain)
	parts[0] = strings.Join(domain, ".")
	return strings.Join(parts, ".") + "." + t.Name()
}

// Definitions derives the definitions of the Go types and of every type
// they reference, by name (see DefinitionName). Each call returns fresh
// schemas the caller may change (e.g. AddGroupVersionKind). Errors: a
// type or field type with no OpenAPI form (see derive rules below), or a
// +default marker that is not JSON.
//
// The rules are upstream openapi-gen's: a named struct type, or a type
// with an +openapi:type marker, is a definition, referenced by $ref; its
// description is its doc comment. Its properties are its fields by JSON
// name (inline embedded structs flattened; json "-" and +openapi:skip
// fields left out), each with the field's doc comment as description; a
// field is required unless its json tag has omitempty or omitzero or it
// is marked +optional (+required forces it). Field types: string,
// boolean, integer int32/int64, []byte as string/byte, slices as arrays,
// map[string]X as objects with additionalProperties, pointers as their
// element. Defaults (v3 only): a +default marker; else the zero value of a
// non-pointer scalar without omitempty, {} for a non-pointer struct
// (array items and map values count as non-pointer fields without
// omitempty), none for types with an +openapi:type (+openapi:noDefault
// drops it). Enums: the +openapi:enum values of a field (of its items for
// a list). Extensions: patchStrategy and patchMergeKey struct tags, and
// the +listType, +listMapKey, +mapType, +structType and +union markers.
func Definitions(types ...reflect.Type) (map[string]*Schema, error) {
	d := &deriver{defs: map[string]*Schema{}, seen: map[reflect.Type]string{}}
	for _, t := range types {
		d.definition(t)
	}
	if d.err != nil {
		return nil, d.err
	}
	return d.defs, nil
}

// deriver collects definitions; the first error stops it.
type deriver struct {
	defs map[string]*Schema
	seen map[reflect.Type]string // definition name of each derived type
	err  error
}

func (d *deriver) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

// customType returns the +openapi:type and +openapi:format of t.
func customType(t reflect.Type) (typ, format string, ok bool) {
	doc, _ := apidoc.Lookup(t)
	if doc == nil {
		return "", "", false
	}
	typ, ok = doc.Markers.Get("openapi:type")
	format, _ = doc.Markers.Get("openapi:format")
	return typ, format, ok
}

// isDefinition reports whether t is referenced by name.
func isDefinition(t reflect.Type) bool {
	if t.Name() == "" || t.PkgPath() == "" {
		return false
	}
	_, _, custom := customType(t)
	return custom || t.Kind() == reflect.Struct
}

// definition derives t's definition (once) and returns its name.
func (d *deriver) definition(t reflect.Type) string {
	if name, ok := d.seen[t]; ok {
		return name
	}
	name := DefinitionName(t)
	d.seen[t] = name
	if !isDefinition(t) {
		d.fail("openapi: %v is not a definition (a named struct or a type with +openapi:type)", t)
		return name
	}
	doc, _ := apidoc.Lookup(t)
	s := &Schema{}
	if doc != nil {
		s.Description = doc.Doc
	}
	if typ, format, ok := customType(t); ok {
		s.Type, s.Format = typ, format
		if v, ok := doc.Markers.Get("openapi:v3OneOf"); ok {
			s.V3OneOf = strings.Split(v, ",")
		}
		d.defs[name] = s
		return name
	}
	s.Type = "object"
	if doc != nil {
		if v, ok := doc.Markers.Get("structType"); ok {
			s.Ext = map[string]any{"x-kubernetes-map-type": v}
		}
	}
	d.defs[name] = s
	s.Props, s.Required = d.properties(t)
	if doc != nil && doc.Markers.Has("union") {
		if u := d.union(t); u != nil {
			if s.Ext == nil {
				s.Ext = map[string]any{}
			}
			s.Ext["x-kubernetes-unions"] = []any{u}
		}
	}
	return name
}

// union returns the x-kubernetes-unions entry of the +union struct t, as
// upstream's openapi-gen writes it: the JSON name of its
// +unionDiscriminator field, and every other field's JSON name mapped to
// its Go name (the discriminator value that selects it).
func (d *deriver) union(t reflect.Type) map[string]any {
	doc, _ := apidoc.Lookup(t)
	discriminator := ""
	members := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if f := doc.Field(sf.Name); f != nil && f.Markers.Has("unionDiscriminator") {
			discriminator = name
			continue
		}
		members[name] = sf.Name
	}
	if discriminator == "" {
		d.fail("openapi: %v is a +union without a +unionDiscriminator field", t)
		return nil
	}
	return map[string]any{"discriminator": discriminator, "fields-to-discriminateBy": members}
}

// properties derives the properties of struct type t and its required
// list, in field order.
func (d *deriver) properties(t reflect.Type) (map[string]*Schema, []string) {
	doc, _ := apidoc.Lookup(t)
	var props map[string]*Schema
	var required []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			inner, req := d.properties(sf.Type)
			for k, v := range inner {
				if props == nil {
					props = map[string]*Schema{}
				}
				props[k] = v
			}
			required = append(required, req...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fdoc := doc.Field(sf.Name)
		var markers apidoc.Markers
		if fdoc != nil {
			markers = fdoc.Markers
		}
		if markers.Has("openapi:skip") {
			continue
		}
		omit := slices.Contains(strings.Split(opts, ","), "omitempty") || slices.Contains(strings.Split(opts, ","), "omitzero")
		s := d.fieldSchema(sf, omit, fdoc)
		if props == nil {
			props = map[string]*Schema{}
		}
		props[name] = s
		if markers.Has("required") || (!omit && !markers.Has("optional")) {
			required = append(required, name)
		}
	}
	return props, required
}

// fieldSchema derives the property of one field.
func (d *deriver) fieldSchema(sf reflect.StructField, omit bool, fdoc *apidoc.Field) *Schema {
	s := d.typeSchema(sf.Type)
	var markers apidoc.Markers
	if fdoc != nil {
		s.Description = fdoc.Doc
		markers = fdoc.Markers
	}
	if v, ok := markers.Get("default"); ok {
		var def any
		if err := json.Unmarshal([]byte(v), &def); err != nil {
			d.fail("openapi: %s: +default=%s is not JSON: %v", sf.Name, v, err)
		}
		s.Default = def
	} else if !markers.Has("openapi:noDefault") {
		s.Default = zeroDefault(sf.Type, omit)
	}
	if values, ok := markers["openapi:enum"]; ok {
		target := s
		if s.Type == "array" && s.Items != nil {
			target = s.Items
		}
		target.Enum = slices.Clone(values)
	}
	ext := map[string]any{}
	if v := sf.Tag.Get("patchMergeKey"); v != "" {
		ext["x-kubernetes-patch-merge-key"] = v
	}
	if v := sf.Tag.Get("patchStrategy"); v != "" {
		ext["x-kubernetes-patch-strategy"] = v
	}
	if v, ok := markers.Get("listType"); ok {
		ext["x-kubernetes-list-type"] = v
	}
	if keys, ok := markers["listMapKey"]; ok {
		ext["x-kubernetes-list-map-keys"] = slices.Clone(keys)
	}
	if v, ok := markers.Get("mapType"); ok {
		ext["x-kubernetes-map-type"] = v
	}
	if len(ext) > 0 {
		s.Ext = ext
	}
	return s
}

// typeSchema is the schema of a value of Go type t, without description
// or default.
func (d *deriver) typeSchema(t reflect.Type) *Schema {
	if t.Kind() == reflect.Pointer {
		return d.typeSchema(t.Elem())
	}
	if isDefinition(t) {
		return Ref(d.definition(t), "")
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int32:
		return &Schema{Type: "integer", Format: "int32"}
	case reflect.Int64:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: "string", Format: "byte"}
		}
		return Array(d.valueSchema(t.Elem()), "", nil)
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return &Schema{Type: "object", AddlProps: d.valueSchema(t.Elem())}
		}
	}
	d.fail("openapi: Go type %v has no OpenAPI form", t)
	return &Schema{}
}

// valueSchema is the schema of an array item or map value: a field
// without omitempty.
func (d *deriver) valueSchema(t reflect.Type) *Schema {
	s := d.typeSchema(t)
	s.Default = zeroDefault(t, false)
	return s
}

// zeroDefault is the default kube-openapi enforces for a field of type t
// (nil: none).
func zeroDefault(t reflect.Type, omit bool) any {
	if _, _, custom := customType(t); custom {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return map[string]any{}
	case reflect.String:
		if !omit {
			return ""
		}
	case reflect.Bool:
		if !omit {
			return false
		}
	case reflect.Int32, reflect.Int64:
		if !omit {
			return 0
		}
	}
	return nil
}

// The apimachinery kinds and types every document defines (kube-apiserver
// registers them in every group-version; aggsim's documents list them
// whether or not a path refers to them), and the group-versions aggsim
// registers the shared kinds Status, DeleteOptions and WatchEvent in.
var (
	apimachineryTypes = []reflect.Type{
		reflect.TypeFor[meta.ObjectMeta](), reflect.TypeFor[meta.ListMeta](),
		reflect.TypeFor[meta.Status](), reflect.TypeFor[meta.DeleteOptions](),
		reflect.TypeFor[meta.Patch](), reflect.TypeFor[meta.WatchEvent](),
		reflect.TypeFor[meta.Condition](), reflect.TypeFor[core.IntOrString](),
	}
	// sharedKinds are registered in every group-version of
	// kube-apiserver's scheme (sharedGroupVersions); Status only in the
	// core group's (upstream's x-kubernetes-group-version-kind lists,
	// captured from kube-apiserver 1.33.13).
	sharedKinds = []reflect.Type{reflect.TypeFor[meta.DeleteOptions](), reflect.TypeFor[meta.WatchEvent]()}
	// sharedGroupVersions are the group-versions kube-apiserver 1.33
	// registers, served or not, in upstream's order.
	sharedGroupVersions = [][2]string{
		{"", "v1"}, {"admission.k8s.io", "v1"}, {"admission.k8s.io", "v1beta1"},
		{"admissionregistration.k8s.io", "v1"}, {"admissionregistration.k8s.io", "v1alpha1"},
		{"admissionregistration.k8s.io", "v1beta1"}, {"apiextensions.k8s.io", "v1"},
		{"apiextensions.k8s.io", "v1beta1"}, {"apiregistration.k8s.io", "v1"},
		{"apiregistration.k8s.io", "v1beta1"}, {"apps", "v1"}, {"apps", "v1beta1"}, {"apps", "v1beta2"},
		{"authentication.k8s.io", "v1"}, {"authentication.k8s.io", "v1alpha1"},
		{"authentication.k8s.io", "v1beta1"}, {"authorization.k8s.io", "v1"},
		{"authorization.k8s.io", "v1beta1"}, {"autoscaling", "v1"}, {"autoscaling", "v2"},
		{"autoscaling", "v2beta1"}, {"autoscaling", "v2beta2"}, {"batch", "v1"}, {"batch", "v1beta1"},
		{"certificates.k8s.io", "v1"}, {"certificates.k8s.io", "v1alpha1"},
		{"certificates.k8s.io", "v1beta1"}, {"coordination.k8s.io", "v1"},
		{"coordination.k8s.io", "v1alpha2"}, {"coordination.k8s.io", "v1beta1"},
		{"discovery.k8s.io", "v1"}, {"discovery.k8s.io", "v1beta1"}, {"events.k8s.io", "v1"},
		{"events.k8s.io", "v1beta1"}, {"extensions", "v1beta1"}, {"flowcontrol.apiserver.k8s.io", "v1"},
		{"flowcontrol.apiserver.k8s.io", "v1beta1"}, {"flowcontrol.apiserver.k8s.io", "v1beta2"},
		{"flowcontrol.apiserver.k8s.io", "v1beta3"}, {"imagepolicy.k8s.io", "v1alpha1"},
		{"internal.apiserver.k8s.io", "v1alpha1"}, {"networking.k8s.io", "v1"},
		{"networking.k8s.io", "v1alpha1"}, {"networking.k8s.io", "v1beta1"}, {"node.k8s.io", "v1"},
		{"node.k8s.io", "v1alpha1"}, {"node.k8s.io", "v1beta1"}, {"policy", "v1"}, {"policy", "v1beta1"},
		{"rbac.authorization.k8s.io", "v1"}, {"rbac.authorization.k8s.io", "v1alpha1"},
		{"rbac.authorization.k8s.io", "v1beta1"}, {"resource.k8s.io", "v1alpha3"},
		{"resource.k8s.io", "v1beta1"}, {"resource.k8s.io", "v1beta2"}, {"scheduling.k8s.io", "v1"},
		{"scheduling.k8s.io", "v1alpha1"}, {"scheduling.k8s.io", "v1beta1"}, {"storage.k8s.io", "v1"},
		{"storage.k8s.io", "v1alpha1"}, {"storage.k8s.io", "v1beta1"},
		{"storagemigration.k8s.io", "v1alpha1"},
	}
)

// Names of the definitions Build refers to itself.
var (
	statusDefinition        = DefinitionName(reflect.TypeFor[meta.Status]())
	deleteOptionsDefinition = DefinitionName(reflect.TypeFor[meta.DeleteOptions]())
	patchDefinition         = DefinitionName(reflect.TypeFor[meta.Patch]())
	watchEventDefinition    = DefinitionName(reflect.TypeFor[meta.WatchEvent]())
)

// apimachineryDefinitions are the definitions of apimachineryTypes, built
// once and never changed.
var apimachineryDefinitions = sync.OnceValue(func() map[string]*Schema {
	defs, err := Definitions(apimachineryTypes...)
	if err != nil {
		panic(err.Error()) // meta's types are static
	}
	for _, t := range sharedKinds {
		for _, gv := range sharedGroupVersions {
			AddGroupVersionKind(defs[DefinitionName(t)], gv[0], gv[1], t.Name())
		}
	}
	AddGroupVersionKind(defs[statusDefinition], "", "v1", "Status")
	return defs
})
