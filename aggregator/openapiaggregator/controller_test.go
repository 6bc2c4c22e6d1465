package openapiaggregator

// Tests of the OpenAPI aggregation (openapi.go). Invariants checked:
//   - with no remote APIService, /openapi/v2 and /openapi/v3 are aggsim's
//     own documents byte for byte;
//   - an Available remote APIService's v3 document is listed in the index
//     under apis/<g>/<v> with ?hash=<upper hex SHA-512> and served byte for
//     byte with that ETag, 304 on If-None-Match, immutable caching with
//     the current hash and a 301 with a stale one;
//   - /openapi/v2 (JSON and protobuf) holds the backend's paths of its
//     group-version and the definitions they reach, nothing else of it;
//     on a definition name conflict the first (aggsim's, then the higher
//     group priority) wins;
//   - refetches send the backend's ETag; a failed fetch keeps the last
//     good document; a 404 drops it; an unavailable or deleted APIService
//     drops out;
//   - through the real proxy, the backend sees user system:aggregator with
//     no groups, and client-go's openapi3 client reads the aggregated
//     document.
// The controller is driven synchronously (Update, markAllDirty, pass);
// only the in-process server test polls, with a bound.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// oaSeen is one request an oaBackend received.
type oaSeen struct {
	path   string // path?query
	header http.Header
}

// oaBackend serves one group-version's OpenAPI documents (and its
// discovery, for the availability probe) and records the OpenAPI requests.
type oaBackend struct {
	group, version string

	mu     sync.Mutex // guards every field below
	v2     []byte     // nil: 404
	v2etag string
	v3     []byte // nil: the index does not list the group-version
	code   int    // non-zero: every OpenAPI request answers this
	seen   []oaSeen
}

func (b *oaBackend) gvPath() string { return "apis/" + b.group + "/" + b.version }

func (b *oaBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/"+b.gvPath() {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"%s/%s","resources":[]}`, b.group, b.version)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !strings.HasPrefix(r.URL.Path, "/openapi/") {
		http.NotFound(w, r)
		return
	}
	b.seen = append(b.seen, oaSeen{path: r.URL.RequestURI(), header: r.Header.Clone()})
	if b.code != 0 {
		http.Error(w, "switched off", b.code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/openapi/v2" && b.v2 != nil:
		w.Header().Set("Etag", b.v2etag)
		if r.Header.Get("If-None-Match") == b.v2etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(b.v2)
	case r.URL.Path == "/openapi/v3":
		paths := map[string]any{}
		if b.v3 != nil {
			paths[b.gvPath()] = map[string]string{"serverRelativeURL": "/openapi/v3/" + b.gvPath() + "?hash=" + registry.OpenAPIHash(b.v3)[:8]}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"paths": paths})
	case r.URL.Path == "/openapi/v3/"+b.gvPath() && b.v3 != nil:
		_, _ = w.Write(b.v3)
	default:
		http.NotFound(w, r)
	}
}

// take returns and forgets the recorded requests.
func (b *oaBackend) take() []oaSeen {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.seen
	b.seen = nil
	return s
}

func (b *oaBackend) set(fn func(b *oaBackend)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(b)
}

// paths returns the request paths of seen.
func paths(seen []oaSeen) string {
	var out []string
	for _, s := range seen {
		out = append(out, s.path)
	}
	return strings.Join(out, " ")
}

// swagger builds a backend swagger document: one POST path per entry of
// pathRefs (path -> definition it posts), plus defs.
func swagger(pathRefs map[string]string, defs map[string]string) []byte {
	ps := map[string]any{}
	for p, ref := range pathRefs {
		ps[p] = map[string]any{"post": map[string]any{
			"parameters": []any{map[string]any{"name": "body", "in": "body", "required": true, "schema": map[string]any{"$ref": "#/definitions/" + ref}}},
			"responses":  map[string]any{"200": map[string]any{"description": "OK", "schema": map[string]any{"$ref": "#/definitions/" + ref}}},
		}}
	}
	ds := map[string]json.RawMessage{}
	for n, d := range defs {
		ds[n] = json.RawMessage(d)
	}
	b, _ := json.Marshal(map[string]any{"swagger": "2.0", "info": map[string]any{"title": "Backend", "version": "0.1"}, "paths": ps, "definitions": ds})
	return b
}

