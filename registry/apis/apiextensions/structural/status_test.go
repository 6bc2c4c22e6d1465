package structural

import (
	"strings"
	"testing"
)

// TestValidateStatusUpdate: the status is checked alone (messages relative
// to it, as kube-apiserver 1.33.13 answered a Certificate's /status write:
// `status.revision: Invalid value: "string": revision in body must be of
// type integer: "string"`), spec is not value-checked, and list-map
// duplicates are reported only when the old object had none (upstream's
// status strategy ratchets them).
func TestValidateStatusUpdate(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{
		"spec":{"type":"object","properties":{"n":{"type":"integer"}}},
		"status":{"type":"object","properties":{"revision":{"type":"integer"},
			"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
				"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}}}}}`)
	dup := func() []any { return []any{map[string]any{"k": "a"}, map[string]any{"k": "a"}} }
	obj := map[string]any{"spec": map[string]any{"n": "not checked"}, "status": map[string]any{"revision": "two", "l": dup()}}
	got := func(old map[string]any) string {
		var out []string
		for _, e := range s.ValidateStatusUpdate(obj, old) {
			out = append(out, e.Error())
		}
		return strings.Join(out, "\n")
	}
	want := `status.revision: Invalid value: "string": revision in body must be of type integer: "string"` + "\n" +
		`status.l[1]: Duplicate value: map[string]interface {}{"k":"a"}`
	if g := got(map[string]any{}); g != want {
		t.Errorf("old without duplicates:\ngot  %s\nwant %s", g, want)
	}
	want = `status.revision: Invalid value: "string": revision in body must be of type integer: "string"`
	if g := got(map[string]any{"status": map[string]any{"l": dup()}}); g != want {
		t.Errorf("old with duplicates:\ngot  %s\nwant %s", g, want)
	}
}
