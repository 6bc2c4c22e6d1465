package negotiation

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestEncodeJSONNewlines: compact JSON ends with a newline (json.Encoder),
// pretty JSON does not (json.MarshalIndent), as a real kube-apiserver 1.33
// answers curl (measured: `...}\n` for kubectl, `...\n}` for curl).
func TestEncodeJSONNewlines(t *testing.T) {
	v := map[string]any{"a": 1}
	if b, _ := EncodeJSON(v, false); string(b) != "{\"a\":1}\n" {
		t.Errorf("compact %q", b)
	}
	if b, _ := EncodeJSON(v, true); string(b) != "{\n  \"a\": 1\n}" {
		t.Errorf("pretty %q", b)
	}
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("User-Agent", "curl/8.5.0")
	w := httptest.NewRecorder()
	WriteObject(w, Format{Pretty: IsPrettyPrint(r)}, 200, v)
	if got := w.Body.String(); got != "{\n  \"a\": 1\n}" {
		t.Errorf("WriteObject for curl: %q", got)
	}
}

// TestParseAcceptOrder: clauses sort by q, then concrete before wildcard,
// keeping header order otherwise; parameters are kept, quotes removed.
func TestParseAcceptOrder(t *testing.T) {
	got := ParseAccept(`*/*;q=0.8, application/*, application/json;as=Table;v="v1";g=meta.k8s.io, text/plain;q=0, bogus`)
	var order []string
	for _, c := range got {
		order = append(order, c.MediaType())
	}
	if want := []string{"application/json", "application/*", "*/*", "text/plain"}; !reflect.DeepEqual(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if got[0].Params["v"] != "v1" || got[0].Params["as"] != "Table" || got[2].Q != 0.8 || got[3].Q != 0 {
		t.Errorf("clauses %+v", got)
	}
}

// TestWriteStatusFormats: the Status comes in YAML when the client asks
// for YAML, as a real kube-apiserver 1.33 answers (keys sorted, no
// trailing JSON newline), and carries no X-Content-Type-Options header.
func TestWriteStatusFormats(t *testing.T) {
	err := meta.NewNotFound(meta.GroupResource{Resource: "configmaps"}, "nope")
	r := httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps/nope", nil)
	r.Header.Set("Accept", "application/yaml")
	w := httptest.NewRecorder()
	WriteStatus(w, r, err)
	want := "apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n  name: nope\nkind: Status\nmessage: configmaps \"nope\" not found\nmetadata: {}\nreason: NotFound\nstatus: Failure\n"
	if w.Code != 404 || w.Header().Get("Content-Type") != "application/yaml" || w.Body.String() != want {
		t.Errorf("YAML: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
	r.Header.Set("Accept", "application/json")
	w = httptest.NewRecorder()
	WriteStatus(w, r, err)
	wantJSON := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}` + "\n"
	if w.Header().Get("Content-Type") != "application/json" || w.Body.String() != wantJSON || w.Header().Get("X-Content-Type-Options") != "" {
		t.Errorf("JSON: %q %q nosniff %q", w.Header().Get("Content-Type"), w.Body.String(), w.Header().Get("X-Content-Type-Options"))
	}
}

// TestRouteAccept pins go-restful's route-level refusal as kube-apiserver
// 1.33.13 answers it (curl -A kubectl -H 'Accept: text/plain'
// .../configmaps, .../configmaps/x, and a chunked POST): 406 with
// "406: Not Acceptable\n\nAvailable representations: <the route's
// produces>" and details {}, written raw (indented, no newline) since no
// format fits the Accept header; list routes also produce the watch
// stream types; `application/*` and a differently cased type do not
// match the route (the reference answered 406 to both), and the Status is
// then compact for `application/*` (negotiable) but raw for
// "Application/JSON" (negotiation is case-sensitive); 415 for a write
// without Content-Length.
func TestRouteAccept(t *testing.T) {
	const objTypes = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
	want := func(code int, reason, text, types string) string {
		return "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"" +
			text + "\\n\\nAvailable representations: " + types + "\",\n  \"reason\": \"" + reason + "\",\n  \"details\": {},\n  \"code\": " + itoa(code) + "\n}"
	}
	for _, tc := range []struct {
		method, accept string
		produces       []string
		chunked        bool
		code           int
		body           string
	}{
		{"GET", "text/plain", ListMediaTypes, false, 406, want(406, "NotAcceptable", "406: Not Acceptable", objTypes+", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch")},
		{"GET", "text/plain", ObjectMediaTypes, false, 406, want(406, "NotAcceptable", "406: Not Acceptable", objTypes)},
		{"GET", "application/*", ObjectMediaTypes, false, 406, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"406: Not Acceptable\n\nAvailable representations: ` + objTypes + `","reason":"NotAcceptable","details":{},"code":406}` + "\n"},
		{"GET", "Application/JSON", ObjectMediaTypes, false, 406, want(406, "NotAcceptable", "406: Not Acceptable", objTypes)},
		{"POST", "text/plain", ObjectMediaTypes, true, 415, want(415, "UnsupportedMediaType", "415: Unsupported Media Type", objTypes)},
		{"GET", "text/plain, */*;q=0.1", ObjectMediaTypes, false, 0, ""},
		{"GET", "application/json;as=Table;g=meta.k8s.io;v=v1", ObjectMediaTypes, false, 0, ""},
		{"GET", "application/vnd.kubernetes.protobuf", ObjectMediaTypes, false, 0, ""},
		{"GET", "", ObjectMediaTypes, false, 0, ""},
	} {
		r := httptest.NewRequest(tc.method, "/api/v1/namespaces/default/configmaps", nil)
		r.Header.Set("User-Agent", "kubectl/v1.33.1")
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		if !tc.chunked && tc.method == "POST" {
			r.Header.Set("Content-Length", "2")
		}
		err := RouteAccept(r, tc.produces)
		if tc.code == 0 {
			if err != nil {
				t.Errorf("%s %q: %v", tc.method, tc.accept, err)
			}
			continue
		}
		w := httptest.NewRecorder()
		WriteStatus(w, r, err)
		if w.Code != tc.code || w.Body.String() != tc.body || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %q: %d %q\nwant %d %q", tc.method, tc.accept, w.Code, w.Body, tc.code, tc.body)
		}
	}
}

func itoa(n int) string {
	b := []byte{}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
