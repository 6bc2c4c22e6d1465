package celrules

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// crdErrorText prints field errors as kubectl prints a CRD's Invalid
// Status: one "* <field>: <body>" per cause.
func crdErrorText(name string, errs []string) string {
	return "The CustomResourceDefinition \"" + name + "\" is invalid: \n* " + strings.Join(errs, "\n* ") + "\n"
}

// compileErrorLines compiles the rules of the structural schema in
// schemaFile and returns Compile's errors as text, in order; schema
// errors fail the test.
func compileErrorLines(t *testing.T, schemaFile string) []string {
	t.Helper()
	raw, err := os.ReadFile(schemaFile)
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
	return lines
}

// TestCompileErrorsMatchReference compares Compile's errors with what a
// real kube-apiserver 1.33.13 answered for testdata/crd-bad.yaml
// (testdata/crd-bad.txt, made with `kubectl create -f crd-bad.yaml`):
// compile errors with their carets, a non-bool rule, a non-string
// messageExpression, optionalOldSelf without oldSelf, oldSelf below a list,
// semver (not offered to new rules in 1.33), a bad regex literal, a syntax
// error, the per-rule and per-CRD cost limits.
func TestCompileErrorsMatchReference(t *testing.T) {
	lines := compileErrorLines(t, "testdata/crd-bad.schema.json")
	got := "$ kubectl create -f crd-bad.yaml\n" + crdErrorText("widgets.cel.example.com", lines) + "[exit 1]\n"
	want, err := os.ReadFile("testdata/crd-bad.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// errorBlocks splits kubectl's list of causes into its "* " entries
// (a compile error spans three lines) and sorts them: upstream checks
// sibling properties in Go map order.
func errorBlocks(text string) []string {
	_, body, _ := strings.Cut(text, "is invalid: \n* ")
	body = strings.TrimSuffix(body, "\n[exit 1]\n")
	blocks := strings.Split(body, "\n* ")
	sort.Strings(blocks)
	return blocks
}

// TestCompileEdgeCasesMatchReference: testdata/crd-bad2.yaml as a real
// 1.33.13 refused it (crd-bad2.txt, `kubectl create -f crd-bad2.yaml`):
// metadata fields beyond name/generateName at the root and in embedded
// resources, unknown fields of preserve-unknown-fields objects, a node
// without a type, messageExpression compile errors, optionalOldSelf on a
// rule that does not compile, a duration literal, comparing with null.
// Keywords and escaped names compile (self.namespace and
// self.__namespace__, a__dot__b, x__underscores__y), and so do
// int-or-string rules. Compared in sorted order (upstream's sibling order
// follows Go map iteration).
func TestCompileEdgeCasesMatchReference(t *testing.T) {
	compareSorted(t, "crd-bad2", "bads.cel.example.com")
	// a map list only adds to and compares with lists of its own type
	// (the type name carries a random number upstream), string(int) in a
	// messageExpression is costly (crd-listadd-bad.yaml)
	compareSorted(t, "crd-listadd-bad", "listaddbads.cel.example.com")
}

var selfTypeRE = regexp.MustCompile(`selfType[0-9]+`)

func compareSorted(t *testing.T, base, crdName string) {
	t.Helper()
	lines := compileErrorLines(t, "testdata/"+base+".schema.json")
	want, err := os.ReadFile("testdata/" + base + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	got := errorBlocks(crdErrorText(crdName, lines) + "[exit 1]\n")
	w := errorBlocks(string(want))
	// the address of a set *bool is printed by upstream; blank it
	for i := range w {
		w[i] = selfTypeRE.ReplaceAllString(ptrRE.ReplaceAllString(w[i], "(*bool)(PTR)"), "selfTypeN")
	}
	for i := range got {
		got[i] = selfTypeRE.ReplaceAllString(ptrRE.ReplaceAllString(got[i], "(*bool)(PTR)"), "selfTypeN")
	}
	if strings.Join(got, "\n---\n") != strings.Join(w, "\n---\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(w, "\n---\n"))
	}
}

var ptrRE = regexp.MustCompile(`\(\*bool\)\(0x[0-9a-f]+\)`)
