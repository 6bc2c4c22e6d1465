package admission

import (
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// decodeJSONPatch decodes a webhook's or a mutating policy's JSONPatch
// with json-patch v4, the library kube-apiserver 1.33's mutating
// dispatcher and policy patcher use (v5's texts differ: "Unable to
// remove nonexistent key"), so that its
// errors (`json: cannot unmarshal object into Go value of type
// jsonpatch.Patch`, `Unexpected kind: frob`, `remove operation does not
// apply: ...`) are upstream's.
func decodeJSONPatch(b []byte) (jsonpatch.Patch, error) {
	return jsonpatch.DecodePatch(b)
}
