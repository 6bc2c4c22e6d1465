package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/openapi"
)

// CustomResourceOpenAPI builds the swagger 2.0 document (v2: the paths
// and definitions of the group/version's custom resources, to merge into
// /openapi/v2) and the OpenAPI 3.0 document of apis/<group>/<version>
// (v3) for the Established CRDs of crds that serve group/version, as
// apiextensions-apiserver publishes them (pkg/controller/openapi/builder):
// the kind's definition is its schema (named like
// com.example.restaurant.v1beta1.Pizza) with metadata an ObjectMeta, the
// list kind's holds items, and the paths are a custom resource's
// (collection, item, watch, /status). Errors: a schema that cannot be
// converted, or Build's.
func CustomResourceOpenAPI(group, version string, crds []*apiextensions.CustomResourceDefinition) (v2, v3 []byte, err error) {
	defs := map[string]*openapi.Schema{}
	var resources []openapi.Resource
	for _, crd := range crds {
		i := crdVersionIndex(crd, version)
		if i < 0 || crd.Spec.Group != group {
			continue
		}
		// what discovery shows of the version: no schema built, no rules
		// compiled (the served strategy has done that already)
		s := &CustomResourceStrategy{crd: crd, version: &crd.Spec.Versions[i]}
		info := s.Info()
		prefix := crdDefinitionPrefix(group, version)
		kindDef, listDef := prefix+info.Kind, prefix+info.ListKind
		kind := &openapi.Schema{Type: "object"}
		if v := s.version.Schema; v != nil && v.OpenAPIV3Schema != nil {
			kind = schemaOf(v.OpenAPIV3Schema)
		}
		if kind.Props == nil {
			kind.Props = map[string]*openapi.Schema{}
		}
		kind.Type = "object"
		kind.Props["apiVersion"] = openapi.String("APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources")
		kind.Props["kind"] = openapi.String("Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds")
		kind.Props["metadata"] = openapi.Ref(metaV1+"ObjectMeta", "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata")
		openapi.AddGroupVersionKind(kind, group, version, info.Kind)
		list := openapi.Object(info.ListKind+" is a list of "+info.Kind, map[string]*openapi.Schema{
			"apiVersion": openapi.String(kind.Props["apiVersion"].Description),
			"items":      openapi.Array(openapi.Ref(kindDef, ""), "List of "+info.Resource+". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md", nil),
			"kind":       openapi.String(kind.Props["kind"].Description),
			"metadata":   openapi.Ref(metaV1+"ListMeta", "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"),
		}, "items")
		openapi.AddGroupVersionKind(list, group, version, info.ListKind)
		defs[kindDef], defs[listDef] = kind, list
		r := info.OpenAPIResource(kindDef, listDef)
		r.NoStrategicMergePatch = true // custom resources answer it 415
		// no watch paths: apiextensions-apiserver documents none
		r.Verbs = slices.DeleteFunc(slices.Clone(info.Verbs), func(v string) bool { return v == "watch" })
		resources = append(resources, r)
	}
	if len(resources) == 0 {
		return nil, nil, fmt.Errorf("no custom resources in %s/%s", group, version)
	}
	sort.Slice(resources, func(i, j int) bool { return resources[i].Resource < resources[j].Resource })
	docs, err := openapi.Build(openapi.DocumentSpec{Title: "Kubernetes CRD Swagger", Version: "v0.1.0", Resources: resources, Definitions: defs})
	if err != nil {
		return nil, nil, err
	}
	return docs.V2, docs.V3["apis/"+group+"/"+version], nil
}

// crdDefinitionPrefix is the definition name prefix of a CRD
// group/version: the group's labels reversed, then the version
// ("com.example.restaurant.v1beta1.").
func crdDefinitionPrefix(group, version string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + version + "."
}

// schemaOf converts a CRD schema into an OpenAPI schema: types, formats,
// descriptions, properties, items, additionalProperties, required,
// string enums, defaults and the x-kubernetes extensions kubectl reads.
func schemaOf(p *apiextensions.JSONSchemaProps) *openapi.Schema {
	s := &openapi.Schema{Type: p.Type, Format: p.Format, Description: p.Description, Required: slices.Clone(p.Required)}
	if p.Items != nil && p.Items.Schema != nil {
		s.Items = schemaOf(p.Items.Schema)
	}
	if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil {
		s.AddlProps = schemaOf(p.AdditionalProperties.Schema)
	}
	if len(p.Properties) > 0 {
		s.Props = make(map[string]*openapi.Schema, len(p.Properties))
		for k, v := range p.Properties {
			s.Props[k] = schemaOf(&v)
		}
	}
	for _, e := range p.Enum {
		var str string
		if json.Unmarshal(e.Raw, &str) == nil {
			s.Enum = append(s.Enum, str)
		}
	}
	if p.Default != nil {
		var d any
		if json.Unmarshal(p.Default.Raw, &d) == nil {
			s.Default = d
		}
	}
	ext := map[string]any{}
	if p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields {
		ext["x-kubernetes-preserve-unknown-fields"] = true
	}
	if p.XEmbeddedResource {
		ext["x-kubernetes-embedded-resource"] = true
	}
	if p.XIntOrString {
		ext["x-kubernetes-int-or-string"] = true
	}
	if p.XListType != nil {
		ext["x-kubernetes-list-type"] = *p.XListType
	}
	if len(p.XListMapKeys) > 0 {
		ext["x-kubernetes-list-map-keys"] = p.XListMapKeys
	}
	if p.XMapType != nil {
		ext["x-kubernetes-map-type"] = *p.XMapType
	}
	if len(ext) > 0 {
		s.Ext = ext
	}
	return s
}
