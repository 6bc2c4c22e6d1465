package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

const widgets = "/apis/toys.example.com/v1/namespaces/default/widgets"

func TestCreateGetSetsSystemFields(t *testing.T) {
	a, _ := testAPI(t)
	got := mustCreate(t, a, "default", "w1", 3)
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(got.UID) {
		t.Errorf("uid %q is not a UUIDv4", got.UID)
	}
	if got.Generation != 1 || got.ResourceVersion == "" || !got.CreationTimestamp.Equal(testNow) || got.Namespace != "default" {
		t.Errorf("system fields: %+v", got.ObjectMeta)
	}
	w := do(t, a, "GET", widgets+"/w1", "", "")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("get: %d %v", w.Code, w.Header())
	}
	var back Widget
	_ = json.Unmarshal(w.Body.Bytes(), &back)
	if back.Kind != "Widget" || back.APIVersion != "toys.example.com/v1" || back.ResourceVersion != got.ResourceVersion || back.Spec.Size != 3 {
		t.Errorf("get returned %+v", back)
	}
}

func TestGenerateName(t *testing.T) {
	a, _ := testAPI(t)
	w := do(t, a, "POST", widgets, "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"generateName":"gen-"}}`)
	if w.Code != 201 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var got Widget
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	if !regexp.MustCompile(`^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(got.Name) {
		t.Errorf("generated name %q", got.Name)
	}
}

// TestErrors checks the exact Status (code, reason, message) of each error
// the REST layer answers.
func TestErrors(t *testing.T) {
	a, _ := testAPI(t)
	mustCreate(t, a, "default", "exists", 1)
	big := `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"big"},"spec":{"color":"` + strings.Repeat("x", MaxRequestBodyBytes) + `"}}`
	tests := []struct {
		name, method, path, ct, body string
		hdr                          []string
		wantCode                     int
		wantReason, wantMessage      string
	}{
		{"not found", "GET", widgets + "/nope", "", "", nil, 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"core not found", "GET", "/api/v1/gizmos/nope", "", "", nil, 404, "NotFound", `gizmos "nope" not found`},
		{"already exists", "POST", widgets, "application/json", widgetJSON("exists", 1), nil, 409, "AlreadyExists", `widgets.toys.example.com "exists" already exists`},
		{"invalid", "POST", widgets, "application/json", widgetJSON("neg", -1), nil, 422, "Invalid", `Widget.toys.example.com "neg" is invalid: spec.size: Invalid value: -1: must be non-negative`},
		{"no name", "POST", widgets, "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v1","spec":{"color":"invisible"}}`, nil, 422, "Invalid",
			`Widget.toys.example.com "" is invalid: [metadata.name: Required value: name or generateName is required, spec.color: Unsupported value: "invisible": supported values: "blue", "red"]`},
		{"missing namespace", "POST", "/apis/toys.example.com/v1/namespaces/missing/widgets", "application/json", widgetJSON("x", 1), nil, 404, "NotFound", `namespaces "missing" not found`},
		{"decode error", "POST", widgets, "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"x"},"spec":{"blob":"%%%not-base64%%%"}}`, nil, 400, "BadRequest",
			`Widget in version "v1" cannot be handled as a Widget: illegal base64 data at input byte 0`},
		{"wrong apiVersion", "POST", widgets, "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v2","metadata":{"name":"x"}}`, nil, 400, "BadRequest",
			// a version upstream's scheme does not register (see TestCheckKind)
			`Widget in version "v2" cannot be handled as a Widget: no kind "Widget" is registered for version "toys.example.com/v2" in scheme "pkg/runtime/scheme.go:110"`},
		{"malformed json", "POST", widgets, "application/json", `{"kind":`, nil, 400, "BadRequest", `the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: unexpected end of JSON input ({"kind":)`},
		{"strict unknown field", "POST", widgets + "?fieldValidation=Strict", "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"x"},"spec":{"foo":1,"size":1,"ports":[{"port":1,"bar":2}]}}`, nil, 400, "BadRequest",
			`Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo", unknown field "spec.ports[0].bar"`},
		{"strict duplicate field", "POST", widgets + "?fieldValidation=Strict", "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"x"},"spec":{"size":1,"size":2}}`, nil, 400, "BadRequest",
			`Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.size"`},
		{"namespace mismatch", "POST", widgets, "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"x","namespace":"other"}}`, nil, 400, "BadRequest",
			`the namespace of the provided object does not match the namespace sent on the request`},
		{"name mismatch on update", "PUT", widgets + "/exists", "application/json", widgetJSON("other", 1), nil, 400, "BadRequest", `the name of the object (other) does not match the name on the URL (exists)`},
		{"stale resourceVersion", "PUT", widgets + "/exists", "application/json", `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"exists","resourceVersion":"1"}}`, nil, 409, "Conflict",
			`Operation cannot be fulfilled on widgets.toys.example.com "exists": the object has been modified; please apply your changes to the latest version and try again`},
		{"update missing", "PUT", widgets + "/nope", "application/json", widgetJSON("nope", 1), nil, 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"unconditional update forbidden", "PUT", "/api/v1/gizmos/g", "application/json", `{"kind":"Gizmo","apiVersion":"v1","metadata":{"name":"g"}}`, nil, 404, "NotFound", `gizmos "g" not found`},
		// kube-apiserver 1.33.13: curl -H 'Accept: text/plain' .../configmaps/x
		{"not acceptable", "GET", widgets + "/exists", "", "", []string{"Accept", "text/plain"}, 406, "NotAcceptable",
			"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"not acceptable as", "GET", widgets + "/exists", "", "", []string{"Accept", "application/json;as=Foo;g=meta.k8s.io;v=v1"}, 406, "NotAcceptable",
			`only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf`},
		{"unsupported media type", "POST", widgets, "text/plain", widgetJSON("x", 1), nil, 415, "UnsupportedMediaType",
			`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`},
		// go-restful's 415 (kube-apiserver 1.33.13: cm-patch-bad-bodies)
		{"unsupported patch type", "PATCH", widgets + "/exists", "application/json", `{}`, nil, 415, "UnsupportedMediaType",
			`415: Unsupported Media Type`},
		{"too large", "POST", widgets, "application/json", big, nil, 413, "RequestEntityTooLarge", `Request entity too large: limit is 3145728`},
		{"unknown resource", "GET", "/apis/toys.example.com/v1/namespaces/default/nothings", "", "", nil, 404, "NotFound", `the server could not find the requested resource`},
		{"unknown version", "GET", "/apis/toys.example.com/v2/widgets", "", "", nil, 404, "NotFound", `the server could not find the requested resource`},
		{"namespaced by name without namespace", "GET", "/apis/toys.example.com/v1/widgets/exists", "", "", nil, 404, "NotFound", `the server could not find the requested resource`},
		{"verb not served", "PATCH", "/api/v1/gizmos/g", "application/merge-patch+json", `{}`, nil, 405, "MethodNotAllowed", `the server does not allow this method on the requested resource`},
		{"bad label selector", "GET", widgets + "?labelSelector=a%20in%20b", "", "", nil, 400, "BadRequest", `unable to parse requirement: found 'b' expected: '('`},
		{"bad field selector", "GET", widgets + "?fieldSelector=spec.size%3D1", "", "", nil, 400, "BadRequest", `field label not supported: spec.size`},
		{"bad continue", "GET", widgets + "?limit=1&continue=%21%21", "", "", nil, 400, "BadRequest", `invalid continue token: continue key is not valid: illegal base64 data at input byte 0`},
		{"list options invalid", "GET", widgets + "?resourceVersionMatch=Exact", "", "", nil, 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"sendInitialEvents without NotOlderThan", "GET", widgets + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true", "", "", nil, 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled]`},
		// kube-apiserver 1.33.13 (WatchList gate off), scenario watch-initial-events step 4
		{"sendInitialEvents with NotOlderThan", "GET", widgets + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "", "", nil, 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled`},
		{"bad dryRun", "POST", widgets + "?dryRun=Some", "application/json", widgetJSON("x", 1), nil, 422, "Invalid",
			// the whole list as the value (kube-apiserver 1.33.13: err-bad-query-params)
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"`},
		{"apply without fieldManager", "PATCH", widgets + "/exists", "application/apply-patch+yaml", "kind: Widget\napiVersion: toys.example.com/v1\nmetadata:\n  name: exists\n", nil, 422, "Invalid",
			`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"delete precondition", "DELETE", widgets + "/exists", "application/json", `{"preconditions":{"uid":"abc"}}`, nil, 409, "Conflict", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, a, tc.method, tc.path, tc.ct, tc.body, tc.hdr...)
			if w.Code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", w.Code, tc.wantCode, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			st := statusOf(t, w)
			if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != "Failure" || int(st.Code) != tc.wantCode || st.Reason != tc.wantReason {
				t.Errorf("status %+v", st)
			}
			if tc.wantMessage != "" && st.Message != tc.wantMessage {
				t.Errorf("message\n got %q\nwant %q", st.Message, tc.wantMessage)
			}
		})
	}
}

func TestNotFoundStatusBytes(t *testing.T) {
	a, _ := testAPI(t)
	w := do(t, a, "GET", widgets+"/nope", "", "")
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.toys.example.com \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"toys.example.com","kind":"widgets"},"code":404}` + "\n"
	if w.Body.String() != want {
		t.Errorf("got  %s\nwant %s", w.Body, want)
	}
}

func TestFieldValidationWarn(t *testing.T) {
	a, _ := testAPI(t)
	body := `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"x"},"spec":{"foo":1}}`
	w := do(t, a, "POST", widgets, "application/json", body)
	if w.Code != 201 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if got := w.Header().Values("Warning"); len(got) != 1 || got[0] != `299 - "unknown field \"spec.foo\""` {
		t.Errorf("Warning = %q", got)
	}
	w = do(t, a, "POST", widgets+"?fieldValidation=Ignore", "application/json", strings.Replace(body, `"x"`, `"y"`, 1))
	if w.Code != 201 || len(w.Header().Values("Warning")) != 0 {
		t.Errorf("Ignore: %d %v", w.Code, w.Header())
	}
}

func TestDryRunDoesNotPersist(t *testing.T) {
	a, _ := testAPI(t)
	w := do(t, a, "POST", widgets+"?dryRun=All", "application/json", widgetJSON("dry", 1))
	if w.Code != 201 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := do(t, a, "GET", widgets+"/dry", "", ""); w.Code != 404 {
		t.Errorf("dry-run create persisted: %d", w.Code)
	}
	mustCreate(t, a, "default", "real", 1)
	if w := do(t, a, "DELETE", widgets+"/real?dryRun=All", "", ""); w.Code != 200 {
		t.Fatalf("dry delete %d", w.Code)
	}
	if w := do(t, a, "GET", widgets+"/real", "", ""); w.Code != 200 {
		t.Errorf("dry-run delete deleted: %d", w.Code)
	}
	if w := do(t, a, "POST", widgets+"?dryRun=All", "application/json", widgetJSON("real", 1)); w.Code != 201 {
		// Upstream checks existence only on the real write, so a dry-run
		// create of an existing name passes validation.
		t.Errorf("dry-run create of existing: %d", w.Code)
	}
}

func TestYAMLInOut(t *testing.T) {
	a, _ := testAPI(t)
	body := "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: y1\nspec:\n  size: 7\n"
	w := do(t, a, "POST", widgets, "application/yaml", body, "Accept", "application/yaml")
	if w.Code != 201 || w.Header().Get("Content-Type") != "application/yaml" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
	if !strings.Contains(w.Body.String(), "\nspec:\n  size: 7\n") || !strings.HasPrefix(w.Body.String(), "apiVersion: toys.example.com/v1\nkind: Widget\n") {
		t.Errorf("yaml body:\n%s", w.Body)
	}
	// protobuf first, JSON second -> JSON.
	w = do(t, a, "GET", widgets+"/y1", "", "", "Accept", "application/vnd.kubernetes.protobuf, application/json")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("protobuf,json: %d %v", w.Code, w.Header())
	}
}

func TestUpdateAndStatus(t *testing.T) {
	a, _ := testAPI(t)
	c := mustCreate(t, a, "default", "u", 1)
	c.Spec.Size = 2
	c.Status.Conditions = []meta.Condition{{Type: "Ready", Status: "True"}}
	b, _ := json.Marshal(c)
	w := do(t, a, "PUT", widgets+"/u", "application/json", string(b))
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var u Widget
	_ = json.Unmarshal(w.Body.Bytes(), &u)
	if u.Generation != 2 || u.Spec.Size != 2 || len(u.Status.Conditions) != 0 || u.ResourceVersion == c.ResourceVersion || u.UID != c.UID {
		t.Errorf("update result %+v", u)
	}
	// Status update keeps the spec.
	u.Spec.Size = 99
	u.Status.Conditions = []meta.Condition{{Type: "Ready", Status: "True"}}
	b, _ = json.Marshal(u)
	w = do(t, a, "PUT", widgets+"/u/status", "application/json", string(b))
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var s Widget
	_ = json.Unmarshal(w.Body.Bytes(), &s)
	if s.Spec.Size != 2 || len(s.Status.Conditions) != 1 || s.Generation != 2 {
		t.Errorf("status update result %+v", s)
	}
	// A no-op update keeps the resourceVersion.
	b, _ = json.Marshal(s)
	w = do(t, a, "PUT", widgets+"/u", "application/json", string(b))
	var n Widget
	_ = json.Unmarshal(w.Body.Bytes(), &n)
	if w.Code != 200 || n.ResourceVersion != s.ResourceVersion {
		t.Errorf("no-op update: %d rv %s -> %s", w.Code, s.ResourceVersion, n.ResourceVersion)
	}
	// /status GET.
	if w := do(t, a, "GET", widgets+"/u/status", "", ""); w.Code != 200 {
		t.Errorf("status get %d", w.Code)
	}
}

func TestUnconditionalUpdateRejected(t *testing.T) {
	a, _ := testAPI(t)
	if w := do(t, a, "POST", "/api/v1/gizmos", "application/json", `{"kind":"Gizmo","apiVersion":"v1","metadata":{"name":"g"}}`); w.Code != 201 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	w := do(t, a, "PUT", "/api/v1/gizmos/g", "application/json", `{"kind":"Gizmo","apiVersion":"v1","metadata":{"name":"g"},"value":"x"}`)
	st := statusOf(t, w)
	if w.Code != 422 || st.Message != `Gizmo "g" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update` {
		t.Errorf("%d %q", w.Code, st.Message)
	}
}

func TestDeleteResponses(t *testing.T) {
	a, _ := testAPI(t)
	c := mustCreate(t, a, "default", "d", 1)
	w := do(t, a, "DELETE", widgets+"/d", "", "")
	want := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"d","group":"toys.example.com","kind":"widgets","uid":%q}}`+"\n", c.UID)
	if w.Code != 200 || w.Body.String() != want {
		t.Errorf("delete: %d\n got %s\nwant %s", w.Code, w.Body, want)
	}
	// Gizmo returns the deleted object.
	do(t, a, "POST", "/api/v1/gizmos", "application/json", `{"kind":"Gizmo","apiVersion":"v1","metadata":{"name":"g"}}`)
	w = do(t, a, "DELETE", "/api/v1/gizmos/g", "", "")
	var g Gizmo
	_ = json.Unmarshal(w.Body.Bytes(), &g)
	if w.Code != 200 || g.Kind != "Gizmo" || g.Name != "g" {
		t.Errorf("gizmo delete: %d %s", w.Code, w.Body)
	}
	// Finalizers: 200 with deletionTimestamp as kube-apiserver 1.33 answers
	// (202 only for orphanDependents=false), removed when cleared.
	body := `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"f","finalizers":["x/y"]}}`
	do(t, a, "POST", widgets, "application/json", body)
	w = do(t, a, "DELETE", widgets+"/f", "", "")
	var f Widget
	_ = json.Unmarshal(w.Body.Bytes(), &f)
	if w.Code != 200 || f.DeletionTimestamp == nil {
		t.Fatalf("finalizer delete: %d %s", w.Code, w.Body)
	}
	w = do(t, a, "DELETE", widgets+"/f", "application/json", `{"orphanDependents":false}`)
	if w.Code != 202 {
		t.Fatalf("finalizer delete with orphanDependents=false: %d %s", w.Code, w.Body)
	}
	w = do(t, a, "PATCH", widgets+"/f", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	if w.Code != 200 {
		t.Fatalf("clear finalizers: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "GET", widgets+"/f", "", ""); w.Code != 404 {
		t.Errorf("object with cleared finalizers still there: %d", w.Code)
	}
}

func TestDeleteCollection(t *testing.T) {
	a, _ := testAPI(t)
	for _, n := range []string{"a", "b", "c"} {
		mustCreate(t, a, "default", n, 1)
	}
	w := do(t, a, "DELETE", widgets+"?labelSelector=app+in+(a,c)", "", "")
	var l struct {
		Kind  string   `json:"kind"`
		Items []Widget `json:"items"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &l)
	if w.Code != 200 || l.Kind != "WidgetList" || len(l.Items) != 2 || l.Items[0].Name != "a" || l.Items[1].Name != "c" {
		t.Fatalf("deletecollection: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "GET", widgets+"/b", "", ""); w.Code != 200 {
		t.Errorf("b deleted")
	}
}