func newWardleBackend() *oaBackend {
	return &oaBackend{
		group: "wardle.example.com", version: "v1", v2etag: `"backend-etag-1"`,
		v2: swagger(map[string]string{
			"/apis/wardle.example.com/v1/namespaces/{namespace}/flunders": "com.example.Flunder",
			"/apis/other.example.com/v1/things":                           "com.example.Thing",
		}, map[string]string{
			"com.example.Flunder":                             `{"type":"object","properties":{"metadata":{"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},"spec":{"$ref":"#/definitions/com.example.FlunderSpec"}},"x-kubernetes-group-version-kind":[{"group":"wardle.example.com","kind":"Flunder","version":"v1"}]}`,
			"com.example.FlunderSpec":                         `{"type":"object","properties":{"reference":{"type":"string"}}}`,
			"com.example.Thing":                               `{"type":"object"}`,
			"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": `{"type":"object","description":"the backend's own"}`,
		}),
		v3: []byte(`{"openapi":"3.0.0","info":{"title":"Backend","version":"0.1"},"paths":{},"components":{"schemas":{"com.example.Flunder":{"type":"object"}}}}`),
	}
}

// oaAPIService builds a remote APIService for b's group-version.
func oaAPIService(b *oaBackend, gpm int32, available bool) *apiregistration.APIService {
	port := int32(443)
	a := &apiregistration.APIService{
		TypeMeta:   meta.TypeMeta{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: b.version + "." + b.group},
		Spec: apiregistration.APIServiceSpec{
			Group: b.group, Version: b.version, GroupPriorityMinimum: gpm, VersionPriority: 15,
			Service: &apiregistration.ServiceReference{Namespace: "wardle", Name: "api", Port: &port},
		},
	}
	status := apiregistration.ConditionFalse
	if available {
		status = apiregistration.ConditionTrue
	}
	a.Status.Conditions = []apiregistration.APIServiceCondition{{Type: apiregistration.Available, Status: status}}
	return a
}

var oaNow = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// newTestOpenAPI returns a controller whose fetches go straight to the
// backends by APIService name.
func newTestOpenAPI(backends ...*oaBackend) *Controller {
	byName := map[string]http.Handler{}
	for _, b := range backends {
		byName[b.version+"."+b.group] = b
	}
	fetch := func(_ context.Context, name string, req *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		byName[name].ServeHTTP(rec, req)
		return rec.Result(), nil
	}
	return NewController(fetch, slog.New(slog.DiscardHandler), func() time.Time { return oaNow })
}

// oaGet serves GET target from c's handlers.
func oaGet(c *Controller, target string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	switch {
	case req.URL.Path == "/openapi/v2":
		c.ServeV2(rec, req)
	case req.URL.Path == "/openapi/v3":
		c.ServeV3Index(rec, req)
	default:
		c.ServeV3Document(rec, req)
	}
	return rec
}

// v2Parts decodes the served JSON /openapi/v2.
func v2Parts(t *testing.T, c *Controller) openAPIV2Parts {
	t.Helper()
	rec := oaGet(c, "/openapi/v2", nil)
	p, err := splitOpenAPIV2(rec.Body.Bytes())
	if err != nil || rec.Code != 200 {
		t.Fatalf("/openapi/v2: %d %v", rec.Code, err)
	}
	return p
}

