package demo

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/openapi"
)

// OpenAPI documents of the demo backend, served at /openapi/v2 (swagger
// 2.0, JSON) and /openapi/v3 (an index plus one OpenAPI 3.0 document per
// group-version: apis/wardle.example.com/v1alpha1 and .../v1beta1), as
// k8s.io/sample-apiserver serves them: definitions named by its definition
// namer (the Go package path with the domain reversed:
// io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.Flunder), each kind
// with x-kubernetes-group-version-kind, info "Wardle" "0.1", and the
// collection, item and /status paths of flunders and fischers with dryRun,
// fieldManager and fieldValidation on POST, PUT and PATCH. The aggregator
// fetches them to aggregate them; kubectl then finds flunders' schema (for
// explain and client-side validation) and the fieldValidation parameter
// (so it sends fieldValidation=Strict).
//
// The schema is the one this package serves, not upstream's v1beta1 (which
// has flunderReference/fischerReference): both versions share one Go type
// (see the package doc). FlunderStatus lists conditions, aggsim's
// addition.

// openAPIDefinitionPrefix is the definition name prefix of the sample's
// wardle types (k8s.io/sample-apiserver/pkg/apis/wardle/<version>).
const openAPIDefinitionPrefix = "io.k8s.sample-apiserver.pkg.apis.wardle."

// OpenAPIDefinitionName returns the OpenAPI definition name of a wardle
// kind in version, as the sample-apiserver names it:
// "io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.Flunder".
func OpenAPIDefinitionName(version, kind string) string {
	return openAPIDefinitionPrefix + version + "." + kind
}

// openAPIDocs are the backend's encoded documents, built once.
type openAPIDocs struct {
	v2    []byte
	v2tag string            // quoted ETag of v2
	index []byte            // /openapi/v3
	v3    map[string][]byte // by "apis/<group>/<version>"
	v3tag map[string]string // hash of each v3 document
}

var demoOpenAPI = sync.OnceValue(buildOpenAPIDocs)

// OpenAPIV2 returns the backend's swagger 2.0 document (JSON). The bytes
// are shared: callers must not modify them.
func OpenAPIV2() []byte { return demoOpenAPI().v2 }

// OpenAPIV3 returns the backend's OpenAPI 3.0 document of gvPath
// ("apis/wardle.example.com/v1alpha1") and true, or nil and false. The
// bytes are shared: callers must not modify them.
func OpenAPIV3(gvPath string) ([]byte, bool) {
	b, ok := demoOpenAPI().v3[gvPath]
	return b, ok
}

func buildOpenAPIDocs() *openAPIDocs {
	var resources []openapi.Resource
	for _, s := range Strategies(nil) {
		info := s.Info()
		resources = append(resources, info.OpenAPIResource(OpenAPIDefinitionName(info.Version, info.Kind), OpenAPIDefinitionName(info.Version, info.ListKind)))
	}
	docs, err := openapi.Build(openapi.DocumentSpec{
		Title: "Wardle", Version: "0.1",
		Resources: resources, Definitions: wardleDefinitions(),
	})
	if err != nil {
		panic("demo: " + err.Error()) // the definitions below are static
	}
	d := &openAPIDocs{v2: docs.V2, v2tag: `"` + registry.OpenAPIHash(docs.V2) + `"`, v3: docs.V3, v3tag: map[string]string{}}
	var entries []registry.OpenAPIV3IndexEntry
	for gv, b := range docs.V3 {
		h := registry.OpenAPIHash(b)
		d.v3tag[gv] = h
		entries = append(entries, registry.OpenAPIV3IndexEntry{Path: gv, ServerRelativeURL: "/openapi/v3/" + gv + "?hash=" + h})
	}
	d.index = openAPIV3Index(entries)
	return d
}

// openAPIV3Index encodes {"paths":{<key>:{"serverRelativeURL":...}}} with
// only entries (registry.OpenAPIV3Index would add aggsim's own).
func openAPIV3Index(entries []registry.OpenAPIV3IndexEntry) []byte {
	type entry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	paths := map[string]entry{}
	for _, e := range entries {
		paths[e.Path] = entry{e.ServerRelativeURL}
	}
	b, _ := json.Marshal(map[string]any{"paths": paths})
	return b
}