func listNames(t *testing.T, body []byte) ([]string, meta.ListMeta) {
	t.Helper()
	var l struct {
		Kind       string        `json:"kind"`
		APIVersion string        `json:"apiVersion"`
		Metadata   meta.ListMeta `json:"metadata"`
		Items      []map[string]any
	}
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, it := range l.Items {
		if _, ok := it["kind"]; ok {
			t.Errorf("list item carries kind")
		}
		names = append(names, it["metadata"].(map[string]any)["name"].(string))
	}
	return names, l.Metadata
}

func TestListSelectorsAndPaging(t *testing.T) {
	a, _ := testAPI(t)
	for _, n := range []string{"a", "b", "c", "d"} {
		mustCreate(t, a, "default", n, 1)
	}
	mustCreate(t, a, "other", "e", 1)
	tests := []struct {
		query string
		want  string
	}{
		{"", "a,b,c,d"},
		{"?labelSelector=app%3Db", "b"},
		{"?labelSelector=app%3D%3Db", "b"},
		{"?labelSelector=app!%3Db", "a,c,d"},
		{"?labelSelector=app+in+(a,d)", "a,d"},
		{"?labelSelector=app+notin+(a,d)", "b,c"},
		{"?labelSelector=app", "a,b,c,d"},
		{"?labelSelector=!app", ""},
		{"?fieldSelector=metadata.name%3Dc", "c"},
		{"?fieldSelector=metadata.name!%3Dc", "a,b,d"},
		{"?fieldSelector=spec.color%3Dblue,metadata.namespace%3Ddefault", "a,b,c,d"},
	}
	for _, tc := range tests {
		w := do(t, a, "GET", widgets+tc.query, "", "")
		names, _ := listNames(t, w.Body.Bytes())
		if strings.Join(names, ",") != tc.want {
			t.Errorf("%s: got %v want %s", tc.query, names, tc.want)
		}
	}
	// All namespaces.
	w := do(t, a, "GET", "/apis/toys.example.com/v1/widgets", "", "")
	if names, _ := listNames(t, w.Body.Bytes()); strings.Join(names, ",") != "a,b,c,d,e" {
		t.Errorf("all namespaces: %v", names)
	}
	// Paging.
	var all []string
	cont := ""
	var firstRV string
	for page := 0; page < 10; page++ {
		q := "?limit=3"
		if cont != "" {
			q += "&continue=" + cont
		}
		w := do(t, a, "GET", "/apis/toys.example.com/v1/widgets"+q, "", "")
		if w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		names, lm := listNames(t, w.Body.Bytes())
		if firstRV == "" {
			firstRV = lm.ResourceVersion
			if lm.RemainingItemCount == nil || *lm.RemainingItemCount != 2 {
				t.Errorf("remainingItemCount %v", lm.RemainingItemCount)
			}
		} else if lm.ResourceVersion != firstRV {
			t.Errorf("page rv %s, first %s", lm.ResourceVersion, firstRV)
		}
		all = append(all, names...)
		cont = lm.Continue
		if cont == "" {
			break
		}
	}
	if strings.Join(all, ",") != "a,b,c,d,e" {
		t.Errorf("paged: %v", all)
	}
}