func TestOpenAPIAggregation(t *testing.T) {
	ctx := context.Background()
	b := newWardleBackend()
	c := newTestOpenAPI(b)
	const key = "apis/wardle.example.com/v1"
	ownIndex := string(registry.OpenAPIV3Index())
	checkOwnOnly := func(step string) {
		t.Helper()
		if got := oaGet(c, "/openapi/v3", nil).Body.String(); got != ownIndex {
			t.Errorf("%s: index\n%s\nwant aggsim's own\n%s", step, got, ownIndex)
		}
		if got := oaGet(c, "/openapi/v2", nil).Body.String(); got != string(registry.OpenAPIV2()) {
			t.Errorf("%s: /openapi/v2 is not aggsim's own document", step)
		}
		if rec := oaGet(c, "/openapi/v3/"+key, nil); rec.Code != 404 || rec.Body.Len() != 0 {
			t.Errorf("%s: GET /openapi/v3/%s = %d %q, want 404 without body", step, key, rec.Code, rec.Body)
		}
	}
	checkOwnOnly("start")

	// Not Available: nothing is fetched.
	c.Update(oaAPIService(b, 1000, false))
	c.pass(ctx)
	if s := b.take(); len(s) != 0 {
		t.Errorf("unavailable APIService fetched: %s", paths(s))
	}
	checkOwnOnly("unavailable")

	// Available: v2, the v3 index, then the document its index names.
	c.Update(oaAPIService(b, 1000, true))
	c.pass(ctx)
	seen := b.take()
	hash8 := registry.OpenAPIHash(b.v3)[:8]
	if got, want := paths(seen), "/openapi/v2 /openapi/v3 /openapi/v3/"+key+"?hash="+hash8; got != want {
		t.Fatalf("requests %q, want %q", got, want)
	}
	if got := seen[0].header.Get("Accept"); got != "application/json" {
		t.Errorf("v2 Accept %q", got)
	}
	if got := seen[0].header.Get("If-None-Match"); got != "" {
		t.Errorf("first v2 fetch sent If-None-Match %q", got)
	}
	hash := registry.OpenAPIHash(b.v3)
	wantIndex := string(registry.OpenAPIV3Index(registry.OpenAPIV3IndexEntry{Path: key, ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + hash}))
	rec := oaGet(c, "/openapi/v3", nil)
	// kube-apiserver 1.33.13 answers the index as text/plain (scenario openapi-v3-index).
	if rec.Body.String() != wantIndex || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("index\n%s\nwant\n%s", rec.Body, wantIndex)
	}
	if etag := rec.Header().Get("Etag"); etag != `"`+registry.OpenAPIHash([]byte(wantIndex))+`"` {
		t.Errorf("index Etag %s", etag)
	} else if r := oaGet(c, "/openapi/v3", map[string]string{"If-None-Match": etag}); r.Code != 304 || r.Body.Len() != 0 {
		t.Errorf("index If-None-Match: %d %q", r.Code, r.Body)
	}

	// The document: byte for byte, ETag, 304, caching by hash, 301 when stale.
	for _, tc := range []struct {
		name, target, inm         string
		wantCode                  int
		wantBody, wantCache       string
		wantExpires, wantLocation string
	}{
		{name: "plain", target: "/openapi/v3/" + key, wantCode: 200, wantBody: string(b.v3), wantCache: "no-cache, private"},
		{name: "current hash", target: "/openapi/v3/" + key + "?hash=" + hash, wantCode: 200, wantBody: string(b.v3), wantCache: "public, immutable", wantExpires: "Wed, 04 Mar 2026 05:06:07 UTC"},
		{name: "If-None-Match", target: "/openapi/v3/" + key, inm: `"` + hash + `"`, wantCode: 304, wantCache: "no-cache, private"},
		{name: "stale hash", target: "/openapi/v3/" + key + "?hash=ABC", wantCode: 301, wantLocation: "/openapi/v3/" + key + "?hash=" + hash},
	} {
		hdr := map[string]string{}
		if tc.inm != "" {
			hdr["If-None-Match"] = tc.inm
		}
		r := oaGet(c, tc.target, hdr)
		if r.Code != tc.wantCode || (tc.wantCode != 301 && r.Body.String() != tc.wantBody) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, r.Code, r.Body, tc.wantCode, tc.wantBody)
		}
		if tc.wantCode != 301 && (r.Header().Get("Etag") != `"`+hash+`"` || r.Header().Get("Cache-Control") != tc.wantCache || r.Header().Get("Expires") != tc.wantExpires) {
			t.Errorf("%s: headers %v", tc.name, r.Header())
		}
		if got := r.Header().Get("Location"); got != tc.wantLocation {
			t.Errorf("%s: Location %q, want %q", tc.name, got, tc.wantLocation)
		}
	}

	// v2: the backend's group-version paths and what they reach; aggsim's
	// ObjectMeta wins over the backend's.
	own, _ := splitOpenAPIV2(registry.OpenAPIV2())
	p := v2Parts(t, c)
	if len(p.paths) != len(own.paths)+1 || p.paths["/apis/wardle.example.com/v1/namespaces/{namespace}/flunders"] == nil || p.paths["/apis/other.example.com/v1/things"] != nil {
		t.Errorf("v2 has %d paths (aggsim's %d + want 1 of the backend)", len(p.paths), len(own.paths))
	}
	if len(p.definitions) != len(own.definitions)+2 || p.definitions["com.example.Thing"] != nil {
		t.Errorf("v2 has %d definitions, want aggsim's %d + Flunder and FlunderSpec", len(p.definitions), len(own.definitions))
	}
	backendParts, _ := splitOpenAPIV2(b.v2)
	for _, n := range []string{"com.example.Flunder", "com.example.FlunderSpec"} {
		if string(p.definitions[n]) != string(backendParts.definitions[n]) {
			t.Errorf("definition %s = %s, want the backend's %s", n, p.definitions[n], backendParts.definitions[n])
		}
	}
	om := "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	if string(p.definitions[om]) != string(own.definitions[om]) {
		t.Errorf("ObjectMeta is the backend's, want aggsim's (first wins)")
	}
	// The same document as protobuf, and its ETag.
	rec = oaGet(c, "/openapi/v2", map[string]string{"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
	var doc openapi_v2.Document
	if err := proto.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Header().Get("Content-Type") != openAPIV2ProtobufType {
		t.Fatalf("protobuf v2: %v, Content-Type %q", err, rec.Header().Get("Content-Type"))
	}
	found := false
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		found = found || d.GetName() == "com.example.Flunder"
	}
	if !found {
		t.Error("protobuf v2 lacks com.example.Flunder")
	}
	v2etag := rec.Header().Get("Etag")
	if r := oaGet(c, "/openapi/v2", map[string]string{"If-None-Match": v2etag}); r.Code != 304 {
		t.Errorf("v2 If-None-Match: %d", r.Code)
	}
	if r := oaGet(c, "/openapi/v2", map[string]string{"Accept": "text/html"}); r.Code != 406 {
		t.Errorf("v2 Accept text/html: %d", r.Code)
	}

	// Periodic refresh: the backend's ETag is sent, 304 keeps the spec,
	// an unchanged index URL fetches no document.
	c.markAllDirty()
	c.pass(ctx)
	seen = b.take()
	if got := paths(seen); got != "/openapi/v2 /openapi/v3" {
		t.Errorf("refresh requests %q", got)
	}
	if got := seen[0].header.Get("If-None-Match"); got != `"backend-etag-1"` {
		t.Errorf("refresh If-None-Match %q", got)
	}

	// A failing backend: the last good documents stay.
	b.set(func(b *oaBackend) { b.code = 500 })
	c.markAllDirty()
	c.pass(ctx)
	if got := oaGet(c, "/openapi/v3", nil).Body.String(); got != wantIndex {
		t.Errorf("after a failed fetch the index changed:\n%s", got)
	}
	if got := oaGet(c, "/openapi/v2", nil).Header().Get("Etag"); got != v2etag {
		t.Errorf("after a failed fetch v2 changed")
	}

	// A new document: new hash, the old hash redirects.
	newDoc := []byte(`{"openapi":"3.0.0","info":{"title":"Backend","version":"0.2"},"paths":{}}`)
	b.set(func(b *oaBackend) { b.code = 0; b.v3 = newDoc })
	c.markAllDirty()
	c.pass(ctx)
	if r := oaGet(c, "/openapi/v3/"+key, nil); r.Body.String() != string(newDoc) {
		t.Errorf("new document not served: %q", r.Body)
	}
	if r := oaGet(c, "/openapi/v3/"+key+"?hash="+hash, nil); r.Code != 301 || r.Header().Get("Location") != "/openapi/v3/"+key+"?hash="+registry.OpenAPIHash(newDoc) {
		t.Errorf("old hash: %d %q", r.Code, r.Header().Get("Location"))
	}

	// Unavailable: dropped without a fetch; Available again: served again.
	c.Update(oaAPIService(b, 1000, false))
	c.pass(ctx)
	checkOwnOnly("unavailable again")
	c.Update(oaAPIService(b, 1000, true))
	c.pass(ctx)
	if r := oaGet(c, "/openapi/v3/"+key, nil); r.Code != 200 || r.Body.String() != string(newDoc) {
		t.Errorf("available again: %d %q", r.Code, r.Body)
	}

	// The backend stops serving both (404, and an index without the key).
	b.set(func(b *oaBackend) { b.v2, b.v3 = nil, nil })
	c.markAllDirty()
	c.pass(ctx)
	checkOwnOnly("backend serves no OpenAPI")

	// Deleted: gone, and a tick fetches nothing.
	b.set(func(b *oaBackend) { nb := newWardleBackend(); b.v2, b.v3 = nb.v2, nb.v3 })
	c.markAllDirty()
	c.pass(ctx)
	if r := oaGet(c, "/openapi/v3/"+key, nil); r.Code != 200 {
		t.Fatalf("re-served: %d", r.Code)
	}
	c.Remove("v1.wardle.example.com")
	c.pass(ctx)
	checkOwnOnly("deleted")
	b.take()
	c.markAllDirty()
	c.pass(ctx)
	if s := b.take(); len(s) != 0 {
		t.Errorf("deleted APIService fetched: %s", paths(s))
	}
}

