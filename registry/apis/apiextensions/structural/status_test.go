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

// TestValidateUpdateRatchets: errors of values equal to the replaced ones
// are dropped (properties by name, list-map items by key in any order;
// atomic-list items only as a whole list); changed values are checked.
func TestValidateUpdateRatchets(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"a":{"type":"string","maxLength":3},"b":{"type":"string"},
		"m":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
			"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"v":{"type":"string","maxLength":3}}}},
		"l":{"type":"array","items":{"type":"string","maxLength":3}}}}}}`)
	old := map[string]any{"spec": map[string]any{"a": "long", "b": "x",
		"m": []any{map[string]any{"k": "1", "v": "long"}, map[string]any{"k": "2"}}, "l": []any{"long", "ok"}}}
	for _, tc := range []struct {
		spec map[string]any
		want string
	}{
		{map[string]any{"a": "long", "b": "y", "m": []any{map[string]any{"k": "2"}, map[string]any{"k": "1", "v": "long"}}, "l": []any{"long", "ok"}}, ""},
		{map[string]any{"a": "longer"}, "spec.a: Too long: may not be more than 3 bytes"},
		{map[string]any{"l": []any{"long", "ok", "x"}}, "spec.l[0]: Too long: may not be more than 3 bytes"},
		{map[string]any{"m": []any{map[string]any{"k": "1", "v": "long"}, map[string]any{"k": "3", "v": "long"}}}, "spec.m[1].v: Too long: may not be more than 3 bytes"},
	} {
		var got []string
		for _, e := range s.ValidateUpdate(map[string]any{"spec": tc.spec}, old) {
			got = append(got, e.Error())
		}
		if g := strings.Join(got, "\n"); g != tc.want {
			t.Errorf("%v:\ngot  %s\nwant %s", tc.spec, g, tc.want)
		}
	}
}