func TestPatchTypes(t *testing.T) {
	a, _ := testAPI(t)
	base := `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"p","labels":{"a":"1","b":"2"}},"spec":{"size":1,"color":"blue","tags":["x","y"],"ports":[{"port":80,"name":"http"},{"port":443,"name":"https"}]}}`
	tests := []struct {
		name, ct, patch string
		wantSpec        string
		wantLabels      string
	}{
		{"merge", PatchMerge, `{"spec":{"size":5,"color":null}}`,
			`{"size":5,"ports":[{"port":80,"name":"http"},{"port":443,"name":"https"}],"tags":["x","y"]}`, `{"a":"1","b":"2"}`},
		{"json", PatchJSON, `[{"op":"replace","path":"/spec/size","value":9},{"op":"remove","path":"/metadata/labels/a"}]`,
			`{"size":9,"color":"blue","ports":[{"port":80,"name":"http"},{"port":443,"name":"https"}],"tags":["x","y"]}`, `{"b":"2"}`},
		{"smp merge key", PatchStrategic, `{"spec":{"ports":[{"port":443,"name":"tls"},{"port":8080}]},"metadata":{"labels":{"a":null}}}`,
			`{"size":1,"color":"blue","ports":[{"port":80,"name":"http"},{"port":443,"name":"tls"},{"port":8080}],"tags":["x","y"]}`, `{"b":"2"}`},
		// kube-apiserver 1.33.13 (refsuite svc-patch-strategic-ports):
		// ports [80] patched with [443] answer [443, 80]; strategicpatch puts
		// the patch's elements before the ones it does not name.
		{"smp new element first", PatchStrategic, `{"spec":{"ports":[{"port":8443}]}}`,
			`{"size":1,"color":"blue","ports":[{"port":8443},{"port":80,"name":"http"},{"port":443,"name":"https"}],"tags":["x","y"]}`, `{"a":"1","b":"2"}`},
		{"smp delete element", PatchStrategic, `{"spec":{"ports":[{"port":80,"$patch":"delete"}]}}`,
			`{"size":1,"color":"blue","ports":[{"port":443,"name":"https"}],"tags":["x","y"]}`, `{"a":"1","b":"2"}`},
		{"smp replace list without key", PatchStrategic, `{"spec":{"tags":["z"]}}`,
			`{"size":1,"color":"blue","ports":[{"port":80,"name":"http"},{"port":443,"name":"https"}],"tags":["z"]}`, `{"a":"1","b":"2"}`},
		{"smp replace directive", PatchStrategic, `{"spec":{"$patch":"replace","size":3}}`, `{"size":3}`, `{"a":"1","b":"2"}`},
		{"smp setElementOrder", PatchStrategic, `{"spec":{"$setElementOrder/ports":[{"port":443},{"port":80}]}}`,
			`{"size":1,"color":"blue","ports":[{"port":443,"name":"https"},{"port":80,"name":"http"}],"tags":["x","y"]}`, `{"a":"1","b":"2"}`},
		{"apply", PatchApply, "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: p\nspec:\n  size: 4\n  ports:\n  - port: 9000\n",
			`{"size":4,"color":"blue","ports":[{"port":80,"name":"http"},{"port":443,"name":"https"},{"port":9000}],"tags":["x","y"]}`, `{"a":"1","b":"2"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			do(t, a, "DELETE", widgets+"/p", "", "")
			if w := do(t, a, "POST", widgets, "application/json", base); w.Code != 201 {
				t.Fatalf("create %d %s", w.Code, w.Body)
			}
			q := "?fieldManager=test"
			if tc.ct == PatchApply {
				// The object was created without a User-Agent: its fields
				// have no manager, so the first apply finds them owned by
				// "before-first-apply" and must force to change spec.size
				// (kube-apiserver 1.33.13, a ServiceAccount created empty and
				// strategic-merge-patched without User-Agent, then applied
				// with automountServiceAccountToken changed: 409 `Apply
				// failed with 1 conflict: conflict with "before-first-apply"
				// using v1: .automountServiceAccountToken`).
				q += "&force=true"
			}
			w := do(t, a, "PATCH", widgets+"/p"+q, tc.ct, tc.patch)
			if w.Code != 200 {
				t.Fatalf("patch %d %s", w.Code, w.Body)
			}
			var got Widget
			_ = json.Unmarshal(w.Body.Bytes(), &got)
			spec, _ := json.Marshal(got.Spec)
			if string(spec) != compactJSON(t, tc.wantSpec) {
				t.Errorf("spec\n got %s\nwant %s", spec, tc.wantSpec)
			}
			labels, _ := json.Marshal(got.Labels)
			if string(labels) != tc.wantLabels {
				t.Errorf("labels %s want %s", labels, tc.wantLabels)
			}
		})
	}
}

