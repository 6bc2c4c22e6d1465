package registry

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// OpenAPI documents of aggsim's own resources: swagger 2.0 for
// /openapi/v2 and OpenAPI 3.0 for /openapi/v3 (an index plus one document
// per group-version), shaped like kube-apiserver's (kube-openapi builder
// output): definitions named io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService,
// io.k8s.api.core.v1.Service, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta...;
// x-kubernetes-group-version-kind on every kind and on every operation;
// the strategic-merge-patch extensions kubectl apply reads
// (x-kubernetes-patch-merge-key / -patch-strategy / -list-type /
// -list-map-keys); and the fieldValidation query parameter on every
// POST/PUT/PATCH, which kubectl 1.27+ looks for on the PATCH operation of
// a kind (cli-runtime resource/query_param_verifier_v3.go) before it sends
// server-side field validation. The documents are built once, on first
// use, and never change.

// OpenAPIV3IndexEntry is one entry of the /openapi/v3 index: the key
// ("apis/wardle.example.com/v1alpha1") and the URL of its document,
// usually "/openapi/v3/<key>?hash=<HASH>".
type OpenAPIV3IndexEntry struct {
	Path              string
	ServerRelativeURL string
}

// OpenAPIV2 returns the swagger 2.0 document of aggsim's own resources
// (JSON). The bytes are shared: callers must not modify them.
func OpenAPIV2() []byte { return openAPIDocs().v2 }

// OpenAPIV3GroupVersion returns the OpenAPI v3 document for gvPath
// ("api/v1" or "apis/apiregistration.k8s.io/v1", without leading slash)
// and true, or nil and false when aggsim serves no such group-version.
// The bytes are shared: callers must not modify them.
func OpenAPIV3GroupVersion(gvPath string) ([]byte, bool) {
	d, ok := openAPIDocs().v3[strings.TrimPrefix(gvPath, "/")]
	return d, ok
}

// OpenAPIV3Hash returns the hash of the v3 document of gvPath, as used in
// its serverRelativeURL and ETag: upper-case hex SHA-512 of the bytes.
func OpenAPIV3Hash(gvPath string) (string, bool) {
	h, ok := openAPIDocs().v3hash[strings.TrimPrefix(gvPath, "/")]
	return h, ok
}

// OpenAPIHash returns the upper-case hex SHA-512 of doc, the hash
// kube-openapi puts in serverRelativeURL ?hash= and in the ETag.
func OpenAPIHash(doc []byte) string { return fmt.Sprintf("%X", sha512.Sum512(doc)) }

// OpenAPIAcceptsJSON reports whether an Accept header admits the JSON form
// of an /openapi/v2 document: an empty header, or a media range (its
// parameters ignored) that is application/json, application/* or */*.
// kube-openapi's handler (k8s.io/kube-openapi/pkg/handler/handler.go)
// answers 406 otherwise.
func OpenAPIAcceptsJSON(accept string) bool {
	return accept == "" || negotiation.Names(accept, "application/json", "*/*", "application/*")
}

// OpenAPIV3Index returns the /openapi/v3 index: aggsim's own
// group-versions plus extra (e.g. those of available remote APIServices);
// an extra entry with the same path replaces aggsim's.
func OpenAPIV3Index(extra ...OpenAPIV3IndexEntry) []byte {
	type entry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	d := openAPIDocs()
	paths := make(map[string]entry, len(d.v3)+len(extra))
	for gv, h := range d.v3hash {
		paths[gv] = entry{"/openapi/v3/" + gv + "?hash=" + h}
	}
	for _, e := range extra {
		paths[e.Path] = entry{e.ServerRelativeURL}
	}
	b, _ := json.Marshal(map[string]any{"paths": paths})
	return b
}

type openAPIDocSet struct {
	v2     []byte
	v3     map[string][]byte
	v3hash map[string]string
}

var openAPIDocs = sync.OnceValue(buildOpenAPIDocs)

// openAPIInfoVersion is the info.version kube-apiserver 1.33 reports.
const openAPIInfoVersion = "v1.33.13"

func buildOpenAPIDocs() *openAPIDocSet {
	var infos []ResourceInfo
	for _, s := range Strategies(nil) {
		infos = append(infos, s.Info())
	}
	docs, err := BuildOpenAPI(OpenAPIDocumentSpec{
		Title: "Kubernetes", Version: openAPIInfoVersion,
		Resources: infos, DefinitionName: definitionName, Definitions: openAPIDefinitions(),
	})
	if err != nil {
		panic("registry: " + err.Error())
	}
	set := &openAPIDocSet{v2: docs.V2, v3: docs.V3, v3hash: map[string]string{}}
	for gv, b := range docs.V3 {
		set.v3hash[gv] = OpenAPIHash(b)
	}
	return set
}

// OpenAPIDocumentSpec describes the OpenAPI documents of one API server's
// resources for BuildOpenAPI: aggsim's own, or an aggregated backend's
// (package demo). It mirrors what k8s.io/apiserver's OpenAPI builder is
// given (routes plus the generated definitions and a definition namer).
type OpenAPIDocumentSpec struct {
	// Title and Version are the documents' info.title and info.version
	// (kube-apiserver: "Kubernetes" and its version; sample-apiserver:
	// "Wardle" and "0.1").
	Title, Version string
	// Resources are the served resources: each gets its collection, item
	// and (HasStatus) /status paths with every verb, in the document of its
	// group-version.
	Resources []ResourceInfo
	// DefinitionName returns the definition name of a kind of info (its
	// Kind or ListKind), e.g. "io.k8s.api.core.v1.Service" (required).
	DefinitionName func(info ResourceInfo, kind string) string
	// Definitions are the schemas by definition name. They may reference
	// the apimachinery definitions (io.k8s.apimachinery.pkg.apis.meta.v1.
	// ObjectMeta, ListMeta, Condition, Status, ...), which BuildOpenAPI
	// adds; an entry here replaces one of those with the same name.
	Definitions map[string]*OpenAPISchema
}

// OpenAPIDocuments are the encoded documents BuildOpenAPI returns.
type OpenAPIDocuments struct {
	// V2 is the swagger 2.0 document (/openapi/v2): every path and every
	// definition.
	V2 []byte
	// V3 holds one OpenAPI 3.0 document per group-version path ("api/v1",
	// "apis/<group>/<version>": the /openapi/v3 index keys) with only the
	// schemas its paths reach.
	V3 map[string][]byte
}

