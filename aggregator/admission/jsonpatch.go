package admission

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// jsonPatch is a webhook's JSONPatch decoded as upstream's
// (gopkg.in/evanphx/json-patch.v4, which kube-apiserver 1.33 uses) reads
// it: its operations as raw fields, applied in order.
type jsonPatch []map[string]*json.RawMessage

// decodeJSONPatch decodes a JSONPatch with v4's errors: the JSON
// decoder's text, naming v4's types (`json: cannot unmarshal object into
// Go value of type jsonpatch.Patch`).
func decodeJSONPatch(b []byte) (jsonPatch, error) {
	var p jsonPatch
	if err := json.Unmarshal(b, &p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			typ := "jsonpatch.Patch"
			if te.Value != "array" && b[0] == '[' {
				typ = "jsonpatch.Operation"
			}
			return nil, fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", te.Value, typ)
		}
		return nil, err
	}
	return p, nil
}

// opKind is v4's Operation.Kind: the "op" string, "unknown" when absent
// or not a string.
func opKind(op map[string]*json.RawMessage) string {
	raw := op["op"]
	if raw == nil {
		return "unknown"
	}
	var s string
	if json.Unmarshal(*raw, &s) != nil {
		return "unknown"
	}
	return s
}

// apply applies p to doc as v4 does: operations in order, an operation
// of no known kind failing with `Unexpected kind: <op>` once those
// before it applied.
func (p jsonPatch) apply(doc []byte) ([]byte, error) {
	n := len(p)
	for i, op := range p {
		switch opKind(op) {
		case "add", "remove", "replace", "move", "copy", "test":
			continue
		}
		n = i
		break
	}
	out := doc
	if n > 0 {
		b, err := json.Marshal(p[:n])
		if err != nil {
			return nil, err
		}
		dp, err := jsonpatch.DecodePatch(b)
		if err != nil {
			return nil, err
		}
		if out, err = dp.Apply(doc); err != nil {
			return nil, err
		}
	}
	if n < len(p) {
		return nil, fmt.Errorf("Unexpected kind: %s", opKind(p[n]))
	}
	return out, nil
}
