package openapiaggregator

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/aggsim/aggsim/registry"
)

// TestEncodeOpenAPIV2AsEncodingJSON pins encodeOpenAPIV2's copying of
// split values to what encoding/json's Encoder (HTML not escaped, keys
// sorted, json.RawMessage values compacted) writes for the same maps: an
// indented backend document with HTML characters, U+2028, non-ASCII and
// escaped keys, and aggsim's own document.
func TestEncodeOpenAPIV2AsEncodingJSON(t *testing.T) {
	indented := []byte(`{
  "swagger": "2.0",
  "info": {"title": "x", "version": "v1"},
  "paths": {
    "/apis/x/v1/b": {"get": {"description": "a <b> & c\u2028 d", "x": [ 1, 2 ]}},
    "/apis/x/v1/a\"q": {"get": {"description": "é ✓"}},
    "/apis/x/v1/\u00e9": {}
  },
  "definitions": {
    "x.v1.B": {"type": "object", "properties": {"s": {"type": "string", "default": "<&>"}}},
    "x.v1.A": {"type":"object"}
  },
  "parameters": {"body-1": {"in": "body", "name": "body"}}
}`)
	for name, doc := range map[string][]byte{"indented": indented, "own": registry.OpenAPIV2()} {
		parts, err := splitOpenAPIV2(doc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeOpenAPIV2(parts.top, parts.paths, parts.definitions, parts.parameters)
		if err != nil {
			t.Fatal(err)
		}
		// the reference: the original parts as decoded, through an Encoder
		var orig map[string]json.RawMessage
		if err := json.Unmarshal(doc, &orig); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		want.WriteByte('{')
		first := true
		for _, k := range openAPIV2TopLevel {
			raw, ok := orig[k]
			if !ok {
				continue
			}
			if !first {
				want.WriteByte(',')
			}
			first = false
			want.WriteString(`"` + k + `":`)
			switch k {
			case "paths", "definitions", "parameters":
				var m map[string]json.RawMessage
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(m); err != nil {
					t.Fatal(err)
				}
				want.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
			default:
				want.Write(raw)
			}
		}
		want.WriteByte('}')
		if !bytes.Equal(got, want.Bytes()) {
			i := 0
			for i < len(got) && i < want.Len() && got[i] == want.Bytes()[i] {
				i++
			}
			t.Errorf("%s: differs at byte %d:\ngot  %.200s\nwant %.200s", name, i, got[max(i-40, 0):], want.Bytes()[max(i-40, 0):])
		}
	}
}