// TestOpenAPIV2MergeOrder: remote specs merge in group priority order, so
// on a definition conflict the group with the higher groupPriorityMinimum
// wins, whatever the names.
func TestOpenAPIV2MergeOrder(t *testing.T) {
	mk := func(group, desc string) *oaBackend {
		return &oaBackend{group: group, version: "v1", v2etag: `"x"`, v2: swagger(
			map[string]string{"/apis/" + group + "/v1/things": "com.example.Shared"},
			map[string]string{"com.example.Shared": `{"type":"object","description":"` + desc + `"}`})}
	}
	a, z := mk("a.example.com", "from a"), mk("z.example.com", "from z")
	for _, tc := range []struct {
		name       string
		gpmA, gpmZ int32
		want       string
	}{
		{"z has the higher priority", 100, 2000, "from z"},
		{"a has the higher priority", 2000, 100, "from a"},
		{"equal priority: name order", 500, 500, "from a"},
	} {
		c := newTestOpenAPI(a, z)
		c.Update(oaAPIService(a, tc.gpmA, true))
		c.Update(oaAPIService(z, tc.gpmZ, true))
		c.pass(context.Background())
		p := v2Parts(t, c)
		if got, want := string(p.definitions["com.example.Shared"]), `{"type":"object","description":"`+tc.want+`"}`; got != want {
			t.Errorf("%s: Shared = %s, want %s", tc.name, got, want)
		}
		if p.paths["/apis/a.example.com/v1/things"] == nil || p.paths["/apis/z.example.com/v1/things"] == nil {
			t.Errorf("%s: a path is missing", tc.name)
		}
	}
}

