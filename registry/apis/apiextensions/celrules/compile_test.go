package celrules

import (
	"os"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// crdErrorText prints field errors as kubectl prints a CRD's Invalid
// Status: one "* <field>: <body>" per cause.
func crdErrorText(name string, errs []string) string {
	return "The CustomResourceDefinition \"" + name + "\" is invalid: \n* " + strings.Join(errs, "\n* ") + "\n"
}

// TestCompileErrorsMatchReference compares Compile's errors with what a
// real kube-apiserver 1.33.13 answered for testdata/crd-bad.yaml
// (testdata/crd-bad.txt, made with `kubectl create -f crd-bad.yaml`):
// compile errors with their carets, a non-bool rule, a non-string
// messageExpression, optionalOldSelf without oldSelf, oldSelf below a list,
// semver (not offered to new rules in 1.33), a bad regex literal, a syntax
// error, the per-rule and per-CRD cost limits.
func TestCompileErrorsMatchReference(t *testing.T) {
	raw, err := os.ReadFile("testdata/crd-bad.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, errs := structural.New(raw, "spec.validation.openAPIV3Schema")
	if len(errs) != 0 {
		t.Fatalf("schema errors: %v", errs)
	}
	_, errs = Compile(s, "spec.validation.openAPIV3Schema")
	var lines []string
	for _, e := range errs {
		lines = append(lines, e.Error())
	}
	got := "$ kubectl create -f crd-bad.yaml\n" + crdErrorText("widgets.cel.example.com", lines) + "[exit 1]\n"
	want, err := os.ReadFile("testdata/crd-bad.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
