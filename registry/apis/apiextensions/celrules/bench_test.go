package celrules

import (
	"os"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// BenchmarkValidate is one evaluation of the rules of crd-rules.yaml on
// one object (create-1.json: 7 failing rules of 8 nodes).
func BenchmarkValidate(b *testing.B) {
	_, v := loadValidator(b, "testdata/crd-rules.schema.json")
	obj := loadObject(b, "testdata/objects/create-1.json")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = v.Validate(obj, nil)
	}
}

// BenchmarkValidateOneRule is one rule evaluation per object: the Pizza
// crust-is-immutable style transition rule self == oldSelf on an update.
func BenchmarkValidateOneRule(b *testing.B) {
	_, v := loadValidator(b, "testdata/crd-rules.schema.json")
	obj := loadObject(b, "testdata/objects/update-3.json")
	old := loadObject(b, "testdata/objects/create-3.json")
	delete(obj, "spec")
	delete(old, "spec")
	obj["metadata"] = map[string]any{"name": "g3"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = v.Validate(obj, old)
	}
}

// BenchmarkCompile is a CRD create's CEL work: the 18 rules of
// crd-libs.yaml compiled, cost-estimated and checked.
func BenchmarkCompile(b *testing.B) {
	raw, err := os.ReadFile("testdata/crd-libs.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	s, _ := structural.New(raw, "spec.validation.openAPIV3Schema")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, errs := Compile(s, "spec.validation.openAPIV3Schema"); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
