package openapi

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"slices"
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
	// Verbs are the discovery verbs the resource serves ("create", "get",
	// "list", "watch", "update", "patch", "delete", "deletecollection");
	// nil means all of them. A resource with only "create" (the reviews)
	// gets its collection path with POST and nothing else.
	Verbs []string
	// DeleteReturnsObject says DELETE of an item answers the deleted
	// object (upstream: REST storages with ReturnDeletedObject, such as
	// Services'), not a Status.
	DeleteReturnsObject bool
	// AggregatorOwn marks kube-aggregator's own resources
	// (apiregistration.k8s.io): kube-apiserver renders their v2
	// operations' x-kubernetes-group-version-kind in struct order (group,
	// version, kind), while the documents of the servers it delegates to
	// are decoded and re-encoded, which sorts those keys (group, kind,
	// version).
	AggregatorOwn bool
	// NoStrategicMergePatch drops application/strategic-merge-patch+json
	// from the patch operations' media types, as apiextensions-apiserver
	// documents custom resources (which answer it 415); kubectl apply
	// reads those types to choose a merge patch for them.
	NoStrategicMergePatch bool
	// Subresources are the resource's subresources other than status.
	Subresources []Subresource
	// KindDefinition and ListDefinition name the definitions of Kind and
	// ListKind ("io.k8s.api.core.v1.Service"), e.g. DefinitionName of their
	// Go types; ListDefinition may be empty when the resource can be
	// neither listed nor watched.
	KindDefinition, ListDefinition string
}

// Subresource is a subresource other than status: an update of the whole
// object (namespaces/finalize: PUT with the resource's kind) or, with
// Connect, a connect subresource such as services/proxy (every HTTP
// method, with and without a trailing {path}, answering a string).
//
// With Create it is a create-only subresource of another group's kind
// (serviceaccounts/token: POST of an authentication.k8s.io/v1
// TokenRequest, answered with one), documented as upstream's installer
// documents a NamedCreater.
type Subresource struct {
	Name    string // "finalize", "proxy"
	Kind    string // the kind in x-kubernetes-group-version-kind: "Namespace", "ServiceProxyOptions"
	Connect bool
	// Create marks a create-only subresource; Group, Version and
	// KindDefinition are then its kind's group, version and definition.
	Create                         bool
	Group, Version, KindDefinition string
}

// connectMethods are the methods of a connect subresource's routes, in
// the order k8s.io/apiserver's installer registers them.
var connectMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// listable reports whether r serves list or watch (and so refers to its
// list kind).
func (r Resource) listable() bool {
	return r.Verbs == nil || slices.Contains(r.Verbs, "list") || slices.Contains(r.Verbs, "watch")
}

// DocumentSpec describes the OpenAPI documents of one API server's
// resources for Build: aggsim's own (package registry), or an aggregated
// backend's (package demo). It mirrors what k8s.io/apiserver's OpenAPI
// builder is given (routes plus the generated definitions).
type DocumentSpec struct {
	// Title and Version are the documents' info.title and info.version
	// (kube-apiserver 1.33: "Kubernetes" and "1.33"; sample-apiserver:
	// "Wardle" and "0.1").
	Title, Version string
	// Resources are the served resources: each gets its collection, item,
	// watch and (HasStatus) /status paths with the verbs it serves, in the
	// document of its group-version.
	Resources []Resource
	// Protobuf says whether the resources are also served as
	// application/vnd.kubernetes.protobuf (kube-apiserver's built-in
	// kinds are; sample-apiserver's are not), which the operations'
	// consumes, produces and response content list.
	Protobuf bool
	// Discovery adds the discovery paths kube-apiserver documents: GET
	// /api/ and /apis/ (documents "api" and "apis"), /apis/<group>/
	// (document "apis/<group>") and /api/v1/, /apis/<group>/<version>/ in
	// each group-version's document. They refer to the definitions of
	// APIVersions, APIGroupList, APIGroup and APIResourceList, which
	// Definitions must then hold.
	Discovery bool
	// ServerVersion adds GET /version/ (document "version"), which refers
	// to the definition io.k8s.apimachinery.pkg.version.Info that
	// Definitions must then hold.
	ServerVersion bool
	// Definitions are the schemas by definition name. They may reference
	// the apimachinery definitions (io.k8s.apimachinery.pkg.apis.meta.v1.
	// ObjectMeta, ListMeta, Condition, Status, ...), which Build adds; an
	// entry here replaces one of those with the same name.
	Definitions map[string]*Schema
}