func TestApplyCreatesAndRecordsManager(t *testing.T) {
	a, _ := testAPI(t)
	cfg := "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: ssa\n  labels:\n    x: z\nspec:\n  size: 2\n  ports:\n  - port: 80\n"
	w := do(t, a, "PATCH", widgets+"/ssa?fieldManager=kubectl&fieldValidation=Strict", PatchApply, cfg)
	if w.Code != 201 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var got Widget
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	if len(got.ManagedFields) != 1 {
		t.Fatalf("managedFields %+v", got.ManagedFields)
	}
	mf := got.ManagedFields[0]
	wantFields := `{"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:ports":{"k:{\"port\":80}":{".":{},"f:port":{}}},"f:size":{}}}`
	if mf.Manager != "kubectl" || mf.Operation != "Apply" || mf.FieldsType != "FieldsV1" || string(mf.FieldsV1) != wantFields || mf.APIVersion != "toys.example.com/v1" {
		t.Errorf("entry %+v fields %s", mf, mf.FieldsV1)
	}
	// Re-applying the same configuration changes nothing.
	w = do(t, a, "PATCH", widgets+"/ssa?fieldManager=kubectl", PatchApply, cfg)
	var again Widget
	_ = json.Unmarshal(w.Body.Bytes(), &again)
	if w.Code != 200 || again.ResourceVersion != got.ResourceVersion {
		t.Errorf("re-apply: %d rv %s -> %s", w.Code, got.ResourceVersion, again.ResourceVersion)
	}
}

