package openapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Resource is one served resource: its group-version-kind, the
// definitions of its kind and list kind, and what its paths look like.
type Resource struct {
	Group    string // "" for the core group
	Version  string // "v1"
	Kind     string // "APIService"
	ListKind string // "APIServiceList"
	Resource string // plural, "apiservices"
	// Namespaced resources get namespaced paths plus the all-namespaces
	// list; HasStatus adds the /status subresource.
	Namespaced, HasStatus bool
	// KindDefinition and ListDefinition name the definitions of Kind and
	// ListKind ("io.k8s.api.core.v1.Service"), e.g. DefinitionName of their
	// Go types.
	KindDefinition, ListDefinition string
}

// DocumentSpec describes the OpenAPI documents of one API server's
// resources for Build: aggsim's own (package registry), or an aggregated
// backend's (package demo). It mirrors what k8s.io/apiserver's OpenAPI
// builder is given (routes plus the generated definitions).
type DocumentSpec struct {
	// Title and Version are the documents' info.title and info.version
	// (kube-apiserver: "Kubernetes" and its version; sample-apiserver:
	// "Wardle" and "0.1").
	Title, Version string
	// Resources are the served resources: each gets its collection, item
	// and (HasStatus) /status paths with every verb, in the document of its
	// group-version.
	Resources []Resource
	// Definitions are the schemas by definition name. They may reference
	// the apimachinery definitions (io.k8s.apimachinery.pkg.apis.meta.v1.
	// ObjectMeta, ListMeta, Condition, Status, ...), which Build adds; an
	// entry here replaces one of those with the same name.
	Definitions map[string]*Schema
}

// Documents are the encoded documents Build returns.
type Documents struct {
	// V2 is the swagger 2.0 document (/openapi/v2): every path and every
	// definition.
	V2 []byte
	// V3 holds one OpenAPI 3.0 document per group-version path ("api/v1",
	// "apis/<group>/<version>": the /openapi/v3 index keys) with only the
	// schemas its paths reach.
	V3 map[string][]byte
}

// Build encodes the swagger 2.0 and OpenAPI 3.0 documents of spec's
// resources, shaped like kube-openapi's builder output (see the package
// comment: group-version-kind extensions, fieldValidation, dryRun and
// fieldManager on writes), with the apimachinery definitions added.
// Errors: a resource without KindDefinition or ListDefinition, or a
// definition or resource kind that references a definition that is not
// there.
func Build(spec DocumentSpec) (Documents, error) {
	defs := map[string]*Schema{}
	for name, d := range apimachineryDefinitions() {
		defs[name] = d
	}
	for name, d := range spec.Definitions {
		defs[name] = d
	}
	roots := []string{statusDefinition, deleteOptionsDefinition, patchDefinition, watchEventDefinition}
	for _, info := range spec.Resources {
		if info.KindDefinition == "" || info.ListDefinition == "" {
			return Documents{}, fmt.Errorf("openapi: resource %s: KindDefinition and ListDefinition are required", info.Resource)
		}
		roots = append(roots, info.KindDefinition, info.ListDefinition)
	}
	if missing := missingDefinitions(defs, roots); len(missing) > 0 {
		return Documents{}, fmt.Errorf("openapi: definitions referenced but not defined: %s", strings.Join(missing, ", "))
	}
	info := map[string]any{"title": spec.Title, "version": spec.Version}
	security := []any{map[string]any{"BearerToken": []any{}}}
	bearer := map[string]any{"BearerToken": map[string]any{"description": "Bearer Token authentication", "type": "apiKey", "name": "authorization", "in": "header"}}
	out := Documents{V3: map[string][]byte{}}

	// v2: every resource in one document.
	v2paths := map[string]any{}
	for _, ri := range spec.Resources {
		for p, item := range resourcePaths(ri, false) {
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
	byGV := map[string][]Resource{}
	for _, ri := range spec.Resources {
		byGV[gvPath(ri)] = append(byGV[gvPath(ri)], ri)
	}
	for gv, infos := range byGV {
		paths := map[string]any{}
		roots := []string{statusDefinition, deleteOptionsDefinition, patchDefinition, watchEventDefinition}
		for _, ri := range infos {
			for p, item := range resourcePaths(ri, true) {
				paths[p] = item
			}
			roots = append(roots, ri.KindDefinition, ri.ListDefinition)
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
func missingDefinitions(defs map[string]*Schema, roots []string) []string {
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
		panic("openapi: document does not encode: " + err.Error())
	}
	return b
}

// GroupVersionPath is the document key of a group-version: "api/v1" for
// the core group, "apis/<group>/<version>" otherwise (the /openapi/v3
// index keys).
func GroupVersionPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

func gvPath(info Resource) string { return GroupVersionPath(info.Group, info.Version) }

// reachableDefinitions returns roots and every definition they reach,
// sorted.
func reachableDefinitions(defs map[string]*Schema, roots []string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		d, ok := defs[n]
		if !ok {
			panic("openapi: definition missing: " + n)
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

// resourcePaths returns the path items of one resource: the collection
// (all namespaces too, for namespaced resources), the item and its
// /status.
func resourcePaths(info Resource, v3 bool) map[string]any {
	base := "/" + gvPath(info)
	kind := info.KindDefinition
	list := info.ListDefinition
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
		"delete": b.op("deleteCollection", nsWord+k, "delete collection of "+k, "deletecollection", append(listQueryParams(v3), deleteParams(v3)...), statusDefinition, false),
	})
	itemParams := append([]any{pathParam("name", "name of the "+k, v3)}, scopeParams...)
	itemParams = append(itemParams, queryParam("pretty", "If 'true', then the output is pretty printed.", "string", v3))
	out[item] = pathItem(itemParams, map[string]any{
		"get":    b.op("read", nsWord+k, "read the specified "+k, "get", nil, kind, false),
		"put":    b.op("replace", nsWord+k, "replace the specified "+k, "put", writeParams(v3, false), kind, true, "201"),
		"patch":  b.op("patch", nsWord+k, "partially update the specified "+k, "patch", writeParams(v3, true), kind, true, "201"),
		"delete": b.op("delete", nsWord+k, "delete a "+k, "delete", deleteParams(v3), statusDefinition, false, "202"),
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

func operationPrefix(info Resource) string {
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
			bodyRef = patchDefinition
		}
	}
	if action == "deletecollection" || action == "delete" {
		bodyRef = deleteOptionsDefinition
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