// wardleDefinitions are the schemas of the wardle kinds in both versions.
func wardleDefinitions() map[string]*openapi.Schema {
	const metaV1 = "io.k8s.apimachinery.pkg.apis.meta.v1."
	d := map[string]*openapi.Schema{}
	for _, v := range []string{V1alpha1, V1beta1} {
		name := func(kind string) string { return OpenAPIDefinitionName(v, kind) }
		d[name("Flunder")] = openapi.KindSchema(Group, v, "Flunder", "Flunder is an example type with a spec and a status.", map[string]*openapi.Schema{
			"spec":   {Ref: name("FlunderSpec"), Default: map[string]any{}},
			"status": {Ref: name("FlunderStatus"), Default: map[string]any{}},
		})
		d[name("FlunderList")] = openapi.ListSchema(Group, v, "FlunderList", name("Flunder"), "FlunderList is a list of Flunder objects.")
		d[name("FlunderSpec")] = &openapi.Schema{Type: "object", Description: "FlunderSpec is the specification of a Flunder.", Props: map[string]*openapi.Schema{
			"reference":     {Type: "string", Description: "A name of another flunder or fischer, depending on the reference type."},
			"referenceType": {Type: "string", Description: "The reference type, Flunder or Fischer; required with reference."},
		}}
		d[name("FlunderStatus")] = &openapi.Schema{Type: "object", Description: "FlunderStatus is the status of a Flunder.", Props: map[string]*openapi.Schema{
			"conditions": {Type: "array", Description: "Conditions are free-form conditions written through /status (an aggsim addition).",
				Items: &openapi.Schema{Ref: metaV1 + "Condition", Default: map[string]any{}},
				Ext:   map[string]any{"x-kubernetes-list-type": "atomic"}},
		}}
	}
	name := func(kind string) string { return OpenAPIDefinitionName(V1alpha1, kind) }
	d[name("Fischer")] = openapi.KindSchema(Group, V1alpha1, "Fischer", "Fischer names flunders that may not exist.", map[string]*openapi.Schema{
		"disallowedFlunders": {Type: "array", Description: "DisallowedFlunders holds a list of Flunder.Names that are disallowed.",
			Items: &openapi.Schema{Type: "string", Default: ""},
			Ext:   map[string]any{"x-kubernetes-list-type": "atomic"}},
	})
	d[name("FischerList")] = openapi.ListSchema(Group, V1alpha1, "FischerList", name("Fischer"), "FischerList is a list of Fischer objects.")
	return d
}

// serveOpenAPI answers /openapi/v2 (JSON only: the backend serves the
// aggregator, which asks for JSON; 406 Status for any other Accept that
// does not admit JSON), /openapi/v3 and /openapi/v3/<gv> with an ETag,
// If-None-Match (304) and, when ?hash= names the current document,
// Cache-Control "public, immutable" (kube-openapi's handlers). It reports
// whether the path was one of them.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if p != "/openapi/v2" && p != "/openapi/v3" && !strings.HasPrefix(p, "/openapi/v3/") {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		negotiation.WriteStatus(w, r, meta.NewStatusError(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource"))
		return true
	}
	d := demoOpenAPI()
	var body []byte
	etag := ""
	switch {
	case p == "/openapi/v2":
		if !registry.OpenAPIAcceptsJSON(r.Header.Get("Accept")) {
			negotiation.WriteStatus(w, r, meta.NewStatusError(http.StatusNotAcceptable, meta.StatusReasonNotAcceptable, "only the following media types are accepted: application/json"))
			return true
		}
		body, etag = d.v2, d.v2tag
		w.Header().Set("Vary", "Accept")
	case p == "/openapi/v3":
		body = d.index
		w.Header().Set("Cache-Control", "no-cache, private")
	default:
		gv := strings.TrimPrefix(p, "/openapi/v3/")
		b, ok := d.v3[gv]
		if !ok {
			w.WriteHeader(http.StatusNotFound) // kube-aggregator's answer for an unknown key
			return true
		}
		body, etag = b, `"`+d.v3tag[gv]+`"`
		if r.URL.Query().Get("hash") == d.v3tag[gv] {
			w.Header().Set("Cache-Control", "public, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache, private")
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if etag != "" {
		w.Header().Set("Etag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
	return true
}
