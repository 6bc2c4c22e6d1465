package structural

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func mustNew(t *testing.T, schema string) *Schema {
	t.Helper()
	s, errs := New([]byte(schema), "openAPIV3Schema")
	if len(errs) > 0 {
		t.Fatalf("New: %v", errs)
	}
	return s
}

func obj(t *testing.T, j string) map[string]any {
	t.Helper()
	return decodeObject(t, []byte(j))
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPrune follows upstream's pruning rules (pruning/algorithm.go and
// the "Pruning versus preserving unknown fields" section of the CRD docs).
func TestPrune(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{
	  "spec":{"type":"object","properties":{
	    "a":{"type":"string"},
	    "list":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}},
	    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"known":{"type":"object","properties":{"k":{"type":"string"}}}}},
	    "map":{"type":"object","additionalProperties":{"type":"object","properties":{"v":{"type":"string"}}}},
	    "emb":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}`)
	o := obj(t, `{"apiVersion":"x/v1","kind":"X","metadata":{"name":"n","whatever":1},"extra":1,
	  "spec":{"a":"x","b":1,"list":[{"k":"1","z":2}],
	    "free":{"any":{"thing":1},"known":{"k":"v","drop":1}},
	    "map":{"m1":{"v":"x","w":"y"}},
	    "emb":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","junk":1},"data":{"a":"b"}}}}`)
	paths := s.Prune(o)
	want := []string{"extra", "spec.b", "spec.emb.metadata.junk", "spec.free.known.drop", "spec.list[0].z", "spec.map.m1.w"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	got := asJSON(o)
	wantObj := `{"apiVersion":"x/v1","kind":"X","metadata":{"name":"n","whatever":1},"spec":{"a":"x","emb":{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"name":"c"}},"free":{"any":{"thing":1},"known":{"k":"v"}},"list":[{"k":"1"}],"map":{"m1":{"v":"x"}}}}`
	if got != wantObj {
		t.Errorf("pruned\n got %s\nwant %s", got, wantObj)
	}
}

// TestDefault follows upstream's defaulting rules (defaulting/algorithm.go
// and the CRD docs' "Defaulting" and "Defaulting and Nullable" sections).
func TestDefault(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	  "a":{"type":"string","default":"x"},
	  "n":{"type":"string","nullable":true,"default":"y"},
	  "nn":{"type":"string","default":"z"},
	  "obj":{"type":"object","default":{},"properties":{"inner":{"type":"integer","default":5}}},
	  "items":{"type":"array","items":{"type":"object","properties":{"d":{"type":"boolean","default":false}}}},
	  "m":{"type":"object","additionalProperties":{"type":"string","default":"v"}},
	  "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"k":{"type":"string","default":"kk"}}}}}}}`)
	o := obj(t, `{"spec":{"n":null,"nn":null,"items":[{},{"d":true}],"m":{"x":null,"y":"set"},"free":{"other":1}}}`)
	s.Default(o)
	want := `{"spec":{"a":"x","free":{"k":"kk","other":1},"items":[{"d":false},{"d":true}],"m":{"x":"v","y":"set"},"n":null,"nn":"z","obj":{"inner":5}}}`
	if got := asJSON(o); got != want {
		t.Errorf("defaulted\n got %s\nwant %s", got, want)
	}
	// the default is a copy: changing one object does not change the next
	o["spec"].(map[string]any)["obj"].(map[string]any)["inner"] = 1
	o2 := obj(t, `{"spec":{}}`)
	s.Default(o2)
	if got := asJSON(o2["spec"].(map[string]any)["obj"]); got != `{"inner":5}` {
		t.Errorf("second object's default %s", got)
	}
}

// TestPruneNulls: nulls of non-nullable fields without default are dropped
// (prunenulls.go); nullable ones stay.
func TestPruneNulls(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	  "a":{"type":"string"},"b":{"type":"string","nullable":true},"l":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}}}}}}`)
	o := obj(t, `{"spec":{"a":null,"b":null,"l":[{"x":null}]}}`)
	s.PruneNulls(o)
	if got, want := asJSON(o), `{"spec":{"b":null,"l":[{}]}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestValidateMessages pins single messages of upstream's validator
// (texts from kube-openapi/pkg/validation/errors and the field error
// types of kubeOpenAPIResultToFieldErrors).
func TestValidateMessages(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{"spec":{"type":"object","required":["r"],"properties":{
	  "r":{"type":"string"},
	  "s":{"type":"string","maxLength":2},
	  "l":{"type":"array","items":{"type":"string"},"maxItems":1},
	  "e":{"type":"string","enum":["a","b"]},
	  "o":{"type":"object","properties":{"x":{"type":"integer"}},"x-kubernetes-embedded-resource":true}}}}}`)
	o := obj(t, `{"spec":{"s":"abc","l":["a","b"],"e":"c","o":{"x":1.5}}}`)
	var got []string
	for _, e := range s.Validate(o) {
		got = append(got, string(e.Type)+" "+e.Error())
	}
	want := []string{
		`FieldValueNotSupported spec.e: Unsupported value: "c": supported values: "a", "b"`,
		`FieldValueTooMany spec.l: Too many: 2: must have at most 1 items`,
		`FieldValueTypeInvalid spec.o.x: Invalid value: "number": spec.o.x in body must be of type integer: "number"`,
		`FieldValueTooLong spec.s: Too long: may not be more than 2 bytes`,
		`FieldValueRequired spec.r: Required value`,
		`FieldValueRequired spec.o.apiVersion: Required value: must not be empty`,
		`FieldValueRequired spec.o.kind: Required value: must not be empty`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNewBadInput: bytes that are not a schema give one error and no
// panic; a nil Schema validates, prunes and defaults nothing.
func TestNewBadInput(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"type":1}`, `{"properties":{"a":{"default":}}}`} {
		s, errs := New([]byte(in), "p")
		if s != nil || len(errs) != 1 || errs[0].Field != "p" {
			t.Errorf("%q: %v %v", in, s, errs)
		}
	}
	var s *Schema
	o := map[string]any{"a": 1}
	if s.Validate(o) != nil || s.Prune(o) != nil || len(o) != 1 {
		t.Error("nil schema changed or rejected the object")
	}
	s.Default(o)
	s.PruneNulls(o)
}

