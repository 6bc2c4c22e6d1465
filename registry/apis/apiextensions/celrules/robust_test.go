package celrules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// addRules puts a rule on every schema node (properties, items,
// additionalProperties, allOf...) of a decoded schema.
func addRules(n any, rule string) {
	m, ok := n.(map[string]any)
	if !ok {
		return
	}
	m["x-kubernetes-validations"] = []any{map[string]any{"rule": rule}}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		addRules(m[k], rule)
	}
	for _, k := range []string{"properties", "patternProperties", "definitions"} {
		if ps, ok := m[k].(map[string]any); ok {
			for _, p := range ps {
				addRules(p, rule)
			}
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := m[k].([]any); ok {
			for _, p := range l {
				addRules(p, rule)
			}
		}
	}
}

// TestCompileInvalidSchemasDoesNotPanic: a caller that ignores
// structural.New's errors still gets errors, never a panic, from Compile
// and Validate, on the 24 invalid schemas of the structural package's
// testdata with a rule on every node.
func TestCompileInvalidSchemasDoesNotPanic(t *testing.T) {
	files, err := filepath.Glob("../structural/testdata/crdschemas/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	objs := []map[string]any{
		{},
		{"a": "x", "b": []any{json.Number("1"), nil}, "c": map[string]any{"d": true}},
		{"spec": map[string]any{"a": []any{map[string]any{}}, "b": "q"}, "metadata": map[string]any{"name": "n"}},
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for _, rule := range []string{"true", "self == oldSelf", "has(self.a) || self.size() > 0"} {
			addRules(doc, rule)
			b, _ := json.Marshal(doc)
			s, _ := structural.New(b, "spec.validation.openAPIV3Schema")
			if s == nil {
				continue
			}
			v, _ := Compile(s, "spec.validation.openAPIV3Schema")
			for _, o := range objs {
				v.Validate(o, o)
				v.Validate(o, nil)
			}
		}
	}
}