// BuildOpenAPI encodes the swagger 2.0 and OpenAPI 3.0 documents of spec's
// resources, shaped like kube-openapi's builder output (see the file
// comment: group-version-kind extensions, fieldValidation, dryRun and
// fieldManager on writes). Errors: no DefinitionName, or a definition or
// resource kind that references a definition that is not there.
func BuildOpenAPI(spec OpenAPIDocumentSpec) (OpenAPIDocuments, error) {
	if spec.DefinitionName == nil {
		return OpenAPIDocuments{}, fmt.Errorf("openapi: DefinitionName is required")
	}
	defs := map[string]*OpenAPISchema{}
	metaDefinitions(defs)
	for name, d := range spec.Definitions {
		defs[name] = d
	}
	roots := []string{metaV1 + "Status", metaV1 + "DeleteOptions", metaV1 + "Patch", metaV1 + "WatchEvent"}
	for _, info := range spec.Resources {
		roots = append(roots, spec.DefinitionName(info, info.Kind), spec.DefinitionName(info, info.ListKind))
	}
	if missing := missingDefinitions(defs, roots); len(missing) > 0 {
		return OpenAPIDocuments{}, fmt.Errorf("openapi: definitions referenced but not defined: %s", strings.Join(missing, ", "))
	}
	info := map[string]any{"title": spec.Title, "version": spec.Version}
	security := []any{map[string]any{"BearerToken": []any{}}}
	bearer := map[string]any{"BearerToken": map[string]any{"description": "Bearer Token authentication", "type": "apiKey", "name": "authorization", "in": "header"}}
	out := OpenAPIDocuments{V3: map[string][]byte{}}

	// v2: every resource in one document.
	v2paths := map[string]any{}
	for _, ri := range spec.Resources {
		for p, item := range resourcePaths(ri, false, spec.DefinitionName) {
			v2paths[p] = item
		}
	}
	v2defs := map[string]any{}
	for name, s := range defs {
		v2defs[name] = s.render(false)
	}
	out.V2 = mustJSON(map[string]any{
		"swagger":             "2.0",
		"info":                info,
		"paths":               v2paths,
		"definitions":         v2defs,
		"securityDefinitions": bearer,
		"security":            security,
	})

	// v3: one document per group-version with only the schemas it uses.
	byGV := map[string][]ResourceInfo{}
	for _, ri := range spec.Resources {
		byGV[gvPath(ri)] = append(byGV[gvPath(ri)], ri)
	}
	for gv, infos := range byGV {
		paths := map[string]any{}
		roots := []string{metaV1 + "Status", metaV1 + "DeleteOptions", metaV1 + "Patch", metaV1 + "WatchEvent"}
		for _, ri := range infos {
			for p, item := range resourcePaths(ri, true, spec.DefinitionName) {
				paths[p] = item
			}
			roots = append(roots, spec.DefinitionName(ri, ri.Kind), spec.DefinitionName(ri, ri.ListKind))
		}
		schemas := map[string]any{}
		for _, name := range reachableDefinitions(defs, roots) {
			schemas[name] = defs[name].render(true)
		}
		out.V3[gv] = mustJSON(map[string]any{
			"openapi": "3.0.0",
			"info":    info,
			"paths":   paths,
			"components": map[string]any{
				"schemas":         schemas,
				"securitySchemes": bearer,
			},
			"security": security,
		})
	}
	return out, nil
}

// missingDefinitions returns, sorted, the names referenced from roots or
// from any definition that defs does not hold.
func missingDefinitions(defs map[string]*OpenAPISchema, roots []string) []string {
	missing := map[string]bool{}
	for _, r := range roots {
		if _, ok := defs[r]; !ok {
			missing[r] = true
		}
	}
	for _, d := range defs {
		for _, r := range d.refs(nil) {
			if _, ok := defs[r]; !ok {
				missing[r] = true
			}
		}
	}
	out := make([]string, 0, len(missing))
	for n := range missing {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("registry: openapi document does not encode: " + err.Error())
	}
	return b
}

// gvPath is "api/v1" for the core group, "apis/<group>/<version>" otherwise.
func gvPath(info ResourceInfo) string {
	if info.Group == "" {
		return "api/" + info.Version
	}
	return "apis/" + info.Group + "/" + info.Version
}

const (
	metaV1       = "io.k8s.apimachinery.pkg.apis.meta.v1."
	coreV1       = "io.k8s.api.core.v1."
	apiregV1     = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1."
	admissionV1  = "io.k8s.api.admissionregistration.v1."
	flowV1       = "io.k8s.api.flowcontrol.v1."
	intOrStrName = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	rawExtName   = "io.k8s.apimachinery.pkg.runtime.RawExtension"
)

// definitionName is the OpenAPI definition name of one of aggsim's kinds.
func definitionName(info ResourceInfo, kind string) string {
	switch info.Group {
	case apiregistration.GroupAPIRegistration:
		return apiregV1 + kind
	case GroupAdmissionRegistration:
		return admissionV1 + kind
	case GroupFlowControl:
		return flowV1 + kind
	}
	return coreV1 + kind
}

// OpenAPISchema is a format-neutral schema (a subset of kube-openapi's
// spec.Schema): BuildOpenAPI renders it as swagger 2.0 (refs to
// #/definitions/) or OpenAPI 3 (refs to #/components/schemas/, wrapped in
// allOf when the property carries its own description or default).
type OpenAPISchema struct {
	Type        string
	Format      string
	Description string
	Ref         string // definition name
	Items       *OpenAPISchema
	AddlProps   *OpenAPISchema
	Props       map[string]*OpenAPISchema
	Required    []string
	Default     any
	Ext         map[string]any
}

func (s *OpenAPISchema) render(v3 bool) map[string]any {
	m := map[string]any{}
	if s.Ref != "" {
		ref := "#/definitions/" + s.Ref
		if v3 {
			ref = "#/components/schemas/" + s.Ref
		}
		if v3 && (s.Description != "" || s.Default != nil) {
			m["allOf"] = []any{map[string]any{"$ref": ref}}
		} else {
			m["$ref"] = ref
		}
	}
	if s.Type != "" {
		m["type"] = s.Type
	}
	if s.Format != "" {
		m["format"] = s.Format
	}
	if s.Description != "" {
		m["description"] = s.Description
	}
	if s.Default != nil && v3 {
		m["default"] = s.Default
	}
	if s.Items != nil {
		m["items"] = s.Items.render(v3)
	}
	if s.AddlProps != nil {
		m["additionalProperties"] = s.AddlProps.render(v3)
	}
	if len(s.Props) > 0 {
		props := map[string]any{}
		for k, p := range s.Props {
			props[k] = p.render(v3)
		}
		m["properties"] = props
	}
	if len(s.Required) > 0 {
		m["required"] = s.Required
	}
	for k, v := range s.Ext {
		m[k] = v
	}
	return m
}