// BenchmarkOpenAPIRebuild measures one snapshot build with one remote
// group-version: merging the swagger, encoding JSON and protobuf, and the
// v3 index (what each change costs; requests never pay it).
func BenchmarkOpenAPIRebuild(b *testing.B) {
	be := newWardleBackend()
	c := newTestOpenAPI(be)
	c.Update(oaAPIService(be, 1000, true))
	c.pass(context.Background())
	c.mu.Lock()
	e := *c.entries["v1.wardle.example.com"]
	c.mu.Unlock()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cp := e
		c.build([]*openAPIEntry{&cp})
	}
}

// TestOpenAPIV2MergeSharedParameters: a backend built with k8s.io/apiserver
// refers to its deduplicated parameters (#/parameters/<name>-<hash>);
// the merged document carries the ones the kept paths use (and the
// definitions they reach), not the others, keeps kube-openapi's top-level
// key order and does not escape <, > and & (kube-apiserver's v2 does not).
func TestOpenAPIV2MergeSharedParameters(t *testing.T) {
	b := &oaBackend{group: "wardle.example.com", version: "v1", v2etag: `"x"`, v2: []byte(`{"swagger":"2.0","info":{"title":"Wardle","version":"0.1"},` +
		`"paths":{"/apis/wardle.example.com/v1/flunders":{"get":{"parameters":[{"$ref":"#/parameters/limit-AAAAAAAA"}],"responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/com.example.FlunderList"}}}},"parameters":[{"$ref":"#/parameters/body-BBBBBBBB"}]},` +
		`"/apis/other.example.com/v1/things":{"get":{"parameters":[{"$ref":"#/parameters/other-CCCCCCCC"}]}}},` +
		`"definitions":{"com.example.FlunderList":{"description":"a < b & c > d","type":"object"},"com.example.Opts":{"type":"object"}},` +
		`"parameters":{"body-BBBBBBBB":{"name":"body","in":"body","schema":{"$ref":"#/definitions/com.example.Opts"}},"limit-AAAAAAAA":{"uniqueItems":true,"type":"integer","name":"limit","in":"query"},"other-CCCCCCCC":{"name":"other","in":"query"}}}`)}
	c := newTestOpenAPI(b)
	c.Update(oaAPIService(b, 1000, true))
	c.pass(context.Background())
	body := oaGet(c, "/openapi/v2", nil).Body.Bytes()
	p, err := splitOpenAPIV2(body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(p.parameters["limit-AAAAAAAA"]), `{"uniqueItems":true,"type":"integer","name":"limit","in":"query"}`; got != want {
		t.Errorf("limit parameter %s, want %s", got, want)
	}
	if p.parameters["body-BBBBBBBB"] == nil || p.definitions["com.example.Opts"] == nil {
		t.Error("the body parameter or the definition it refers to is missing")
	}
	if p.parameters["other-CCCCCCCC"] != nil {
		t.Error("a parameter of a path of another group-version was kept")
	}
	own, _ := splitOpenAPIV2(registry.OpenAPIV2())
	for name := range own.parameters {
		if p.parameters[name] == nil {
			t.Errorf("aggsim's own parameter %s is missing", name)
		}
	}
	if !strings.Contains(string(body), `"a < b & c > d"`) {
		t.Error("<, > or & escaped")
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	var keys []string
	dec.Token() // {
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(keys, " "), "swagger info paths definitions parameters securityDefinitions security"; got != want {
		t.Errorf("top-level keys %s, want %s", got, want)
	}
	if _, err := openapi_v2.ParseDocument(body); err != nil {
		t.Errorf("gnostic cannot parse the merged document: %v", err)
	}
}

// TestOpenAPIV2Negotiation pins the representation /openapi/v2 answers per
// Accept header to kube-apiserver 1.33.13's, measured with
//
//	curl -s --cacert ca.crt --cert admin.crt --key admin.key -H "Accept: $a" -D - https://127.0.0.1:23443/openapi/v2
//
// against a reference started by ../shared/reference/up.sh: Content-Type
// per Accept, and 406 with an empty body (no Content-Type) when nothing
// matches.
func TestOpenAPIV2Negotiation(t *testing.T) {
	c := newTestOpenAPI(newWardleBackend())
	const pb = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	for _, tc := range []struct{ accept, wantType string }{
		{"", "application/json"},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", pb},
		{"application/com.github.proto-openapi.spec.v2.v1.0+protobuf", pb},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.9, application/json", "application/json"},
		{"application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf", pb},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json;q=0.9", pb},
		{"application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/json"},
		{"*/*", "application/json"},
		{"application/*", "application/json"},
		{"text/plain", ""},
	} {
		rec := oaGet(c, "/openapi/v2", map[string]string{"Accept": tc.accept})
		if tc.wantType == "" {
			if rec.Code != 406 || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "" {
				t.Errorf("Accept %q: %d Content-Type %q body %q, want 406 with no body", tc.accept, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			continue
		}
		if rec.Code != 200 || rec.Header().Get("Content-Type") != tc.wantType || rec.Header().Get("Vary") != "Accept" {
			t.Errorf("Accept %q: %d Content-Type %q Vary %q, want 200 %q", tc.accept, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Vary"), tc.wantType)
		}
	}
}
