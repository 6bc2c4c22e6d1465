package rest

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry"
)

// TestCheckKind: the answer to a body naming another kind or version, as
// kube-apiserver 1.33.13 answered a POST of {"apiVersion":A,"kind":K,
// "metadata":{"name":"a"}} to the resource (curl, issue 20 err-wrong-kind
// and the probes listed here).
func TestCheckKind(t *testing.T) {
	cm := registry.ResourceInfo{Group: "", Version: "v1", Kind: "ConfigMap"}
	vap := registry.ResourceInfo{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"}
	apisvc := registry.ResourceInfo{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}
	tr := registry.ResourceInfo{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}
	const scheme = ` in scheme "pkg/runtime/scheme.go:110"`
	for _, tc := range []struct {
		info             registry.ResourceInfo
		apiVersion, kind string
		want             string
	}{
		{cm, "v1", "ConfigMap", ""},
		{cm, "v1", "Secret", `Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`},
		{cm, "v2", "ConfigMap", `ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2"` + scheme},
		{cm, "apps/v1", "Deployment", `Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion`},
		{cm, "apps/v1", "ConfigMap", `ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1"` + scheme},
		{cm, "apps/v1beta1", "Deployment", `Deployment in version "v1beta1" cannot be handled as a ConfigMap: converting (v1beta1.Deployment) to (core.ConfigMap): unknown conversion`},
		{cm, "apps/v1", "DeleteOptions", `DeleteOptions in version "v1" cannot be handled as a ConfigMap: converting (v1.DeleteOptions) to (core.ConfigMap): unknown conversion`},
		{cm, "v1", "ConfigMapList", `ConfigMapList in version "v1" cannot be handled as a ConfigMap: converting (v1.ConfigMapList) to (core.ConfigMap): unknown conversion`},
		{cm, "v1", "Status", `Status in version "v1" cannot be handled as a ConfigMap: converting (v1.Status) to (core.ConfigMap): unknown conversion`},
		{cm, "v1", "PodLogOptions", `PodLogOptions in version "v1" cannot be handled as a ConfigMap: converting (v1.PodLogOptions) to (core.ConfigMap): unknown conversion`},
		{cm, "apiregistration.k8s.io/v1", "APIService", `APIService in version "v1" cannot be handled as a ConfigMap: no kind "APIService" is registered for version "apiregistration.k8s.io/v1"` + scheme},
		{cm, "apiextensions.k8s.io/v1", "CustomResourceDefinition", `CustomResourceDefinition in version "v1" cannot be handled as a ConfigMap: no kind "CustomResourceDefinition" is registered for version "apiextensions.k8s.io/v1"` + scheme},
		{vap, "admissionregistration.k8s.io/v1beta1", "ValidatingAdmissionPolicy", `the API version in the data (admissionregistration.k8s.io/v1beta1) does not match the expected API version (admissionregistration.k8s.io/v1)`},
		{vap, "admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicy", `MutatingAdmissionPolicy in version "v1alpha1" cannot be handled as a ValidatingAdmissionPolicy: converting (v1alpha1.MutatingAdmissionPolicy) to (admissionregistration.ValidatingAdmissionPolicy): unknown conversion`},
		{vap, "admissionregistration.k8s.io/v1", "DeleteOptions", `DeleteOptions in version "v1" cannot be handled as a ValidatingAdmissionPolicy: converting (v1.DeleteOptions) to (admissionregistration.ValidatingAdmissionPolicy): unknown conversion`},
		{apisvc, "v1", "ConfigMap", `ConfigMap in version "v1" cannot be handled as a APIService: no kind "ConfigMap" is registered for version "v1"` + scheme},
		{apisvc, "v1", "Status", `Status in version "v1" cannot be handled as a APIService: converting (v1.Status) to (apiregistration.APIService): unknown conversion`},
		{apisvc, "apiregistration.k8s.io/v1", "APIServiceList", `APIServiceList in version "v1" cannot be handled as a APIService: converting (v1.APIServiceList) to (apiregistration.APIService): unknown conversion`},
		{apisvc, "apiregistration.k8s.io/v1beta1", "APIService", `the API version in the data (apiregistration.k8s.io/v1beta1) does not match the expected API version (apiregistration.k8s.io/v1)`},
		{tr, "authentication.k8s.io/v1alpha1", "TokenReview", `TokenReview in version "v1alpha1" cannot be handled as a TokenReview: no kind "TokenReview" is registered for version "authentication.k8s.io/v1alpha1"` + scheme},
		{tr, "authentication.k8s.io/v1alpha1", "SelfSubjectReview", `SelfSubjectReview in version "v1alpha1" cannot be handled as a TokenReview: converting (v1alpha1.SelfSubjectReview) to (authentication.TokenReview): unknown conversion`},
		{tr, "authentication.k8s.io/v1beta1", "TokenReview", `the API version in the data (authentication.k8s.io/v1beta1) does not match the expected API version (authentication.k8s.io/v1)`},
	} {
		err := checkKind(tc.apiVersion, tc.kind, tc.info)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s %s to %s:\n got %q\nwant %q", tc.apiVersion, tc.kind, tc.info.Kind, got, tc.want)
		}
	}
}