// refs appends every definition s refers to.
func (s *OpenAPISchema) refs(out []string) []string {
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

// reachableDefinitions returns roots and every definition they reach,
// sorted.
func reachableDefinitions(defs map[string]*OpenAPISchema, roots []string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		d, ok := defs[n]
		if !ok {
			panic("registry: openapi definition missing: " + n)
		}
		seen[n] = true
		for _, r := range d.refs(nil) {
			walk(r)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Schema constructors.
func oaString(desc string) *OpenAPISchema { return &OpenAPISchema{Type: "string", Description: desc} }
func oaBool(desc string) *OpenAPISchema   { return &OpenAPISchema{Type: "boolean", Description: desc} }
func oaInt32(desc string) *OpenAPISchema {
	return &OpenAPISchema{Type: "integer", Format: "int32", Description: desc}
}
func oaInt64(desc string) *OpenAPISchema {
	return &OpenAPISchema{Type: "integer", Format: "int64", Description: desc}
}
func oaRef(name, desc string) *OpenAPISchema { return &OpenAPISchema{Ref: name, Description: desc} }

// oaReqString and oaReqInt32 are scalars of a Go field without omitempty:
// kube-openapi gives them their zero value as default.
func oaReqString(desc string) *OpenAPISchema {
	return &OpenAPISchema{Type: "string", Default: "", Description: desc}
}
func oaReqInt32(desc string) *OpenAPISchema {
	return &OpenAPISchema{Type: "integer", Format: "int32", Default: 0, Description: desc}
}

// sharedMetaKind is the definition of a meta/v1 kind that travels with
// apiVersion and kind but no metadata (Status, DeleteOptions): props plus
// those two, and the extension of sharedMetaGVK.
func sharedMetaKind(kind, desc string, props map[string]*OpenAPISchema) *OpenAPISchema {
	props["apiVersion"] = oaString(descAPIVersion)
	props["kind"] = oaString(descKind)
	return &OpenAPISchema{Type: "object", Description: desc, Props: props, Ext: sharedMetaGVK(kind)}
}

// specStatus are the properties of a kind with spec and status structs,
// the definitions prefix+"Spec" and prefix+"Status" (prefix is the kind's
// definition name).
func specStatus(prefix, specDesc, statusDesc string) map[string]*OpenAPISchema {
	return map[string]*OpenAPISchema{
		"spec":   oaStruct(prefix+"Spec", specDesc),
		"status": oaStruct(prefix+"Status", statusDesc),
	}
}

// typedCondition is the definition of a per-kind condition struct
// (APIServiceCondition, NamespaceCondition): required type and status, and
// the optional lastTransitionTime, reason and message these kinds describe
// alike.
func typedCondition(desc, statusDesc, typeDesc string) *OpenAPISchema {
	c := oaObject(desc, map[string]*OpenAPISchema{
		"lastTransitionTime": oaRef(metaV1+"Time", "Last time the condition transitioned from one status to another."),
		"message":            oaString("Human-readable message indicating details about last transition."),
		"reason":             oaString("Unique, one-word, CamelCase reason for the condition's last transition."),
		"status":             oaReqString(statusDesc),
		"type":               oaReqString(typeDesc),
	})
	c.Required = []string{"type", "status"}
	return c
}

// oaObject is a struct definition: an object with properties props.
func oaObject(desc string, props map[string]*OpenAPISchema) *OpenAPISchema {
	return &OpenAPISchema{Type: "object", Description: desc, Props: props}
}

// oaStruct is a reference to a non-pointer struct field (v3 adds
// "default": {} as upstream does).
func oaStruct(name, desc string) *OpenAPISchema {
	return &OpenAPISchema{Ref: name, Description: desc, Default: map[string]any{}}
}
func oaStrings(desc string, ext map[string]any) *OpenAPISchema {
	return &OpenAPISchema{Type: "array", Description: desc, Items: &OpenAPISchema{Type: "string", Default: ""}, Ext: ext}
}
func oaArray(item string, desc string, ext map[string]any) *OpenAPISchema {
	return &OpenAPISchema{Type: "array", Description: desc, Items: &OpenAPISchema{Ref: item, Default: map[string]any{}}, Ext: ext}
}
func oaStringMap(desc string, ext map[string]any) *OpenAPISchema {
	return &OpenAPISchema{Type: "object", Description: desc, AddlProps: &OpenAPISchema{Type: "string", Default: ""}, Ext: ext}
}
func gvkExt(group, version, kind string) map[string]any {
	return map[string]any{"x-kubernetes-group-version-kind": []any{map[string]any{"group": group, "version": version, "kind": kind}}}
}

// sharedMetaGVK is the group-version-kind extension of a meta/v1 kind
// (Status, DeleteOptions, WatchEvent) that aggsim registers both in the core
// v1 and in the apiregistration.k8s.io/v1 group-version.
func sharedMetaGVK(kind string) map[string]any {
	return map[string]any{"x-kubernetes-group-version-kind": []any{
		map[string]any{"group": "", "version": "v1", "kind": kind},
		map[string]any{"group": apiregistration.GroupAPIRegistration, "version": "v1", "kind": kind},
	}}
}

var (
	atomicList = map[string]any{"x-kubernetes-list-type": "atomic"}
	atomicMap  = map[string]any{"x-kubernetes-map-type": "atomic"}
)

func mapList(mergeKey string, keys ...string) map[string]any {
	return map[string]any{
		"x-kubernetes-list-type":       "map",
		"x-kubernetes-list-map-keys":   keys,
		"x-kubernetes-patch-merge-key": mergeKey,
		"x-kubernetes-patch-strategy":  "merge",
	}
}

const (
	descAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descMetadata   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	descListMeta   = "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// kindSchema builds a top-level kind with apiVersion, kind, metadata and
// the given extra properties.
func kindSchema(group, version, kind, desc string, props map[string]*OpenAPISchema) *OpenAPISchema {
	p := map[string]*OpenAPISchema{
		"apiVersion": oaString(descAPIVersion),
		"kind":       oaString(descKind),
		"metadata":   oaStruct(metaV1+"ObjectMeta", descMetadata),
	}
	for k, v := range props {
		p[k] = v
	}
	return &OpenAPISchema{Type: "object", Description: desc, Props: p, Ext: gvkExt(group, version, kind)}
}

// OpenAPIKindSchema returns the definition of a top-level kind: an object
// with apiVersion, kind and metadata (ObjectMeta) plus props, and the
// x-kubernetes-group-version-kind extension naming group, version and kind
// (what kube-openapi's definition namer adds for a registered type).
func OpenAPIKindSchema(group, version, kind, desc string, props map[string]*OpenAPISchema) *OpenAPISchema {
	return kindSchema(group, version, kind, desc, props)
}

// OpenAPIListSchema returns the definition of the list kind listKind
// (apiVersion, kind, metadata as ListMeta and the required items, an array
// of the definition itemDefinition), with its group-version-kind extension.
func OpenAPIListSchema(group, version, listKind, itemDefinition, desc string) *OpenAPISchema {
	return listSchema(group, version, listKind, itemDefinition, desc)
}

func listSchema(group, version, kind, item, desc string) *OpenAPISchema {
	return &OpenAPISchema{
		Type: "object", Description: desc, Required: []string{"items"},
		Props: map[string]*OpenAPISchema{
			"apiVersion": oaString(descAPIVersion),
			"kind":       oaString(descKind),
			"metadata":   oaStruct(metaV1+"ListMeta", descListMeta),
			"items":      oaArray(item, "Items is the list of "+strings.TrimSuffix(kind, "List")+" objects.", nil),
		},
		Ext: gvkExt(group, version, kind),
	}
}

func openAPIDefinitions() map[string]*OpenAPISchema {
	d := map[string]*OpenAPISchema{}
	metaDefinitions(d)
	apiregistrationDefinitions(d)
	coreDefinitions(d)
	admissionDefinitions(d)
	flowControlDefinitions(d)
	return d
}

// openObject is an object schema whose properties aggsim does not model
// (its GenericObject bodies are stored verbatim).
func openObject(desc string, required ...string) *OpenAPISchema {
	return &OpenAPISchema{Type: "object", Description: desc, Required: required}
}

// admissionDefinitions are the admissionregistration.k8s.io/v1 kinds,
// top level only: spec, status and each webhook are open objects.
func admissionDefinitions(d map[string]*OpenAPISchema) {
	g, v := GroupAdmissionRegistration, VersionV1
	for _, w := range []string{"Mutating", "Validating"} {
		kind := w + "WebhookConfiguration"
		d[admissionV1+kind] = kindSchema(g, v, kind, kind+" describes the configuration of and admission webhook that accept or reject and may change the object.", map[string]*OpenAPISchema{
			"webhooks": oaArray(admissionV1+w+"Webhook", "Webhooks is a list of webhooks and the affected resources and operations.", mapList("name", "name")),
		})
		d[admissionV1+kind+"List"] = listSchema(g, v, kind+"List", admissionV1+kind, kind+"List is a list of "+kind+".")
		d[admissionV1+w+"Webhook"] = &OpenAPISchema{
			Type: "object", Description: w + "Webhook describes an admission webhook and the resources and operations it applies to.",
			Required: []string{"name", "clientConfig", "sideEffects", "admissionReviewVersions"},
			Props: map[string]*OpenAPISchema{
				"name": oaReqString("The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io, where \"imagepolicy\" is the name of the webhook, and kubernetes.io is the name of the organization. Required."),
			},
		}
	}
	d[admissionV1+"ValidatingAdmissionPolicy"] = kindSchema(g, v, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.",
		specStatus(admissionV1+"ValidatingAdmissionPolicy", "Specification of the desired behavior of the ValidatingAdmissionPolicy.", "The status of the ValidatingAdmissionPolicy, including warnings that are useful to determine if the policy behaves in the expected way. Populated by the system. Read-only."))
	d[admissionV1+"ValidatingAdmissionPolicyList"] = listSchema(g, v, "ValidatingAdmissionPolicyList", admissionV1+"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyList is a list of ValidatingAdmissionPolicy.")
	d[admissionV1+"ValidatingAdmissionPolicySpec"] = openObject("ValidatingAdmissionPolicySpec is the specification of the desired behavior of the AdmissionPolicy.")
	d[admissionV1+"ValidatingAdmissionPolicyStatus"] = openObject("ValidatingAdmissionPolicyStatus represents the status of an admission validation policy.")
	d[admissionV1+"ValidatingAdmissionPolicyBinding"] = kindSchema(g, v, "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.", map[string]*OpenAPISchema{
		"spec": oaStruct(admissionV1+"ValidatingAdmissionPolicyBindingSpec", "Specification of the desired behavior of the ValidatingAdmissionPolicyBinding."),
	})
	d[admissionV1+"ValidatingAdmissionPolicyBindingList"] = listSchema(g, v, "ValidatingAdmissionPolicyBindingList", admissionV1+"ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBindingList is a list of ValidatingAdmissionPolicyBinding.")
	d[admissionV1+"ValidatingAdmissionPolicyBindingSpec"] = openObject("ValidatingAdmissionPolicyBindingSpec is the specification of the ValidatingAdmissionPolicyBinding.")
}

// flowControlDefinitions are the flowcontrol.apiserver.k8s.io/v1 kinds,
// top level only: spec and status are open objects.
func flowControlDefinitions(d map[string]*OpenAPISchema) {
	g, v := GroupFlowControl, VersionV1
	for _, k := range []struct{ kind, desc string }{
		{"FlowSchema", "FlowSchema defines the schema of a group of flows. Note that a flow is made up of a set of inbound API requests with similar attributes and is identified by a pair of strings: the name of the FlowSchema and a \"flow distinguisher\"."},
		{"PriorityLevelConfiguration", "PriorityLevelConfiguration represents the configuration of a priority level."},
	} {
		d[flowV1+k.kind] = kindSchema(g, v, k.kind, k.desc,
			specStatus(flowV1+k.kind, "`spec` is the specification of the desired behavior of a "+k.kind+". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status", "`status` is the current status of a "+k.kind+". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"))
		d[flowV1+k.kind+"List"] = listSchema(g, v, k.kind+"List", flowV1+k.kind, k.kind+"List is a list of "+k.kind+" objects.")
		d[flowV1+k.kind+"Spec"] = openObject(k.kind + "Spec describes how the " + k.kind + "'s specification looks like.")
		d[flowV1+k.kind+"Status"] = &OpenAPISchema{Type: "object", Description: k.kind + "Status represents the current state of a " + k.kind + ".", Props: map[string]*OpenAPISchema{
			"conditions": oaArray(flowV1+k.kind+"Condition", "`conditions` is a list of the current states of "+k.kind+".", mapList("type", "type")),
		}}
		d[flowV1+k.kind+"Condition"] = &OpenAPISchema{Type: "object", Description: k.kind + "Condition describes conditions for a " + k.kind + ".", Props: map[string]*OpenAPISchema{
			"lastTransitionTime": oaRef(metaV1+"Time", "`lastTransitionTime` is the last time the condition transitioned from one status to another."),
			"message":            oaString("`message` is a human-readable message indicating details about last transition."),
			"reason":             oaString("`reason` is a unique, one-word, CamelCase reason for the condition's last transition."),
			"status":             oaString("`status` is the status of the condition. Can be True, False, Unknown. Required."),
			"type":               oaString("`type` is the type of the condition. Required."),
		}}
	}
}

func metaDefinitions(d map[string]*OpenAPISchema) {
	d[metaV1+"Time"] = &OpenAPISchema{Type: "string", Format: "date-time", Description: "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers."}
	d[metaV1+"FieldsV1"] = &OpenAPISchema{Type: "object", Description: "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format."}
	d[metaV1+"Patch"] = &OpenAPISchema{Type: "object", Description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."}
	d[rawExtName] = &OpenAPISchema{Type: "object", Description: "RawExtension is used to hold extensions in external versions."}
	d[intOrStrName] = &OpenAPISchema{Type: "string", Format: "int-or-string", Description: "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number."}
	d[metaV1+"OwnerReference"] = &OpenAPISchema{
		Type: "object", Description: "OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.",
		Required: []string{"apiVersion", "kind", "name", "uid"}, Ext: atomicMap,
		Props: map[string]*OpenAPISchema{
			"apiVersion":         oaString("API version of the referent."),
			"kind":               oaString("Kind of the referent."),
			"name":               oaString("Name of the referent."),
			"uid":                oaString("UID of the referent."),
			"controller":         oaBool("If true, this reference points to the managing controller."),
			"blockOwnerDeletion": oaBool("If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed."),
		},
	}
	d[metaV1+"ManagedFieldsEntry"] = oaObject("ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.", map[string]*OpenAPISchema{
		"apiVersion":  oaString("APIVersion defines the version of this resource that this field set applies to."),
		"fieldsType":  oaString("FieldsType is the discriminator for the different fields format and version. There is currently only one possible value: \"FieldsV1\""),
		"fieldsV1":    oaRef(metaV1+"FieldsV1", "FieldsV1 holds the first JSON version format as described in the \"FieldsV1\" type."),
		"manager":     oaString("Manager is an identifier of the workflow managing these fields."),
		"operation":   oaString("Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only valid values for this field are 'Apply' and 'Update'."),
		"subresource": oaString("Subresource is the name of the subresource used to update that object, or empty string if the object was updated through the main resource."),
		"time":        oaRef(metaV1+"Time", "Time is the timestamp of when the ManagedFields entry was added."),
	})
	d[metaV1+"ObjectMeta"] = oaObject("ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.", map[string]*OpenAPISchema{
		"annotations":                oaStringMap("Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.", nil),
		"creationTimestamp":          oaRef(metaV1+"Time", "CreationTimestamp is a timestamp representing the server time when this object was created. Populated by the system. Read-only. Null for lists."),
		"deletionGracePeriodSeconds": oaInt64("Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set. Read-only."),
		"deletionTimestamp":          oaRef(metaV1+"Time", "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. Populated by the system when a graceful deletion is requested. Read-only."),
		"finalizers":                 oaStrings("Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list.", map[string]any{"x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge"}),
		"generateName":               oaString("GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided."),
		"generation":                 oaInt64("A sequence number representing a specific generation of the desired state. Populated by the system. Read-only."),
		"labels":                     oaStringMap("Map of string keys and values that can be used to organize and categorize (scope and select) objects.", nil),
		"managedFields":              oaArray(metaV1+"ManagedFieldsEntry", "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.", atomicList),
		"name":                       oaString(nameColumnDescription),
		"namespace":                  oaString("Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the \"default\" namespace, but \"default\" is the canonical representation. Not all objects are required to be scoped to a namespace - the value of this field for those objects will be empty."),
		"ownerReferences":            oaArray(metaV1+"OwnerReference", "List of objects depended by this object.", mapList("uid", "uid")),
		"resourceVersion":            oaString("An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed. Populated by the system. Read-only."),
		"selfLink":                   oaString("Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
		"uid":                        oaString("UID is the unique in time and space value for this object. Populated by the system. Read-only."),
	})
	d[metaV1+"ListMeta"] = oaObject("ListMeta describes metadata that synthetic resources must have, including lists and various status objects.", map[string]*OpenAPISchema{
		"continue":           oaString("continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available."),
		"remainingItemCount": oaInt64("remainingItemCount is the number of subsequent items in the list which are not included in this list response."),
		"resourceVersion":    oaString("String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed."),
		"selfLink":           oaString("Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
	})
	d[metaV1+"StatusCause"] = oaObject("StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.", map[string]*OpenAPISchema{
		"field":   oaString("The field of the resource that has caused this error, as named by its JSON serialization."),
		"message": oaString("A human-readable description of the cause of the error."),
		"reason":  oaString("A machine-readable description of the cause of the error."),
	})
	d[metaV1+"StatusDetails"] = oaObject("StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.", map[string]*OpenAPISchema{
		"causes":            oaArray(metaV1+"StatusCause", "The Causes array includes more details associated with the StatusReason failure.", atomicList),
		"group":             oaString("The group attribute of the resource associated with the status StatusReason."),
		"kind":              oaString("The kind attribute of the resource associated with the status StatusReason."),
		"name":              oaString("The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described)."),
		"retryAfterSeconds": oaInt32("If specified, the time in seconds before the operation should be retried."),
		"uid":               oaString("UID of the resource."),
	})
	d[metaV1+"Status"] = sharedMetaKind("Status", "Status is a return value for calls that don't return other objects.", map[string]*OpenAPISchema{
		"code":     oaInt32("Suggested HTTP return code for this status, 0 if not set."),
		"details":  oaRef(metaV1+"StatusDetails", "Extended data associated with the reason."),
		"message":  oaString("A human-readable description of the status of this operation."),
		"metadata": oaStruct(metaV1+"ListMeta", descListMeta),
		"reason":   oaString("A machine-readable description of why this operation is in the \"Failure\" status."),
		"status":   oaString("Status of the operation. One of: \"Success\" or \"Failure\"."),
	})
	d[metaV1+"Preconditions"] = oaObject("Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.", map[string]*OpenAPISchema{
		"resourceVersion": oaString("Specifies the target ResourceVersion"),
		"uid":             oaString("Specifies the target UID."),
	})
	d[metaV1+"DeleteOptions"] = sharedMetaKind("DeleteOptions", "DeleteOptions may be provided when deleting an API object.", map[string]*OpenAPISchema{
		"dryRun":             oaStrings("When present, indicates that modifications should not be persisted.", atomicList),
		"gracePeriodSeconds": oaInt64("The duration in seconds before the object should be deleted."),
		"orphanDependents":   oaBool("Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7."),
		"preconditions":      oaRef(metaV1+"Preconditions", "Must be fulfilled before a deletion is carried out."),
		"propagationPolicy":  oaString("Whether and how garbage collection will be performed."),
	})
	d[metaV1+"WatchEvent"] = &OpenAPISchema{
		Type: "object", Description: "Event represents a single event to a watched resource.", Required: []string{"type", "object"}, Ext: sharedMetaGVK("WatchEvent"),
		Props: map[string]*OpenAPISchema{
			"object": oaStruct(rawExtName, "Object is:\n * If Type is Added or Modified: the new state of the object.\n * If Type is Deleted: the state of the object immediately before deletion.\n * If Type is Error: *Status is recommended; other types may make sense\n   depending on context."),
			"type":   &OpenAPISchema{Type: "string", Default: ""},
		},
	}
	d[metaV1+"Condition"] = &OpenAPISchema{
		Type: "object", Description: "Condition contains details for one aspect of the current state of this API Resource.",
		Required: []string{"type", "status", "lastTransitionTime", "reason", "message"},
		Props: map[string]*OpenAPISchema{
			"lastTransitionTime": oaRef(metaV1+"Time", "lastTransitionTime is the last time the condition transitioned from one status to another."),
			"message":            oaString("message is a human readable message indicating details about the transition."),
			"observedGeneration": oaInt64("observedGeneration represents the .metadata.generation that the condition was set based upon."),
			"reason":             oaString("reason contains a programmatic identifier indicating the reason for the condition's last transition."),
			"status":             oaString("status of the condition, one of True, False, Unknown."),
			"type":               oaString("type of condition in CamelCase or in foo.example.com/CamelCase."),
		},
	}
}

func apiregistrationDefinitions(d map[string]*OpenAPISchema) {
	g, v := apiregistration.GroupAPIRegistration, VersionV1
	d[apiregV1+"APIService"] = kindSchema(g, v, "APIService", "APIService represents a server for a particular GroupVersion. Name must be \"version.group\".",
		specStatus(apiregV1+"APIService", "Spec contains information for locating and communicating with a server", "Status contains derived information about an API server"))
	d[apiregV1+"APIServiceList"] = listSchema(g, v, "APIServiceList", apiregV1+"APIService", "APIServiceList is a list of APIService objects.")
	d[apiregV1+"ServiceReference"] = oaObject("ServiceReference holds a reference to Service.legacy.k8s.io", map[string]*OpenAPISchema{
		"name":      oaString("Name is the name of the service"),
		"namespace": oaString("Namespace is the namespace of the service"),
		"port":      oaInt32("If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive)."),
	})
	d[apiregV1+"APIServiceSpec"] = &OpenAPISchema{
		Type: "object", Description: "APIServiceSpec contains information for locating and communicating with a server. Only https is supported, though you are able to disable certificate verification.",
		Required: []string{"groupPriorityMinimum", "versionPriority"},
		Props: map[string]*OpenAPISchema{
			"caBundle":              {Type: "string", Format: "byte", Description: "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.", Ext: atomicList},
			"group":                 oaString("Group is the API group name this server hosts"),
			"groupPriorityMinimum":  oaReqInt32("GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10). The secondary sort is based on the alphabetical comparison of the name of the object. (v1.bar before v1.foo)"),
			"insecureSkipTLSVerify": oaBool("InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead."),
			"service":               oaRef(apiregV1+"ServiceReference", "Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled."),
			"version":               oaString("Version is the API version this server hosts.  For example, \"v1\""),
			"versionPriority":       oaReqInt32("VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10). Since it's inside of a group, the number can be small, probably in the 10s. In case of equal version priorities, the version string will be used to compute the order inside a group."),
		},
	}
	d[apiregV1+"APIServiceStatus"] = oaObject("APIServiceStatus contains derived information about an API server", map[string]*OpenAPISchema{
		"conditions": oaArray(apiregV1+"APIServiceCondition", "Current service state of apiService.", mapList("type", "type")),
	})
	d[apiregV1+"APIServiceCondition"] = typedCondition("APIServiceCondition describes the state of an APIService at a particular point",
		"Status is the status of the condition. Can be True, False, Unknown.", "Type is the type of the condition.")
}

func coreDefinitions(d map[string]*OpenAPISchema) {
	g, v := GroupCore, VersionV1
	d[coreV1+"Namespace"] = kindSchema(g, v, "Namespace", "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
		specStatus(coreV1+"Namespace", "Spec defines the behavior of the Namespace.", "Status describes the current status of a Namespace."))
	d[coreV1+"NamespaceList"] = listSchema(g, v, "NamespaceList", coreV1+"Namespace", "NamespaceList is a list of Namespaces.")
	d[coreV1+"NamespaceSpec"] = oaObject("NamespaceSpec describes the attributes on a Namespace.", map[string]*OpenAPISchema{
		"finalizers": oaStrings("Finalizers is an opaque list of values that must be empty to permanently remove object from storage.", atomicList),
	})
	d[coreV1+"NamespaceStatus"] = oaObject("NamespaceStatus is information about the current status of a Namespace.", map[string]*OpenAPISchema{
		"conditions": oaArray(coreV1+"NamespaceCondition", "Represents the latest available observations of a namespace's current state.", mapList("type", "type")),
		"phase":      oaString("Phase is the current lifecycle phase of the namespace."),
	})
	d[coreV1+"NamespaceCondition"] = typedCondition("NamespaceCondition contains details about state of namespace.",
		"Status of the condition, one of True, False, Unknown.", "Type of namespace controller condition.")

	d[coreV1+"Service"] = kindSchema(g, v, "Service", "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
		specStatus(coreV1+"Service", "Spec defines the behavior of a service.", "Most recently observed status of the service. Populated by the system. Read-only."))
	d[coreV1+"ServiceList"] = listSchema(g, v, "ServiceList", coreV1+"Service", "ServiceList holds a list of services.")
	d[coreV1+"ServiceSpec"] = oaObject("ServiceSpec describes the attributes that a user creates on a service.", map[string]*OpenAPISchema{
		"allocateLoadBalancerNodePorts": oaBool("allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer. Default is \"true\"."),
		"clusterIP":                     oaString("clusterIP is the IP address of the service and is usually assigned randomly."),
		"clusterIPs":                    oaStrings("ClusterIPs is a list of IP addresses assigned to this service, and are usually assigned randomly.", atomicList),
		"externalIPs":                   oaStrings("externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.", atomicList),
		"externalName":                  oaString("externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record). Must be a lowercase RFC-1123 hostname and requires `type` to be \"ExternalName\"."),
		"externalTrafficPolicy":         oaString("externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service's \"externally-facing\" addresses."),
		"healthCheckNodePort":           oaInt32("healthCheckNodePort specifies the healthcheck nodePort for the service."),
		"internalTrafficPolicy":         oaString("InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP. Default is \"Cluster\"."),
		"ipFamilies":                    oaStrings("IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service.", atomicList),
		"ipFamilyPolicy":                oaString("IPFamilyPolicy represents the dual-stack-ness requested or required by this Service."),
		"loadBalancerClass":             oaString("loadBalancerClass is the class of the load balancer implementation this Service belongs to."),
		"loadBalancerIP":                oaString("Only applies to Service Type: LoadBalancer. Deprecated."),
		"loadBalancerSourceRanges":      oaStrings("If specified and supported by the platform, this will restrict traffic through the cloud-provider load-balancer will be restricted to the specified client IPs.", atomicList),
		"ports":                         oaArray(coreV1+"ServicePort", "The list of ports that are exposed by this service.", mapList("port", "port", "protocol")),
		"publishNotReadyAddresses":      oaBool("publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready."),
		"selector":                      oaStringMap("Route service traffic to pods with label keys and values matching this selector.", atomicMap),
		"sessionAffinity":               oaString("Supports \"ClientIP\" and \"None\". Used to maintain session affinity. Defaults to None."),
		"sessionAffinityConfig":         oaRef(coreV1+"SessionAffinityConfig", "sessionAffinityConfig contains the configurations of session affinity."),
		"trafficDistribution":           oaString("TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints."),
		"type":                          oaString("type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer."),
	})
	d[coreV1+"SessionAffinityConfig"] = oaObject("SessionAffinityConfig represents the configurations of session affinity.", map[string]*OpenAPISchema{
		"clientIP": oaRef(coreV1+"ClientIPConfig", "clientIP contains the configurations of Client IP based session affinity."),
	})
	d[coreV1+"ClientIPConfig"] = oaObject("ClientIPConfig represents the configurations of Client IP based session affinity.", map[string]*OpenAPISchema{
		"timeoutSeconds": oaInt32("timeoutSeconds specifies the seconds of ClientIP type session sticky time. Default value is 10800(for 3 hours)."),
	})
	d[coreV1+"ServicePort"] = &OpenAPISchema{Type: "object", Description: "ServicePort contains information on service's port.", Required: []string{"port"}, Props: map[string]*OpenAPISchema{
		"appProtocol": oaString("The application protocol for this port."),
		"name":        oaString("The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec must have unique names."),
		"nodePort":    oaInt32("The port on each node on which this service is exposed when type is NodePort or LoadBalancer."),
		"port":        oaReqInt32("The port that will be exposed by this service."),
		"protocol":    &OpenAPISchema{Type: "string", Default: "TCP", Description: "The IP protocol for this port. Supports \"TCP\", \"UDP\", and \"SCTP\". Default is TCP."},
		"targetPort":  oaRef(intOrStrName, "Number or name of the port to access on the pods targeted by the service."),
	}}
	d[coreV1+"ServiceStatus"] = oaObject("ServiceStatus represents the current status of a service.", map[string]*OpenAPISchema{
		"conditions":   oaArray(metaV1+"Condition", "Current service state", mapList("type", "type")),
		"loadBalancer": oaStruct(coreV1+"LoadBalancerStatus", "LoadBalancer contains the current status of the load-balancer, if one is present."),
	})
	d[coreV1+"LoadBalancerStatus"] = oaObject("LoadBalancerStatus represents the status of a load-balancer.", map[string]*OpenAPISchema{
		"ingress": oaArray(coreV1+"LoadBalancerIngress", "Ingress is a list containing ingress points for the load-balancer.", atomicList),
	})
	d[coreV1+"LoadBalancerIngress"] = oaObject("LoadBalancerIngress represents the status of a load-balancer ingress point.", map[string]*OpenAPISchema{
		"hostname": oaString("Hostname is set for load-balancer ingress points that are DNS based."),
		"ip":       oaString("IP is set for load-balancer ingress points that are IP based."),
		"ipMode":   oaString("IPMode specifies how the load-balancer IP behaves."),
	})

	d[coreV1+"Endpoints"] = kindSchema(g, v, "Endpoints", "Endpoints is a collection of endpoints that implement the actual service. Deprecated: This API is deprecated in v1.33+. Use discoveryv1.EndpointSlice.", map[string]*OpenAPISchema{
		"subsets": oaArray(coreV1+"EndpointSubset", "The set of all endpoints is the union of all subsets.", atomicList),
	})
	d[coreV1+"EndpointsList"] = listSchema(g, v, "EndpointsList", coreV1+"Endpoints", "EndpointsList is a list of endpoints. Deprecated: This API is deprecated in v1.33+.")
	d[coreV1+"EndpointSubset"] = oaObject("EndpointSubset is a group of addresses with a common set of ports.", map[string]*OpenAPISchema{
		"addresses":         oaArray(coreV1+"EndpointAddress", "IP addresses which offer the related ports that are marked as ready.", atomicList),
		"notReadyAddresses": oaArray(coreV1+"EndpointAddress", "IP addresses which offer the related ports but are not currently marked as ready.", atomicList),
		"ports":             oaArray(coreV1+"EndpointPort", "Port numbers available on the related IP addresses.", atomicList),
	})
	d[coreV1+"EndpointAddress"] = &OpenAPISchema{Type: "object", Description: "EndpointAddress is a tuple that describes single IP address.", Required: []string{"ip"}, Ext: atomicMap, Props: map[string]*OpenAPISchema{
		"hostname":  oaString("The Hostname of this endpoint"),
		"ip":        oaReqString("The IP of this endpoint."),
		"nodeName":  oaString("Optional: Node hosting this endpoint."),
		"targetRef": oaRef(coreV1+"ObjectReference", "Reference to object providing the endpoint."),
	}}
	d[coreV1+"EndpointPort"] = &OpenAPISchema{Type: "object", Description: "EndpointPort is a tuple that describes a single port.", Required: []string{"port"}, Ext: atomicMap, Props: map[string]*OpenAPISchema{
		"appProtocol": oaString("The application protocol for this port."),
		"name":        oaString("The name of this port.  This must match the 'name' field in the corresponding ServicePort."),
		"port":        oaReqInt32("The port number of the endpoint."),
		"protocol":    oaString("The IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP."),
	}}
	d[coreV1+"ObjectReference"] = &OpenAPISchema{Type: "object", Description: "ObjectReference contains enough information to let you inspect or modify the referred object.", Ext: atomicMap, Props: map[string]*OpenAPISchema{
		"apiVersion":      oaString("API version of the referent."),
		"fieldPath":       oaString("If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement."),
		"kind":            oaString("Kind of the referent."),
		"name":            oaString("Name of the referent."),
		"namespace":       oaString("Namespace of the referent."),
		"resourceVersion": oaString("Specific resourceVersion to which this reference is made, if any."),
		"uid":             oaString("UID of the referent."),
	}}

	d[coreV1+"ConfigMap"] = kindSchema(g, v, "ConfigMap", "ConfigMap holds configuration data for pods to consume.", map[string]*OpenAPISchema{
		"binaryData": {Type: "object", Description: "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'.", AddlProps: &OpenAPISchema{Type: "string", Format: "byte"}},
		"data":       oaStringMap("Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'.", nil),
		"immutable":  oaBool("Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified)."),
	})
	d[coreV1+"ConfigMapList"] = listSchema(g, v, "ConfigMapList", coreV1+"ConfigMap", "ConfigMapList is a resource containing a list of ConfigMap objects.")
}

// resourcePaths returns the path items of one resource: the collection
// (all namespaces too, for namespaced resources), the item and its
// /status.
func resourcePaths(info ResourceInfo, v3 bool, definitionName func(ResourceInfo, string) string) map[string]any {
	base := "/" + gvPath(info)
	kind := definitionName(info, info.Kind)
	list := definitionName(info, info.ListKind)
	gvk := map[string]any{"group": info.Group, "version": info.Version, "kind": info.Kind}
	opID := operationPrefix(info)
	k := info.Kind

	coll := base + "/" + info.Resource
	var scopeParams []any
	nsWord := ""
	if info.Namespaced {
		coll = base + "/namespaces/{namespace}/" + info.Resource
		scopeParams = append(scopeParams, pathParam("namespace", "object name and auth scope, such as for teams and projects", v3))
		nsWord = "Namespaced"
	}
	item := coll + "/{name}"
	b := opBuilder{v3: v3, gvk: gvk, tag: opID}

	out := map[string]any{}
	out[coll] = pathItem(append(scopeParams, queryParam("pretty", "If 'true', then the output is pretty printed.", "string", v3)), map[string]any{
		"get":    b.op("list", nsWord+k, "list or watch objects of kind "+k, "list", listQueryParams(v3), list, false),
		"post":   b.op("create", nsWord+k, "create a "+k, "post", writeParams(v3, false), kind, true, "201", "202"),
		"delete": b.op("deleteCollection", nsWord+k, "delete collection of "+k, "deletecollection", append(listQueryParams(v3), deleteParams(v3)...), metaV1+"Status", false),
	})
	itemParams := append([]any{pathParam("name", "name of the "+k, v3)}, scopeParams...)
	itemParams = append(itemParams, queryParam("pretty", "If 'true', then the output is pretty printed.", "string", v3))
	out[item] = pathItem(itemParams, map[string]any{
		"get":    b.op("read", nsWord+k, "read the specified "+k, "get", nil, kind, false),
		"put":    b.op("replace", nsWord+k, "replace the specified "+k, "put", writeParams(v3, false), kind, true, "201"),
		"patch":  b.op("patch", nsWord+k, "partially update the specified "+k, "patch", writeParams(v3, true), kind, true, "201"),
		"delete": b.op("delete", nsWord+k, "delete a "+k, "delete", deleteParams(v3), metaV1+"Status", false, "202"),
	})
	if info.HasStatus {
		out[item+"/status"] = pathItem(itemParams, map[string]any{
			"get":   b.op("read", nsWord+k+"Status", "read status of the specified "+k, "get", nil, kind, false),
			"put":   b.op("replace", nsWord+k+"Status", "replace status of the specified "+k, "put", writeParams(v3, false), kind, true, "201"),
			"patch": b.op("patch", nsWord+k+"Status", "partially update status of the specified "+k, "patch", writeParams(v3, true), kind, true, "201"),
		})
	}
	if info.Namespaced {
		out[base+"/"+info.Resource] = pathItem(append(listQueryParams(v3), queryParam("pretty", "If 'true', then the output is pretty printed.", "string", v3)), map[string]any{
			"get": b.op("list", k+"ForAllNamespaces", "list or watch objects of kind "+k, "list", nil, list, false),
		})
	}
	return out
}

func operationPrefix(info ResourceInfo) string {
	if info.Group == "" {
		return "core_" + info.Version
	}
	g := strings.TrimSuffix(info.Group, ".k8s.io")
	parts := strings.Split(g, ".")
	for i := range parts {
		if i > 0 {
			parts[i] = upperFirst(parts[i])
		}
	}
	return strings.Join(parts, "") + "_" + info.Version
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

type opBuilder struct {
	v3  bool
	gvk map[string]any
	tag string
}

// op builds one operation; its operationId is verb + the tag in camel
// case + rest ("patchCoreV1NamespacedService"). body says whether the request has a body (of
// the kind, or a Patch for PATCH); extraCodes are further success codes.
func (b opBuilder) op(verb, rest, desc, action string, params []any, response string, body bool, extraCodes ...string) map[string]any {
	tag := ""
	for _, part := range strings.Split(b.tag, "_") {
		tag += upperFirst(part)
	}
	o := map[string]any{
		"description":                     desc,
		"operationId":                     verb + tag + rest,
		"tags":                            []string{b.tag},
		"x-kubernetes-action":             action,
		"x-kubernetes-group-version-kind": b.gvk,
	}
	isPatch := action == "patch"
	bodyRef := ""
	if body {
		bodyRef = response
		if isPatch {
			bodyRef = metaV1 + "Patch"
		}
	}
	if action == "deletecollection" || action == "delete" {
		bodyRef = metaV1 + "DeleteOptions"
	}
	codes := append([]string{"200"}, extraCodes...)
	if b.v3 {
		if len(params) > 0 {
			o["parameters"] = params
		}
		if bodyRef != "" {
			types := []string{"*/*"}
			if isPatch {
				types = []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"}
			}
			content := map[string]any{}
			for _, t := range types {
				content[t] = map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + bodyRef}}
			}
			rb := map[string]any{"content": content}
			if body {
				rb["required"] = true
			}
			o["requestBody"] = rb
		}
		resp := map[string]any{"401": map[string]any{"description": "Unauthorized"}}
		for _, c := range codes {
			resp[c] = map[string]any{"description": statusText(c), "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + response}},
				"application/yaml": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + response}},
			}}
		}
		o["responses"] = resp
		return o
	}
	var all []any
	if bodyRef != "" {
		bp := map[string]any{"name": "body", "in": "body", "schema": map[string]any{"$ref": "#/definitions/" + bodyRef}}
		if body {
			bp["required"] = true
		}
		all = append(all, bp)
	}
	all = append(all, params...)
	if len(all) > 0 {
		o["parameters"] = all
	}
	consumes := []string{"*/*"}
	if isPatch {
		consumes = []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"}
	}
	o["consumes"] = consumes
	o["produces"] = []string{"application/json", "application/yaml"}
	o["schemes"] = []string{"https"}
	resp := map[string]any{"401": map[string]any{"description": "Unauthorized"}}
	for _, c := range codes {
		resp[c] = map[string]any{"description": statusText(c), "schema": map[string]any{"$ref": "#/definitions/" + response}}
	}
	o["responses"] = resp
	return o
}

func statusText(code string) string {
	switch code {
	case "201":
		return "Created"
	case "202":
		return "Accepted"
	}
	return "OK"
}

func pathItem(params []any, ops map[string]any) map[string]any {
	item := map[string]any{}
	for k, v := range ops {
		item[k] = v
	}
	if len(params) > 0 {
		item["parameters"] = params
	}
	return item
}

func pathParam(name, desc string, v3 bool) map[string]any {
	p := map[string]any{"name": name, "in": "path", "required": true, "description": desc}
	if v3 {
		p["schema"] = map[string]any{"type": "string", "uniqueItems": true}
	} else {
		p["type"] = "string"
		p["uniqueItems"] = true
	}
	return p
}

func queryParam(name, desc, typ string, v3 bool) map[string]any {
	p := map[string]any{"name": name, "in": "query", "description": desc}
	if v3 {
		p["schema"] = map[string]any{"type": typ, "uniqueItems": true}
	} else {
		p["type"] = typ
		p["uniqueItems"] = true
	}
	return p
}

// writeParams are the query parameters of POST, PUT and PATCH: dryRun,
// fieldManager, fieldValidation (what kubectl checks for), and force for
// PATCH (server-side apply).
func writeParams(v3, patch bool) []any {
	ps := []any{
		queryParam("dryRun", "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed", "string", v3),
		queryParam("fieldManager", "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.", "string", v3),
		queryParam("fieldValidation", "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present.", "string", v3),
	}
	if patch {
		ps = append(ps, queryParam("force", "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.", "boolean", v3))
	}
	return ps
}

func deleteParams(v3 bool) []any {
	return []any{
		queryParam("dryRun", "When present, indicates that modifications should not be persisted.", "string", v3),
		queryParam("gracePeriodSeconds", "The duration in seconds before the object should be deleted.", "integer", v3),
		queryParam("propagationPolicy", "Whether and how garbage collection will be performed.", "string", v3),
	}
}

func listQueryParams(v3 bool) []any {
	return []any{
		queryParam("allowWatchBookmarks", "allowWatchBookmarks requests watch events with type \"BOOKMARK\".", "boolean", v3),
		queryParam("continue", "The continue option should be set when retrieving more results from the server.", "string", v3),
		queryParam("fieldSelector", "A selector to restrict the list of returned objects by their fields. Defaults to everything.", "string", v3),
		queryParam("labelSelector", "A selector to restrict the list of returned objects by their labels. Defaults to everything.", "string", v3),
		queryParam("limit", "limit is a maximum number of responses to return for a list call.", "integer", v3),
		queryParam("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from.", "string", v3),
		queryParam("resourceVersionMatch", "resourceVersionMatch determines how resourceVersion is applied to list calls.", "string", v3),
		queryParam("sendInitialEvents", "`sendInitialEvents=true` may be set together with `watch=true`.", "boolean", v3),
		queryParam("timeoutSeconds", "Timeout for the list/watch call.", "integer", v3),
		queryParam("watch", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.", "boolean", v3),
	}
}
