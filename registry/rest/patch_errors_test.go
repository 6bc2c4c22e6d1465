package rest

import (
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestPatchDecodeErrors: merge and strategic merge patches that are not a
// JSON object answer 400 with encoding/json's text, the merge patch's
// prefixed "error decoding patch: ", as a real kube-apiserver 1.33 answers
// (measured with curl on a Service).
func TestPatchDecodeErrors(t *testing.T) {
	orig := []byte(`{"spec":{"selector":{"x":"y"}}}`)
	for _, tc := range []struct {
		patchType, patch, want string
	}{
		{PatchMerge, `[1]`, "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{PatchMerge, `{bad`, "error decoding patch: invalid character 'b' looking for beginning of object key string"},
		{PatchMerge, `{"a":1} x`, "error decoding patch: invalid character 'x' after top-level value"},
		{PatchStrategic, `[1]`, "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{PatchStrategic, `{bad`, "invalid character 'b' looking for beginning of object key string"},
		{PatchStrategic, `{"a":1} x`, "invalid character 'x' after top-level value"},
	} {
		_, err := applyPatch(tc.patchType, orig, []byte(tc.patch), nil)
		st := meta.ToStatus(err).Status
		if st.Code != 400 || st.Message != tc.want {
			t.Errorf("%s %s: %d %q, want 400 %q", tc.patchType, tc.patch, st.Code, st.Message, tc.want)
		}
	}
	// A merge patch keeps large integers exact and deletes with null.
	out, err := applyPatch(PatchMerge, []byte(`{"a":{"b":1,"c":2},"n":1}`), []byte(`{"a":{"b":null,"d":{"e":null}},"n":123456789012345678901}`), nil)
	if err != nil || string(out) != `{"a":{"c":2,"d":{}},"n":123456789012345678901}` {
		t.Errorf("merge: %s %v", out, err)
	}
}
