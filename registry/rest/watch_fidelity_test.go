package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

var reTestUID = regexp.MustCompile(`"uid":"[0-9a-f-]{36}"`)

// compactBody strips the final newline and replaces uids by U.
func compactBody(s string) string {
	return reTestUID.ReplaceAllString(strings.TrimSuffix(s, "\n"), `"uid":"U"`)
}

// A configmap that leaves a watch's label selector is reported as DELETED
// carrying the object as it was before the change (old labels), at the
// change's resourceVersion, as kube-apiserver 1.33.13's cacheWatcher does
// (scenario watch-label-selector: a created with app=x, b with app=y, a
// patched to app=y, b to app=x; the watch from a's creation with
// labelSelector=app=x gets DELETED a with app=x, then ADDED b with app=x).
func TestWatchObjectLeavingSelectorCarriesOldObject(t *testing.T) {
	a := coreAPI(t)
	ua := []string{"User-Agent", "Go-http-client/2.0"}
	const cms = "/api/v1/namespaces/default/configmaps"
	if w := do(t, a, "POST", cms, "application/json", `{"metadata":{"name":"a","labels":{"app":"x"}}}`, ua...); w.Code != http.StatusCreated {
		t.Fatalf("create a: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "POST", cms, "application/json", `{"metadata":{"name":"b","labels":{"app":"y"}}}`, ua...); w.Code != http.StatusCreated {
		t.Fatalf("create b: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "PATCH", cms+"/a", PatchMerge, `{"metadata":{"labels":{"app":"y"}}}`, ua...); w.Code != http.StatusOK {
		t.Fatalf("patch a: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "PATCH", cms+"/b", PatchMerge, `{"metadata":{"labels":{"app":"x"}}}`, ua...); w.Code != http.StatusOK {
		t.Fatalf("patch b: %d %s", w.Code, w.Body)
	}
	w := do(t, a, "GET", cms+"?watch=1&timeoutSeconds=1&resourceVersion=2&labelSelector=app%3Dx", "", "")
	want := `{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"U","resourceVersion":"4","creationTimestamp":"2026-11-21T23:54:47Z","labels":{"app":"x"},"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"v1","time":"2026-11-21T23:54:47Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]}}}
{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"default","uid":"U","resourceVersion":"5","creationTimestamp":"2026-11-21T23:54:47Z","labels":{"app":"x"},"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"v1","time":"2026-11-21T23:54:47Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]}}}`
	if got := compactBody(w.Body.String()); w.Code != http.StatusOK || got != want {
		t.Errorf("watch: %d\n%s\nwant\n%s", w.Code, got, want)
	}
}

// An object created without any field set has no managedFields, and an
// update of it records none (upstream's skipNonAppliedManager):
// kube-apiserver 1.33.13 answered the merge patch {"data":{"x":"1"}} of a
// configmap created with `"labels":{}` and `"data":{}` with no
// managedFields (scenario watch-field-selector; curl -A "" -X PATCH). An
// update that sends managedFields is tracked from them: a PUT with manager
// "m" owning data.x, changing x, answered one entry, the writer's ("curl")
// owning f:data.f:x.
func TestUpdateOfUntrackedObjectStaysUntracked(t *testing.T) {
	a := coreAPI(t)
	const cms = "/api/v1/namespaces/default/configmaps"
	if w := do(t, a, "POST", cms, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","labels":{}},"data":{}}`); w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	w := do(t, a, "PATCH", cms+"/b", PatchMerge, `{"data":{"x":"1"}}`, "User-Agent", "Go-http-client/2.0")
	want := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"default","uid":"U","resourceVersion":"3","creationTimestamp":"2026-11-21T23:54:47Z"},"data":{"x":"1"}}`
	if got := compactBody(w.Body.String()); w.Code != http.StatusOK || got != want {
		t.Errorf("patch: %d\n%s\nwant\n%s", w.Code, got, want)
	}
	w = do(t, a, "PUT", cms+"/b", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{}}}}]},"data":{"x":"2"}}`, "User-Agent", "curl/8.5.0")
	want = `"managedFields":[{"manager":"curl","operation":"Update","apiVersion":"v1","time":"2026-11-21T23:54:47Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{}}}}]`
	var buf bytes.Buffer
	if err := json.Compact(&buf, w.Body.Bytes()); err != nil || w.Code != http.StatusOK || !strings.Contains(buf.String(), want) {
		t.Errorf("put with managedFields: %d %v\n%s\nwant %s", w.Code, err, w.Body, want)
	}
}

// A watch from a resourceVersion before the store began (upstream: before
// its watch cache's first list) gets one ERROR event with 410 Expired; a
// resourceVersion that does not parse answers upstream's bare 500 on a
// watch and 400 on a list. kube-apiserver 1.33.13 answered (scenario
// watch-too-old and curl ?resourceVersion=abc without watch) exactly these.
func TestWatchTooOldAndUnparsableResourceVersion(t *testing.T) {
	a, st := testAPI(t)
	mustCreate(t, a, "default", "w1", 1) // revision 2; the store began at 1
	_ = st
	const widgets = "/apis/toys.example.com/v1/namespaces/default/widgets"
	cases := []struct {
		path string
		code int
		want string
	}{
		{widgets + "?watch=1&timeoutSeconds=1&resourceVersion=0x", http.StatusInternalServerError,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"0x\": strconv.ParseUint: parsing \"0x\": invalid syntax","code":500}`},
		{widgets + "?watch=1&timeoutSeconds=1&resourceVersion=-1", http.StatusInternalServerError,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion: Invalid value: \"-1\": strconv.ParseUint: parsing \"-1\": invalid syntax","code":500}`},
		{widgets + "?resourceVersion=abc", http.StatusBadRequest,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax","reason":"BadRequest","code":400}`},
	}
	for _, c := range cases {
		w := do(t, a, "GET", c.path, "", "")
		if got := compactBody(w.Body.String()); w.Code != c.code || got != c.want {
			t.Errorf("GET %s: %d\n%s\nwant %d\n%s", c.path, w.Code, got, c.code, c.want)
		}
	}
}
