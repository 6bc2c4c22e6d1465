package celrules

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// TestConstantRegexCompiledWithProgram replays testdata/regex-constants.txt
// (kube-apiserver 1.33.13): a constant regex of find or findAll is
// compiled with the rule's program, so one that does not compile refuses
// the CRD ("program instantiation failed: ..."); a regex that is not a
// constant is compiled when the rule runs ("Illegal regex: ..."). aggsim
// compiled every regex at every evaluation (per object, per list
// element) and accepted the CRDs.
func TestConstantRegexCompiledWithProgram(t *testing.T) {
	ref, err := os.ReadFile("testdata/regex-constants.txt")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/regex-find-const.crd.json")
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]any
	if err := json.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	root := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	spec := root["properties"].(map[string]any)["spec"].(map[string]any)
	compile := func(rule string) (*structural.Schema, *Validator, []string) {
		t.Helper()
		spec["x-kubernetes-validations"] = []any{map[string]any{"rule": rule}}
		b, _ := json.Marshal(root)
		s, errs := structural.New(b, "spec.validation.openAPIV3Schema")
		if len(errs) != 0 {
			t.Fatalf("%s: schema errors: %v", rule, errs)
		}
		v, errs := Compile(s, "spec.validation.openAPIV3Schema")
		var out []string
		for _, e := range errs {
			out = append(out, e.Error())
		}
		return s, v, out
	}
	lines := strings.Split(strings.TrimSpace(string(ref)), "\n")
	checked := 0
	for i := 0; i+1 < len(lines); i++ {
		rule, ok := strings.CutPrefix(lines[i], "rule: ")
		if !ok {
			continue
		}
		checked++
		if _, _, got := compile(rule); len(got) != 1 || got[0] != lines[i+1] {
			t.Errorf("%s: errors %q, want %q", rule, got, lines[i+1])
		}
	}
	if checked != 3 {
		t.Fatalf("%d rules in regex-constants.txt", checked)
	}

	_, v, errs := compile("self.s.find(self.p) == ''")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for i := 0; i+1 < len(lines); i++ {
		p, ok := strings.CutPrefix(lines[i], "p: ")
		if !ok {
			continue
		}
		obj := map[string]any{"spec": map[string]any{"s": "abc", "p": p}}
		got := v.Validate(obj, nil)
		if len(got) != 1 || got[0].Error() != lines[i+1] {
			t.Errorf("p %q: %v, want %s", p, got, lines[i+1])
		}
	}

	// constant regexes still match as before
	_, v, errs = compile("self.s.find('[a-z]+') == 'abc' && self.s.findAll('[a-z]') == ['a', 'b', 'c'] && self.s.findAll('[a-z]', 2) == ['a', 'b']")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if got := v.Validate(map[string]any{"spec": map[string]any{"s": "abc1"}}, nil); len(got) != 0 {
		t.Errorf("valid object: %v", got)
	}
	if got := v.Validate(map[string]any{"spec": map[string]any{"s": "ab1"}}, nil); len(got) != 1 {
		t.Errorf("invalid object: %v, want one failed rule", got)
	}
}
