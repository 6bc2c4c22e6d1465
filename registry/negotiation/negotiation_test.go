package negotiation

import (
	"net/http/httptest"
	"reflect"
	"testing"
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