// TestPatchedDocument: the value of the 422 for a patched object that does
// not decode is laid out as upstream's patch library writes it: top-level
// keys sorted, changed objects sorted, untouched values in their original
// order (kube-apiserver 1.33.13, cm-patch-bad-bodies: merge patch
// {"data":{"k":1}}; JSON patch add /data/x 1).
func TestPatchedDocument(t *testing.T) {
	orig := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","labels":{"z":"1","a":"<"}},"data":{"k":"v"}}`
	for _, tc := range []struct{ patched, want string }{
		{`{"apiVersion":"v1","data":{"k":1},"kind":"ConfigMap","metadata":{"labels":{"a":"\u003c","z":"1"},"name":"a","namespace":"n"}}`,
			`{"apiVersion":"v1","data":{"k":1},"kind":"ConfigMap","metadata":{"name":"a","namespace":"n","labels":{"z":"1","a":"\u003c"}}}`},
		{`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","labels":{"z":"1","a":"<"}},"data":{"x":1,"k":"v"}}`,
			`{"apiVersion":"v1","data":{"k":"v","x":1},"kind":"ConfigMap","metadata":{"name":"a","namespace":"n","labels":{"z":"1","a":"\u003c"}}}`},
		{`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","labels":{"z":"1","a":"<"}},"new":{"b":1,"a":[{"d":1,"c":2}]}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n","labels":{"z":"1","a":"\u003c"}},"new":{"a":[{"c":2,"d":1}],"b":1}}`},
	} {
		if got := string(patchedDocument([]byte(orig), []byte(tc.patched))); got != tc.want {
			t.Errorf("patched %s\n got %s\nwant %s", tc.patched, got, tc.want)
		}
	}
}