// TestRules lists x-kubernetes-validations with their schema paths.
func TestRules(t *testing.T) {
	s := mustNew(t, `{"type":"object","x-kubernetes-validations":[{"rule":"true"}],"properties":{"spec":{"type":"object",
	  "x-kubernetes-validations":[{"rule":"self.a == 1","message":"m"},{"rule":"has(self.a)","messageExpression":"'x'","reason":"FieldValueRequired","fieldPath":".a"}],
	  "properties":{"a":{"type":"integer"},"l":{"type":"array","items":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''"}]}}}}}}`)
	var got []string
	for _, r := range s.Rules() {
		got = append(got, r.SchemaPath+"#"+string(rune('0'+r.Index))+" "+r.Rule)
	}
	want := []string{"#0 true", "properties[spec]#0 self.a == 1", "properties[spec]#1 has(self.a)", "properties[spec].properties[l].items#0 self != ''"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if r := s.Rules()[2]; r.Reason == nil || *r.Reason != "FieldValueRequired" || r.FieldPath != ".a" || r.MessageExpression != "'x'" {
		t.Errorf("rule fields lost: %+v", r)
	}
}

// TestValidateAt validates a status alone, with paths under status.
func TestValidateAt(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{"status":{"type":"object","properties":{"phase":{"type":"string","enum":["A"]}}}}}`)
	errs := s.ValidateAt("status", map[string]any{"phase": "B"})
	if len(errs) != 1 || errs[0].Error() != `status.phase: Unsupported value: "B": supported values: "A"` {
		t.Errorf("got %v", errs)
	}
	if errs := s.ValidateAt("nope", 1); errs != nil {
		t.Errorf("unknown property: %v", errs)
	}
}

// TestStatusSubresourceErrors: texts as a real 1.33 answered a one-version
// CRD with the status subresource and a root anyOf (its bad value, the
// whole schema as a Go struct, is not reproduced).
func TestStatusSubresourceErrors(t *testing.T) {
	s := mustNew(t, `{"type":"object","anyOf":[{"required":["spec"]}],"properties":{"spec":{"type":"object"}}}`)
	errs := s.StatusSubresourceErrors("spec.validation.openAPIV3Schema")
	want := `spec.validation.openAPIV3Schema: Invalid value: apiextensions.JSONSchemaProps{...}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got %v", errs)
	}
	ok := mustNew(t, `{"type":"object","required":["spec"],"description":"d","properties":{"spec":{"type":"object"}},"x-kubernetes-preserve-unknown-fields":true}`)
	if errs := ok.StatusSubresourceErrors("p"); errs != nil {
		t.Errorf("allowed root rejected: %v", errs)
	}
}