func TestPatchStatusSubresource(t *testing.T) {
	a, _ := testAPI(t)
	mustCreate(t, a, "default", "s", 1)
	w := do(t, a, "PATCH", widgets+"/s/status", PatchStrategic, `{"spec":{"size":50},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`)
	var got Widget
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	if w.Code != 200 || got.Spec.Size != 1 || len(got.Status.Conditions) != 1 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	w = do(t, a, "PATCH", widgets+"/s/status", PatchStrategic, `{"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"Other","status":"True"}]}}`)
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	c, _ := json.Marshal(got.Status.Conditions)
	if string(c) != `[{"type":"Ready","status":"False","lastTransitionTime":null},{"type":"Other","status":"True","lastTransitionTime":null}]` {
		t.Errorf("conditions %s", c)
	}
}

func TestDiscoveryDocuments(t *testing.T) {
	a, _ := testAPI(t)
	w := do(t, a, "GET", "/apis/toys.example.com/v1", "", "")
	want := `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"toys.example.com/v1","resources":[` +
		`{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["wd"],"categories":["all"],"storageVersionHash":"` + meta.StorageVersionHash("toys.example.com", "v1", "Widget") + `"},` +
		`{"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get","patch","update"]}]}` + "\n"
	if w.Code != 200 || w.Body.String() != want {
		t.Errorf("got  %s\nwant %s", w.Body, want)
	}
	if b, ok := a.APIResourceList("toys.example.com", "v1"); !ok || string(b) != want {
		t.Errorf("APIResourceList mismatch")
	}
	r := do(t, a, "GET", "/api", "", "", "Host", "127.0.0.1:6443")
	if r.Body.String() != `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]}`+"\n" {
		t.Errorf("/api: %s", r.Body)
	}
	if got := meta.StorageVersionHash("apiregistration.k8s.io", "v1", "APIService"); got != "InPBPD7+PqM=" {
		t.Errorf("storageVersionHash %s", got)
	}
	gvs := a.GroupVersions()
	if len(gvs) != 2 || gvs[0].GroupVersion() != "toys.example.com/v1" || gvs[1].GroupVersion() != "v1" {
		t.Errorf("group versions %+v", gvs)
	}
	if a.Store(meta.GroupResource{Group: "toys.example.com", Resource: "widgets"}) == nil || a.Store(meta.GroupResource{Resource: "nothing"}) != nil {
		t.Errorf("Store lookup")
	}
}

func TestPartialObjectMetadata(t *testing.T) {
	a, _ := testAPI(t)
	mustCreate(t, a, "default", "m", 1)
	w := do(t, a, "GET", widgets, "", "", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
	var l meta.PartialObjectMetadataList
	_ = json.Unmarshal(w.Body.Bytes(), &l)
	if w.Code != 200 || l.Kind != "PartialObjectMetadataList" || len(l.Items) != 1 || l.Items[0].Kind != "PartialObjectMetadata" || l.Items[0].Name != "m" {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), `"apiVersion":"meta.k8s.io/v1"`) || strings.Contains(w.Body.String(), `"spec"`) {
		t.Errorf("body %s", w.Body)
	}
}

var _ = http.MethodGet