// TestUpstreamErrorTexts: errors of the shared decode, patch, delete and
// query code, with the texts kube-apiserver 1.33.13 answered for
// ConfigMaps (testdata/reference: err-empty-body, err-bad-yaml,
// cm-patch-bad-bodies, cm-apply-errors, err-bad-query-params,
// cm-field-validation-warn, cm-delete-preconditions, err-name-mismatch,
// err-update-conflict), here on the toy Widget.
func TestUpstreamErrorTexts(t *testing.T) {
	a, _ := testAPI(t)
	mustCreate(t, a, "default", "exists", 1)
	const yamlBody = "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n"
	tests := []struct {
		name, method, path, ct, body string
		wantCode                     int
		wantReason, wantMessage      string
	}{
		{"empty body", "POST", widgets, "application/json", "", 400, "BadRequest",
			`the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`},
		{"empty body on update", "PUT", widgets + "/exists", "application/json", "", 400, "BadRequest",
			`the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`},
		{"bad yaml", "POST", widgets, "application/yaml", yamlBody, 400, "BadRequest",
			`the object provided is unrecognized (must be of type Widget): yaml: line 3: did not find expected node content (61706956657273696f6e3a2076310a6b696e643a20436f6e6669674d6170 ...)`},
		{"json patch not a list", "PATCH", widgets + "/exists", PatchJSON, `{"op":"add"}`, 400, "BadRequest",
			`error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`},
		{"json patch op not a string", "PATCH", widgets + "/exists", PatchJSON, `[{"op":1}]`, 400, "BadRequest",
			`error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string`},
		{"json patch element", "PATCH", widgets + "/exists", PatchJSON, `[1]`, 400, "BadRequest",
			`error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp`},
		{"patch xml", "PATCH", widgets + "/exists", "application/xml", `<x/>`, 415, "UnsupportedMediaType", `415: Unsupported Media Type`},
		{"patch no content type", "PATCH", widgets + "/exists", "", `{}`, 415, "UnsupportedMediaType", `415: Unsupported Media Type`},
		{"apply without apiVersion", "PATCH", widgets + "/exists?fieldManager=x", PatchApply, "kind: Widget\nmetadata:\n  name: exists\n", 400, "BadRequest",
			`invalid object type: /, Kind=Widget`},
		{"apply of another version", "PATCH", widgets + "/exists?fieldManager=x", PatchApply, "apiVersion: toys.example.com/v2\nkind: Widget\nmetadata:\n  name: exists\n", 400, "BadRequest",
			`invalid object type: toys.example.com/v2, Kind=Widget`},
		// kube-apiserver 1.33.13 (curl -X PATCH -H 'Content-Type: application/apply-patch+yaml'
		// .../configmaps/applyx?fieldManager=t -d '{"apiVersion":"a/b/c","kind":"ConfigMap",...}'):
		// an apiVersion that does not parse empties the whole group/version/kind.
		{"apply of an unparsable apiVersion", "PATCH", widgets + "/exists?fieldManager=x", PatchApply, "apiVersion: a/b/c\nkind: Widget\nmetadata:\n  name: exists\n", 400, "BadRequest",
			`invalid object type: /, Kind=`},
		{"apply not yaml", "PATCH", widgets + "/exists?fieldManager=x", PatchApply, ": not yaml :", 400, "BadRequest",
			`error decoding YAML: error converting YAML to JSON: yaml: did not find expected key`},
		{"limit", "GET", widgets + "?limit=abc", "", "", 400, "BadRequest", `strconv.ParseInt: parsing "abc": invalid syntax`},
		{"timeoutSeconds", "GET", widgets + "?timeoutSeconds=x", "", "", 400, "BadRequest", `strconv.ParseInt: parsing "x": invalid syntax`},
		{"gracePeriodSeconds before not found", "DELETE", widgets + "/nope?gracePeriodSeconds=x", "", "", 400, "BadRequest", `strconv.ParseInt: parsing "x": invalid syntax`},
		{"fieldValidation", "POST", widgets + "?fieldValidation=Bogus", "application/json", widgetJSON("fv", 1), 422, "Invalid",
			`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"`},
		{"uid precondition", "DELETE", widgets + "/exists", "application/json", `{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`, 409, "Conflict", ""},
		{"resourceVersion precondition", "DELETE", widgets + "/exists", "application/json", `{"preconditions":{"resourceVersion":"1"}}`, 409, "Conflict", ""},
		{"namespace mismatch on update", "PUT", widgets + "/exists", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"exists","namespace":"elsewhere"}}`, 400, "BadRequest",
			`the namespace of the provided object does not match the namespace sent on the request`},
		{"resourceVersion not a number", "PUT", widgets + "/exists", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"exists","resourceVersion":"abc"}}`, 500, "",
			`strconv.ParseUint: parsing "abc": invalid syntax`},
		{"resourceVersion not a number, missing object", "PUT", widgets + "/nope", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"nope","resourceVersion":"abc"}}`, 404, "NotFound", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, a, tc.method, tc.path, tc.ct, tc.body)
			if w.Code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", w.Code, tc.wantCode, w.Body)
			}
			st := statusOf(t, w)
			if st.Reason != tc.wantReason || int(st.Code) != tc.wantCode {
				t.Errorf("status %+v", st)
			}
			if tc.wantMessage != "" && st.Message != tc.wantMessage {
				t.Errorf("message\n got %q\nwant %q", st.Message, tc.wantMessage)
			}
		})
	}

	// The precondition conflicts name the kind (upstream's BeforeDelete).
	w := do(t, a, "DELETE", widgets+"/exists", "application/json", `{"preconditions":{"resourceVersion":"1"}}`)
	st := statusOf(t, w)
	if !strings.HasPrefix(st.Message, `Operation cannot be fulfilled on Widget.toys.example.com "exists": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (`) ||
		!strings.HasSuffix(st.Message, `). The object might have been modified`) || st.Details == nil || st.Details.Kind != "Widget" || st.Details.Group != "toys.example.com" {
		t.Errorf("resourceVersion precondition: %+v %+v", st, st.Details)
	}

	// A merge patch whose result does not decode is 422 on "patch" of no
	// kind, the patched document as the value.
	w = do(t, a, "PATCH", widgets+"/exists", PatchMerge, `{"spec":{"size":"big"}}`)
	st = statusOf(t, w)
	if w.Code != 422 || st.Reason != "Invalid" || !strings.HasPrefix(st.Message, ` "" is invalid: patch: Invalid value: "{\"apiVersion\":\"toys.example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"exists\",`) ||
		!strings.HasSuffix(st.Message, `,\"spec\":{\"color\":\"blue\",\"size\":\"big\"},\"status\":{}}": json: cannot unmarshal string into Go struct field WidgetSpec.spec.size of type int32`) ||
		st.Details == nil || st.Details.Kind != "" || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "patch" {
		t.Errorf("merge patch type error: %d %+v %+v", w.Code, st, st.Details)
	}

	// Boolean query parameters convert as upstream's: anything but "0" and
	// "false" is true, so ?watch=maybe watches.
	for _, c := range []struct {
		q    string
		want bool
	}{{"watch=maybe", true}, {"watch=", true}, {"watch", true}, {"watch=FALSE", false}, {"watch=0", false}, {"x=1", false}} {
		r := resourceRequest{}
		req := httptest.NewRequest("GET", widgets+"?"+c.q, nil)
		if got := r.verb(req) == "watch"; got != c.want {
			t.Errorf("?%s: watch %v, want %v", c.q, got, c.want)
		}
	}
}
