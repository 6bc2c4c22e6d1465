package openapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWriteScalarAsEncodingJSON pins writeScalar's direct paths to the
// bytes encoding/json's Encoder writes, with and without HTML escaping.
func TestWriteScalarAsEncodingJSON(t *testing.T) {
	values := []any{
		"", "plain text", "a<b>&c", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x1f\x7f",
		"héllo ✓", "line\u2028sep\u2029", "bad \xff utf8", "~ !#$%'()*+,-./:;=?@[]^_`{|}",
		true, false, 0, -1, 123456789, int32(-42), int64(1) << 62,
		1.5, 1e21, []string{"a", "<b>"}, nil, json.RawMessage(`{"a":1}`),
	}
	for _, escape := range []bool{false, true} {
		for _, v := range values {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(escape)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			got.WriteString("prefix")
			if err := writeScalar(&got, v, escape); err != nil {
				t.Fatal(err)
			}
			if w := "prefix" + string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); got.String() != w {
				t.Errorf("escapeHTML=%v %#v: got %s, want %s", escape, v, got.String(), w)
			}
		}
	}
}
