package rest

import (
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestJSONPatchAsUpstream: JSON patches are applied as kube-apiserver
// 1.33.13 applies them (json-patch v4). The answers were measured on a
// ConfigMap `{"data":{"a":"b"}}`, created afresh before each patch, with
//
//	curl -X PATCH -H 'Content-Type: application/json-patch+json' \
//	  https://127.0.0.1:7743/api/v1/namespaces/default/configmaps/jp -d '<patch>'
//
// against kube-apiserver 1.33.13. v5, which aggsim used before, refused a
// replace or copy of a missing key (422), answered an unknown op, a missing
// op or an add without value with 400 and its own text, and let an add at
// path "" replace the document.
func TestJSONPatchAsUpstream(t *testing.T) {
	const orig = `{"data":{"a":"b"},"metadata":{"name":"jp"}}`
	for _, tc := range []struct {
		patch string
		want  string // the patched document, or "" for upstream's generic 422
	}{
		{`[{"op":"replace","path":"/data/nope","value":"x"}]`, `{"data":{"a":"b","nope":"x"},"metadata":{"name":"jp"}}`},
		{`[{"op":"remove","path":"/data/nope"}]`, ""},
		{`[{"op":"replace","path":"/metadata/labels/nope","value":"x"}]`, ""},
		{`[{"op":"add","path":"/data/list/0","value":"x"}]`, ""},
		{`[{"op":"test","path":"/data/a","value":"c"}]`, ""},
		{`[{"op":"move","from":"/data/nope","path":"/data/z"}]`, ""},
		{`[{"op":"frob","path":"/data/a"}]`, ""},
		// the reference stored "" for b: the value null decodes to an empty string
		{`[{"op":"add","path":"/data/b"}]`, `{"data":{"a":"b","b":null},"metadata":{"name":"jp"}}`},
		{`[{"op":"add","path":"/data/b","value":null}]`, `{"data":{"a":"b","b":null},"metadata":{"name":"jp"}}`},
		{`[{"path":"/data/b","value":"x"}]`, ""},
		{`[{"op":"copy","from":"/data/nope","path":"/data/y"}]`, `{"data":{"a":"b","y":null},"metadata":{"name":"jp"}}`},
		{`[{"op":"replace","path":"/metadata/labels","value":{"q":"r"}},{"op":"remove","path":"/metadata/labels/zz"}]`, ""},
		{`[{"op":"add","path":"/metadata/finalizers/5","value":"x"}]`, ""},
		{`[{"op":"add","path":"/metadata/finalizers/-","value":"x/y"}]`, ""},
		{`[{"op":"add","path":"","value":{}}]`, ""},
		{`[{"op":"remove","path":"/data/a/b"}]`, ""},
	} {
		out, err := applyPatch(PatchJSON, []byte(orig), []byte(tc.patch), nil)
		if tc.want != "" {
			if err != nil || string(out) != tc.want {
				t.Errorf("%s: %s %v, want %s", tc.patch, out, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: %s, want 422", tc.patch, out)
			continue
		}
		st := meta.ToStatus(err).Status
		if st.Code != 422 || st.Reason != meta.StatusReasonInvalid || st.Message != "the server rejected our request due to an error in our request" || st.Details == nil {
			t.Errorf("%s: %d %s %q, want upstream's generic 422", tc.patch, st.Code, st.Reason, st.Message)
		}
	}
}
