package celrules

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

func loadValidator(t testing.TB, schemaFile string) (*structural.Schema, *Validator) {
	t.Helper()
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, errs := structural.New(raw, "spec.validation.openAPIV3Schema")
	if len(errs) != 0 {
		t.Fatalf("schema errors: %v", errs)
	}
	v, errs := Compile(s, "spec.validation.openAPIV3Schema")
	if len(errs) != 0 {
		t.Fatalf("compile errors: %v", errs)
	}
	return s, v
}

func loadObject(t testing.TB, file string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// referenceCauses reads the "* <cause>" lines kubectl printed for an
// Invalid Status in a capture (testdata/objects/*.txt).
func referenceCauses(t *testing.T, file string) []string {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "* ") {
			out = append(out, strings.TrimPrefix(l, "* "))
		} else if _, one, ok := strings.Cut(l, "\" is invalid: "); ok && one != "" {
			out = append(out, one) // kubectl prints a single cause on the same line
		}
	}
	return out
}

// TestValidateMatchesReference evaluates the rules of crd-rules.yaml on the
// objects a real kube-apiserver 1.33.13 judged (commands in each
// testdata/objects/*.txt, against `kubectl create -f crd-rules.yaml`):
// message, messageExpression, default "failed rule:", reasons Forbidden and
// Duplicate, fieldPath, the root rule at "<nil>", a missing key as an
// evaluation error, optionalOldSelf on create and update, transition rules
// on a list-type map item and a scalar, and set equality ignoring order.
// Upstream walks object keys in Go map order; the causes are compared in
// sorted order.
func TestValidateMatchesReference(t *testing.T) {
	_, v := loadValidator(t, "testdata/crd-rules.schema.json")
	for _, tc := range []struct{ obj, old, capture string }{
		{"create-1.json", "", "create-1.txt"},
		{"create-2.json", "", "create-2.txt"},
		{"create-3.json", "", "create-3.txt"},
		{"update-3.json", "create-3.json", "update-3.txt"},
	} {
		check(t, v, tc.obj, tc.old, tc.capture)
	}
	// the environment: escaped property names (reserved word, dash),
	// int-or-string, duration and date-time formats, number as double,
	// strings ext, macros, optional types (crd-env.yaml).
	_, env := loadValidator(t, "testdata/crd-env.schema.json")
	check(t, env, "env-ok.json", "", "env-ok.txt")
	check(t, env, "env-bad.json", "", "env-bad.txt")
	// the Kubernetes libraries: lists, regex, url, ip, cidr, quantity,
	// format, strings ext, sets, two-variable comprehensions, with their
	// runtime error texts (crd-libs.yaml).
	_, libs := loadValidator(t, "testdata/crd-libs.schema.json")
	for _, f := range []string{"libs-ok", "libs-bad", "libs-bad2"} {
		check(t, libs, f+".json", "", f+".txt")
	}
	// null properties read as absent, null map values stay null, keyword
	// field names at runtime, an embedded resource, int-or-string
	// (crd-nulls.yaml).
	_, nulls := loadValidator(t, "testdata/crd-nulls.schema.json")
	for _, f := range []string{"nulls-1", "nulls-2"} {
		check(t, nulls, f+".json", "", f+".txt")
	}
	// + on set lists is a union, on map lists a merge by key; set
	// equality ignores order (crd-listadd.yaml).
	_, la := loadValidator(t, "testdata/crd-listadd.schema.json")
	for _, f := range []string{"listadd-1", "listadd-2"} {
		check(t, la, f+".json", "", f+".txt")
	}
	// messageExpression results that fall back to the message (empty,
	// blank, line break, evaluation error), trimming, fieldPath to a map
	// key and a property, reasons (crd-msg.yaml).
	_, msg := loadValidator(t, "testdata/crd-msg.schema.json")
	check(t, msg, "msg-1.json", "", "msg-1.txt")
}

// check compares the causes with a capture; the order is compared too
// when the upstream order is deterministic: all causes of one schema
// node (upstream walks sibling properties in Go map order).
func check(t *testing.T, v *Validator, objFile, oldFile, capture string) {
	t.Helper()
	tc := struct{ obj, old, capture string }{objFile, oldFile, capture}
	{
		obj := loadObject(t, "testdata/objects/"+tc.obj)
		var old map[string]any
		if tc.old != "" {
			old = loadObject(t, "testdata/objects/"+tc.old)
		}
		var got []string
		for _, e := range v.Validate(obj, old) {
			got = append(got, e.Error())
		}
		want := referenceCauses(t, "testdata/objects/"+tc.capture)
		if oneNode(want) && strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: order: got\n%s\nwant\n%s", tc.obj, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.obj, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestRatchetingMatchesReference: an object stored before its CRD gained
// rules, then updated (testdata/objects/ratchet.txt, commands in it): the
// unchanged spec.a, spec.b and list-type map item ports[y] fail as
// warnings; the changed spec, ports[x] and an item of a changed atomic list
// fail as errors.
func TestRatchetingMatchesReference(t *testing.T) {
	_, v := loadValidator(t, "testdata/crd-ratchet.schema.json")
	obj := loadObject(t, "testdata/objects/ratchet-new.json")
	old := loadObject(t, "testdata/objects/ratchet-old.json")
	errs, warnings := v.ValidateWithWarnings(obj, old)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := referenceCauses(t, "testdata/objects/ratchet.txt")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors: got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	raw, err := os.ReadFile("testdata/objects/ratchet.txt")
	if err != nil {
		t.Fatal(err)
	}
	var wantW []string
	for _, l := range strings.Split(string(raw), "\n") {
		if w, ok := strings.CutPrefix(l, "Warning: "); ok {
			wantW = append(wantW, w)
		}
	}
	sort.Strings(wantW) // upstream's order follows Go map iteration
	sort.Strings(warnings)
	if strings.Join(warnings, "\n") != strings.Join(wantW, "\n") {
		t.Errorf("warnings: got\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(wantW, "\n"))
	}
	// on create nothing is ratcheted
	if errs, warnings := v.ValidateWithWarnings(obj, nil); len(errs) != 6 || len(warnings) != 0 {
		t.Errorf("create: %d errors %v, warnings %v; want 6 errors, no warnings", len(errs), errs, warnings)
	}
}

// oneNode reports whether all causes are at one field (before any
// fieldPath suffix): then upstream's order is the rules' order.
func oneNode(causes []string) bool {
	for _, c := range causes {
		if f, _, _ := strings.Cut(c, ": "); f != "spec" {
			return false
		}
	}
	return true
}

// TestBlockingErrorMatchesReference runs schema validation then CEL as
// upstream's custom resource strategy does (testdata/objects/blocking-*.txt
// against crd-rules.yaml): a type error blocks the rules and adds the
// "some validation rules were not checked" cause; a duplicate set item
// does not block them.
func TestBlockingErrorMatchesReference(t *testing.T) {
	s, v := loadValidator(t, "testdata/crd-rules.schema.json")
	for _, f := range []string{"blocking-1", "blocking-2"} {
		obj := loadObject(t, "testdata/objects/"+f+".json")
		errs := s.Validate(obj)
		if e, blocked := BlockingError(errs); blocked {
			errs = append(errs, e)
		} else {
			errs = append(errs, v.Validate(obj, nil)...)
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		want := referenceCauses(t, "testdata/objects/"+f+".txt")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", f, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