// Documents are the encoded documents Build returns.
type Documents struct {
	// V2 is the swagger 2.0 document (/openapi/v2): every path and the
	// definitions they reach.
	V2 []byte
	// V3 holds one OpenAPI 3.0 document per /openapi/v3 index key
	// ("api/v1", "apis/<group>/<version>", and with Discovery "api",
	// "apis", "apis/<group>") with only the schemas its paths reach.
	V3 map[string][]byte
}

// Definition names of the discovery kinds (DocumentSpec.Discovery).
const (
	apiVersionsDefinition     = "io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions"
	apiGroupListDefinition    = "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList"
	apiGroupDefinition        = "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup"
	apiResourceListDefinition = "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList"
	versionInfoDefinition     = "io.k8s.apimachinery.pkg.version.Info"
)

// Build encodes the swagger 2.0 and OpenAPI 3.0 documents of spec's
// resources as kube-apiserver 1.33 serves them (k8s.io/apiserver's
// endpoint installer routes rendered by kube-openapi's builder and
// builder3): the same paths (watch paths included), operations,
// operationIds, parameters (sorted by name; those every operation of a
// path shares lifted to the path; in v2 the reusable ones moved to
// #/parameters/<name>-<hash>), responses, media types and extensions,
// with every object's keys in upstream's order. Errors: a resource
// without KindDefinition or ListDefinition, or a definition or path
// that references a definition that is not there.
func Build(spec DocumentSpec) (Documents, error) {
	defs := map[string]*Schema{}
	for name, d := range apimachineryDefinitions() {
		defs[name] = d
	}
	for name, d := range spec.Definitions {
		defs[name] = d
	}
	for _, info := range spec.Resources {
		if info.KindDefinition == "" || (info.ListDefinition == "" && info.listable()) {
			return Documents{}, fmt.Errorf("openapi: resource %s: KindDefinition and ListDefinition are required", info.Resource)
		}
	}
	docs := spec.routes()
	var roots []string
	for _, d := range docs {
		for _, r := range d.routes {
			roots = append(roots, r.refs()...)
		}
	}
	if missing := missingDefinitions(defs, roots); len(missing) > 0 {
		return Documents{}, fmt.Errorf("openapi: definitions referenced but not defined: %s", strings.Join(missing, ", "))
	}
	info := obj{{"title", spec.Title}, {"version", spec.Version}}
	out := Documents{V3: map[string][]byte{}}

	// v2: every route in one document, reusable parameters shared.
	var all []route
	for _, d := range docs {
		all = append(all, d.routes...)
	}
	v2paths, v2params := buildPaths(all, false)
	var v2roots []string
	for _, r := range all {
		v2roots = append(v2roots, r.refs()...)
	}
	v2defs := map[string]obj{}
	for _, name := range reachableDefinitions(defs, v2roots) {
		v2defs[name] = defs[name].render(false)
	}
	v2 := obj{{"swagger", "2.0"}, {"info", info}, {"paths", v2paths}, {"definitions", sortedObj(v2defs)}}
	if len(v2params) > 0 {
		v2.add("parameters", v2params)
	}
	v2.add("securityDefinitions", obj{{"BearerToken", obj{{"description", "Bearer Token authentication"}, {"type", "apiKey"}, {"name", "authorization"}, {"in", "header"}}}})
	v2.add("security", []any{obj{{"BearerToken", []any{}}}})
	out.V2 = encodeJSON(v2, false)

	// v3: one document per key with only the schemas it reaches.
	for _, d := range docs {
		paths, _ := buildPaths(d.routes, true)
		var roots []string
		for _, r := range d.routes {
			roots = append(roots, r.refs()...)
		}
		schemas := map[string]obj{}
		for _, name := range reachableDefinitions(defs, roots) {
			schemas[name] = defs[name].render(true)
		}
		out.V3[d.key] = encodeJSON(obj{
			{"openapi", "3.0.0"},
			{"info", info},
			{"paths", paths},
			{"components", obj{
				{"schemas", sortedObj(schemas)},
				{"securitySchemes", obj{{"BearerToken", obj{{"type", "apiKey"}, {"description", "Bearer Token authentication"}, {"name", "authorization"}, {"in", "header"}}}}},
			}},
		}, true)
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

// route is one operation as k8s.io/apiserver's endpoint installer
// registers it (a go-restful route), the input of kube-openapi's
// builders.
type route struct {
	method, path, desc, opID, tag string
	consumes, produces            []string
	params                        []param
	responses                     []response
	action                        string    // x-kubernetes-action; "" for discovery routes
	gvk                           [3]string // group, version, kind; unset without action
	gvkInOrder                    bool      // v2: gvk in struct order (Resource.AggregatorOwn)
}

// param is one parameter of a route.
type param struct {
	name, in, typ, desc string // in: "path", "query" or "body"
	required            bool
	body                string // a body parameter's definition
}

// response is one status code of a route: its schema is the definition
// ref, or the plain type typ (a connect route's "string"), or none (401).
type response struct {
	code           int
	desc, ref, typ string
}

// refs returns the definitions r refers to.
func (r route) refs() []string {
	var out []string
	for _, p := range r.params {
		if p.body != "" {
			out = append(out, p.body)
		}
	}
	for _, rs := range r.responses {
		if rs.ref != "" {
			out = append(out, rs.ref)
		}
	}
	return out
}

// routeDoc is the routes of one /openapi/v3 document.
type routeDoc struct {
	key    string
	routes []route
}

// Media types of kube-apiserver's routes.
const (
	mediaJSON           = "application/json"
	mediaYAML           = "application/yaml"
	mediaProtobuf       = "application/vnd.kubernetes.protobuf"
	mediaJSONWatch      = "application/json;stream=watch"
	mediaProtobufWatch  = "application/vnd.kubernetes.protobuf;stream=watch"
	mediaJSONPatch      = "application/json-patch+json"
	mediaMergePatch     = "application/merge-patch+json"
	mediaStrategicPatch = "application/strategic-merge-patch+json"
	mediaApplyPatch     = "application/apply-patch+yaml"
)

// routes returns spec's routes by document: "api", "apis" and each
// "apis/<group>" (with Discovery), then each group-version, in the order
// the resources come.
func (spec DocumentSpec) routes() []routeDoc {
	var docs []routeDoc
	index := map[string]int{}
	add := func(key string, r ...route) {
		i, ok := index[key]
		if !ok {
			i = len(docs)
			index[key] = i
			docs = append(docs, routeDoc{key: key})
		}
		docs[i].routes = append(docs[i].routes, r...)
	}
	discovery := []string{mediaJSON, mediaYAML, mediaProtobuf}
	discoveryRoute := func(path, desc, opID, tag, ref string) route {
		return route{method: "GET", path: path, desc: desc, opID: opID, tag: tag, consumes: discovery, produces: discovery,
			responses: []response{{code: 200, desc: "OK", ref: ref}, {code: 401, desc: "Unauthorized"}}}
	}
	if spec.Discovery {
		for _, info := range spec.Resources {
			if info.Group == "" {
				add("api", discoveryRoute("/api/", "get available API versions", "getCoreAPIVersions", "core", apiVersionsDefinition))
				break
			}
		}
		for _, info := range spec.Resources {
			if info.Group != "" {
				add("apis", discoveryRoute("/apis/", "get available API versions", "getAPIVersions", "apis", apiGroupListDefinition))
				break
			}
		}
	}
	if spec.ServerVersion {
		json := []string{mediaJSON}
		add("version", route{method: "GET", path: "/version/", desc: "get the version information for this server", opID: "getCodeVersion", tag: "version",
			consumes: json, produces: json, responses: []response{{code: 200, desc: "OK", ref: versionInfoDefinition}, {code: 401, desc: "Unauthorized"}}})
	}
	for _, info := range spec.Resources {
		key := gvPath(info)
		if _, ok := index[key]; !ok && spec.Discovery {
			if info.Group != "" {
				gkey := "apis/" + info.Group
				if _, ok := index[gkey]; !ok {
					tag := strings.Split(operationPrefix(info), "_")[0]
					add(gkey, discoveryRoute("/"+gkey+"/", "get information of a group", "get"+upperFirst(tag)+"APIGroup", tag, apiGroupDefinition))
				}
			}
			tag := operationPrefix(info)
			add(key, discoveryRoute("/"+key+"/", "get available resources", "get"+camelTag(tag)+"APIResources", tag, apiResourceListDefinition))
		}
		add(key, spec.resourceRoutes(info)...)
	}
	return docs
}

// camelTag is a tag in operationId form: "core_v1" -> "CoreV1".
func camelTag(tag string) string {
	out := ""
	for _, part := range strings.Split(tag, "_") {
		out += upperFirst(part)
	}
	return out
}

// resourceRoutes are the routes k8s.io/apiserver's installer registers
// for one resource (endpoints/installer.go): the collection (list,
// create, deletecollection), the item (get, replace, delete, patch),
// /status (get, replace, patch), the deprecated watch paths, and for
// namespaced resources the all-namespaces list and watch.
func (spec DocumentSpec) resourceRoutes(info Resource) []route {
	verbs := map[string]bool{}
	for _, v := range info.Verbs {
		verbs[v] = true
	}
	has := func(v string) bool { return info.Verbs == nil || verbs[v] }
	base := "/" + gvPath(info)
	tag := operationPrefix(info)
	k := info.Kind
	ns, scope := "", []param(nil)
	prefix := base
	if info.Namespaced {
		ns = "Namespaced"
		scope = []param{{name: "namespace", in: "path", typ: "string", desc: "object name and auth scope, such as for teams and projects", required: true}}
		prefix = base + "/namespaces/{namespace}"
	}
	nameParam := param{name: "name", in: "path", typ: "string", desc: "name of the " + k, required: true}
	pretty := param{name: "pretty", in: "query", typ: "string", desc: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."}

	object := []string{mediaJSON, mediaYAML}
	if spec.Protobuf {
		object = append(object, mediaProtobuf)
	}
	streaming := append([]string(nil), object...)
	streaming = append(streaming, mediaJSONWatch)
	if spec.Protobuf {
		streaming = append(streaming, mediaProtobufWatch)
	}
	patchTypes := []string{mediaJSONPatch, mediaMergePatch, mediaStrategicPatch, mediaApplyPatch}
	if info.NoStrategicMergePatch {
		patchTypes = []string{mediaJSONPatch, mediaMergePatch, mediaApplyPatch}
	}
	gvk := [3]string{info.Group, info.Version, k}
	unauthorized := response{code: 401, desc: "Unauthorized"}
	ok := func(ref string, codes ...int) []response {
		out := []response{{code: 200, desc: "OK", ref: ref}}
		for _, c := range codes {
			out = append(out, response{code: c, desc: map[int]string{201: "Created", 202: "Accepted"}[c], ref: ref})
		}
		return append(out, unauthorized)
	}
	mk := func(method, path, verb, rest, desc, action string, params []param, produces []string, resp []response) route {
		consumes := []string{"*/*"}
		if action == "patch" {
			consumes = patchTypes
		}
		return route{method: method, path: path, desc: desc, opID: verb + camelTag(tag) + rest, tag: tag,
			consumes: consumes, produces: produces, params: params, responses: resp, action: action, gvk: gvk, gvkInOrder: info.AggregatorOwn}
	}
	with := func(ps ...[]param) []param {
		var out []param
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	body := []param{{name: "body", in: "body", required: true, body: info.KindDefinition}}
	write := []param{dryRunParam, fieldManagerParam, fieldValidationParam}
	patch := []param{{name: "body", in: "body", required: true, body: patchDefinition}, dryRunParam, fieldManagerPatchParam, fieldValidationParam, forceParam}
	del := []param{{name: "body", in: "body", body: deleteOptionsDefinition}, dryRunParam, gracePeriodSecondsParam, ignoreStoreReadErrorParam, orphanDependentsParam, propagationPolicyParam}
	delColl := with([]param{{name: "body", in: "body", body: deleteOptionsDefinition}}, listParams[1:len(listParams)-1], del[1:])
	coll := prefix + "/" + info.Resource
	item := coll + "/{name}"
	watchPrefix := base + "/watch"
	if info.Namespaced {
		watchPrefix += "/namespaces/{namespace}"
	}
	var out []route
	if has("list") {
		out = append(out, mk("GET", coll, "list", ns+k, "list or watch objects of kind "+k, "list", with(scope, []param{pretty}, listParams), streaming, ok(info.ListDefinition)))
	}
	if has("create") {
		out = append(out, mk("POST", coll, "create", ns+k, "create a "+k, "post", with(scope, []param{pretty}, body, write), object, ok(info.KindDefinition, 201, 202)))
	}
	if has("deletecollection") {
		out = append(out, mk("DELETE", coll, "delete", "Collection"+ns+k, "delete collection of "+k, "deletecollection", with(scope, []param{pretty}, delColl), object, ok(statusDefinition)))
	}
	itemParams := with([]param{nameParam}, scope, []param{pretty})
	if has("get") {
		out = append(out, mk("GET", item, "read", ns+k, "read the specified "+k, "get", itemParams, object, ok(info.KindDefinition)))
	}
	if has("update") {
		out = append(out, mk("PUT", item, "replace", ns+k, "replace the specified "+k, "put", with(itemParams, body, write), object, ok(info.KindDefinition, 201)))
	}
	if has("delete") {
		deleted := statusDefinition
		if info.DeleteReturnsObject {
			deleted = info.KindDefinition
		}
		out = append(out, mk("DELETE", item, "delete", ns+k, "delete a "+k, "delete", with(itemParams, del), object, ok(deleted, 202)))
	}
	if has("patch") {
		out = append(out, mk("PATCH", item, "patch", ns+k, "partially update the specified "+k, "patch", with(itemParams, patch), object, ok(info.KindDefinition, 201)))
	}
	if info.HasStatus {
		st := item + "/status"
		out = append(out,
			mk("GET", st, "read", ns+k+"Status", "read status of the specified "+k, "get", itemParams, object, ok(info.KindDefinition)),
			mk("PUT", st, "replace", ns+k+"Status", "replace status of the specified "+k, "put", with(itemParams, body, write), object, ok(info.KindDefinition, 201)),
			mk("PATCH", st, "patch", ns+k+"Status", "partially update status of the specified "+k, "patch", with(itemParams, patch), object, ok(info.KindDefinition, 201)))
	}
	for _, sub := range info.Subresources {
		if sub.Create {
			r := mk("POST", item+"/"+sub.Name, "create", ns+k+upperFirst(sub.Name), "create "+sub.Name+" of a "+k, "post",
				with([]param{{name: "name", in: "path", typ: "string", desc: "name of the " + sub.Kind, required: true}}, scope, []param{pretty},
					[]param{{name: "body", in: "body", required: true, body: sub.KindDefinition}}, write),
				object, ok(sub.KindDefinition, 201, 202))
			r.gvk = [3]string{sub.Group, sub.Version, sub.Kind}
			out = append(out, r)
			continue
		}
		if !sub.Connect {
			out = append(out, mk("PUT", item+"/"+sub.Name, "replace", ns+k+upperFirst(sub.Name), "replace "+sub.Name+" of the specified "+k, "put", with(itemParams, body, write), object, ok(info.KindDefinition, 201)))
			continue
		}
		for _, withPath := range []bool{false, true} {
			path, rest := item+"/"+sub.Name, ns+k+upperFirst(sub.Name)
			params := with([]param{{name: "name", in: "path", typ: "string", desc: "name of the " + sub.Kind, required: true}}, scope)
			if withPath {
				path, rest = path+"/{path}", rest+"WithPath"
				params = append(params, param{name: "path", in: "path", typ: "string", desc: "path to the resource", required: true})
			}
			params = append(params, param{name: "path", in: "query", typ: "string", desc: "The rest of the proxied URL after the " + sub.Name + " path, with its query: what the request is forwarded to on the target."})
			for _, m := range connectMethods {
				out = append(out, route{method: m, path: path, desc: "connect " + m + " requests to " + sub.Name + " of " + k,
					opID: "connect" + camelTag(tag) + upperFirst(strings.ToLower(m)) + rest, tag: tag,
					consumes: []string{"*/*"}, produces: []string{"*/*"}, params: params,
					responses: []response{{code: 200, desc: "OK", typ: "string"}, unauthorized},
					action:    "connect", gvk: [3]string{info.Group, info.Version, sub.Kind}, gvkInOrder: info.AggregatorOwn})
			}
		}
	}
	if has("watch") {
		watchEvent := ok(watchEventDefinition)
		out = append(out,
			mk("GET", watchPrefix+"/"+info.Resource, "watch", ns+k+"List", "watch individual changes to a list of "+k+". deprecated: use the 'watch' parameter with a list operation instead.", "watchlist", with(scope, []param{pretty}, listParams), streaming, watchEvent),
			mk("GET", watchPrefix+"/"+info.Resource+"/{name}", "watch", ns+k, "watch changes to an object of kind "+k+". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.", "watch", with(itemParams, listParams), streaming, watchEvent))
	}
	if info.Namespaced && has("list") {
		out = append(out, mk("GET", base+"/"+info.Resource, "list", k+"ForAllNamespaces", "list or watch objects of kind "+k, "list", with([]param{pretty}, listParams), streaming, ok(info.ListDefinition)))
	}
	if info.Namespaced && has("watch") {
		out = append(out, mk("GET", base+"/watch/"+info.Resource, "watch", k+"ListForAllNamespaces", "watch individual changes to a list of "+k+". deprecated: use the 'watch' parameter with a list operation instead.", "watchlist", with([]param{pretty}, listParams), streaming, ok(watchEventDefinition)))
	}
	return out
}

// methodOrder is the order of a path item's operations (spec.PathItem).
var methodOrder = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH"}

// buildPaths renders routes as the paths object of a v2 (v3 false) or v3
// document, as kube-openapi's builders do: routes grouped by path; the
// non-body parameters every route of a path has lifted to the path;
// parameters sorted by name, then location. In v2 the reusable
// parameters then move to the returned #/parameters object
// (deduplicateParameters), named name-<hash>.
func buildPaths(routes []route, v3 bool) (paths obj, shared obj) {
	byPath := map[string][]route{}
	for _, r := range routes {
		byPath[r.path] = append(byPath[r.path], r)
	}
	items := map[string]obj{}
	var collected [][]obj // v2: the paths' and operations' parameter lists
	for path, rs := range byPath {
		count := map[[2]string]int{}
		for _, r := range rs {
			for _, p := range r.params {
				count[[2]string{p.name, p.in}]++
			}
		}
		var common []param
		seen := map[[2]string]bool{}
		for _, r := range rs {
			for _, p := range r.params {
				key := [2]string{p.name, p.in}
				if count[key] == len(rs) && p.in != "body" && !seen[key] {
					seen[key] = true
					common = append(common, p)
				}
			}
		}
		var item obj
		for _, m := range methodOrder {
			for _, r := range rs {
				if r.method != m {
					continue
				}
				var own []param
				for _, p := range r.params {
					if !seen[[2]string{p.name, p.in}] || p.in == "body" {
						own = append(own, p)
					}
				}
				item.add(strings.ToLower(m), r.operation(sortParams(own), v3))
			}
		}
		if len(common) > 0 {
			item.add("parameters", renderParams(sortParams(common), v3))
		}
		items[path] = item
	}
	paths = sortedObj(items)
	if v3 {
		return paths, nil
	}
	// deduplicateParameters: every parameter but name, fieldValidation,
	// dryRun and kind-specific bodies becomes #/parameters/<name>-<hash>.
	for _, p := range paths {
		for _, e := range p.v.(obj) {
			if e.k == "parameters" {
				collected = append(collected, e.v.([]obj))
				continue
			}
			for _, oe := range e.v.(obj) {
				if oe.k == "parameters" {
					collected = append(collected, oe.v.([]obj))
				}
			}
		}
	}
	names := map[string]string{}
	byName := map[string]obj{}
	for _, list := range collected {
		for i, p := range list {
			if !shareable(p) {
				continue
			}
			js := string(encodeJSON(p, false))
			name, ok := names[js]
			if !ok {
				name = paramName(p) + "-" + base64Hash(js)
				for n := 1; byName[name] != nil; n++ {
					name = fmt.Sprintf("%s-%d", paramName(p), n)
				}
				names[js] = name
				byName[name] = p
			}
			list[i] = obj{{"$ref", "#/parameters/" + name}}
		}
	}
	return paths, sortedObj(byName)
}

// shareable reports whether kube-openapi's collectSharedParameters moves
// the v2 parameter p to #/parameters.
func shareable(p obj) bool {
	get := func(k string) any {
		for _, e := range p {
			if e.k == k {
				return e.v
			}
		}
		return nil
	}
	name, in := get("name"), get("in")
	switch {
	case (in == "query" || in == "path") && name == "name":
		return false
	case in == "query" && (name == "fieldValidation" || name == "dryRun"):
		return false
	case in == "body":
		s, _ := get("schema").(obj)
		return len(s) == 1 && strings.HasPrefix(fmt.Sprint(s[0].v), "#/definitions/io.k8s.apimachinery")
	}
	return true
}

func paramName(p obj) string {
	for _, e := range p {
		if e.k == "name" {
			return e.v.(string)
		}
	}
	return "param"
}

// base64Hash is kube-openapi's: the first 6 bytes of the FNV-64 hash of
// s, URL-safe base64 (8 characters).
func base64Hash(s string) string {
	h := fnv.New64()
	h.Write([]byte(s))
	return base64.URLEncoding.EncodeToString(h.Sum(nil)[:6])
}

func sortParams(ps []param) []param {
	out := append([]param(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].in < out[j].in
	})
	return out
}

// renderParams renders non-body parameters (v3: also none of the body,
// which becomes the requestBody).
func renderParams(ps []param, v3 bool) []obj {
	var out []obj
	for _, p := range ps {
		if p.in == "body" {
			if v3 {
				continue
			}
			b := obj{{"name", p.name}, {"in", "body"}}
			if p.required {
				b.add("required", true)
			}
			b.add("schema", obj{{"$ref", "#/definitions/" + p.body}})
			out = append(out, b)
			continue
		}
		var o obj
		if v3 {
			o = obj{{"name", p.name}, {"in", p.in}}
			if p.desc != "" {
				o.add("description", p.desc)
			}
			if p.required {
				o.add("required", true)
			}
			o.add("schema", obj{{"type", p.typ}, {"uniqueItems", true}})
		} else {
			o = obj{{"uniqueItems", true}, {"type", p.typ}}
			if p.desc != "" {
				o.add("description", p.desc)
			}
			o.add("name", p.name)
			o.add("in", p.in)
			if p.required {
				o.add("required", true)
			}
		}
		out = append(out, o)
	}
	return out
}

// operation renders r with the parameters params (sorted, the path's
// common ones removed).
func (r route) operation(params []param, v3 bool) obj {
	var o obj
	if v3 {
		o = obj{{"tags", []any{r.tag}}, {"description", r.desc}, {"operationId", r.opID}}
		if ps := renderParams(params, true); len(ps) > 0 {
			o.add("parameters", ps)
		}
		for _, p := range params {
			if p.in != "body" {
				continue
			}
			content := map[string]obj{}
			for _, mt := range r.consumes {
				content[mt] = obj{{"schema", obj{{"$ref", "#/components/schemas/" + p.body}}}}
			}
			rb := obj{{"content", sortedObj(content)}}
			if p.required {
				rb.add("required", true)
			}
			o.add("requestBody", rb)
		}
		resp := map[string]obj{}
		for _, rs := range r.responses {
			x := obj{{"description", rs.desc}}
			if rs.ref != "" || rs.typ != "" {
				schema := obj{{"type", rs.typ}}
				if rs.ref != "" {
					schema = obj{{"$ref", "#/components/schemas/" + rs.ref}}
				}
				content := map[string]obj{}
				for _, mt := range r.produces {
					content[mt] = obj{{"schema", schema}}
				}
				x.add("content", sortedObj(content))
			}
			resp[fmt.Sprint(rs.code)] = x
		}
		o.add("responses", sortedObj(resp))
		if r.action != "" {
			o.add("x-kubernetes-action", r.action)
			o.add("x-kubernetes-group-version-kind", obj{{"group", r.gvk[0]}, {"version", r.gvk[1]}, {"kind", r.gvk[2]}})
		}
		return o
	}
	o = obj{{"description", r.desc}, {"consumes", r.consumes}, {"produces", r.produces}, {"schemes", []any{"https"}}, {"tags", []any{r.tag}}, {"operationId", r.opID}}
	if ps := renderParams(params, false); len(ps) > 0 {
		o.add("parameters", ps)
	}
	resp := map[string]obj{}
	for _, rs := range r.responses {
		x := obj{{"description", rs.desc}}
		switch {
		case rs.ref != "":
			x.add("schema", obj{{"$ref", "#/definitions/" + rs.ref}})
		case rs.typ != "":
			x.add("schema", obj{{"type", rs.typ}})
		}
		resp[fmt.Sprint(rs.code)] = x
	}
	o.add("responses", sortedObj(resp))
	if r.action != "" {
		o.add("x-kubernetes-action", r.action)
		if r.gvkInOrder {
			o.add("x-kubernetes-group-version-kind", obj{{"group", r.gvk[0]}, {"version", r.gvk[1]}, {"kind", r.gvk[2]}})
		} else {
			o.add("x-kubernetes-group-version-kind", obj{{"group", r.gvk[0]}, {"kind", r.gvk[2]}, {"version", r.gvk[1]}})
		}
	}
	return o
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

// The query parameters of kube-apiserver's routes (k8s.io/apimachinery
// ListOptions, CreateOptions, PatchOptions, DeleteOptions), with aggsim's
// descriptions.
var (
	dryRunParam               = param{name: "dryRun", in: "query", typ: "string", desc: "When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed"}
	fieldManagerParam         = param{name: "fieldManager", in: "query", typ: "string", desc: "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint."}
	fieldManagerPatchParam    = param{name: "fieldManager", in: "query", typ: "string", desc: "fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint. This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch)."}
	fieldValidationParam      = param{name: "fieldValidation", in: "query", typ: "string", desc: "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present."}
	forceParam                = param{name: "force", in: "query", typ: "boolean", desc: "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests."}
	gracePeriodSecondsParam   = param{name: "gracePeriodSeconds", in: "query", typ: "integer", desc: "The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used."}
	ignoreStoreReadErrorParam = param{name: "ignoreStoreReadErrorWithClusterBreakingPotential", in: "query", typ: "boolean", desc: "If set to true, the object is deleted even when it cannot be read from storage (a corrupt object). Unsafe: finalizers and preconditions are skipped."}
	orphanDependentsParam     = param{name: "orphanDependents", in: "query", typ: "boolean", desc: "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned."}
	propagationPolicyParam    = param{name: "propagationPolicy", in: "query", typ: "string", desc: "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."}
	// listParams are the parameters of list and watch, sorted by name.
	listParams = []param{
		{name: "allowWatchBookmarks", in: "query", typ: "boolean", desc: "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."},
		{name: "continue", in: "query", typ: "string", desc: "The continue option should be set when retrieving more results from the server."},
		{name: "fieldSelector", in: "query", typ: "string", desc: "A selector to restrict the list of returned objects by their fields. Defaults to everything."},
		{name: "labelSelector", in: "query", typ: "string", desc: "A selector to restrict the list of returned objects by their labels. Defaults to everything."},
		{name: "limit", in: "query", typ: "integer", desc: "limit is a maximum number of responses to return for a list call."},
		{name: "resourceVersion", in: "query", typ: "string", desc: "resourceVersion sets a constraint on what resource versions a request may be served from."},
		{name: "resourceVersionMatch", in: "query", typ: "string", desc: "resourceVersionMatch determines how resourceVersion is applied to list calls."},
		{name: "sendInitialEvents", in: "query", typ: "boolean", desc: "`sendInitialEvents=true` may be set together with `watch=true`."},
		{name: "timeoutSeconds", in: "query", typ: "integer", desc: "Timeout for the list/watch call."},
		{name: "watch", in: "query", typ: "boolean", desc: "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."},
	}
)
