package admissionregistration

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestPolicyCompileMatchesReference compiles each expression of
// testdata/policy-compile.txt (kube-apiserver 1.33.13's answers, see
// probe-policies.sh there) as the one validation of a policy and compares
// the first error with kubectl's text of the reference's answer: the typed
// request and namespaceObject (`undefined field 'uid'`, `found no matching
// overload for '_==_' applied to '(timestamp, int)'`), the authorizer
// library's types, the Kubernetes libraries a new policy may use
// (quantity, ip, cidr, format, url, lists, regex, sets, two-variable
// comprehensions; not semver), and no estimated cost limit.
func TestPolicyCompileMatchesReference(t *testing.T) {
	f, err := os.Open("testdata/policy-compile.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type entry struct {
		expr string
		want []string
	}
	var entries []*entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "  "); ok && len(entries) > 0 {
			e := entries[len(entries)-1]
			e.want = append(e.want, rest)
			continue
		}
		expr, ok := strings.CutSuffix(line, ":")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		entries = append(entries, &entry{expr: expr})
	}
	if len(entries) < 60 {
		t.Fatalf("only %d expressions read", len(entries))
	}
	for _, e := range entries {
		spec := &ValidatingAdmissionPolicySpec{
			MatchConstraints: &MatchResources{ResourceRules: []NamedRuleWithOperations{{RuleWithOperations: RuleWithOperations{
				Operations: []string{"CREATE"}, Rule: Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
			Validations: []Validation{{Expression: e.expr}},
		}
		DefaultValidatingAdmissionPolicySpec(spec)
		errs := ValidateValidatingAdmissionPolicySpec("probe", spec)
		got := "validatingadmissionpolicy.admissionregistration.k8s.io/probe created (server dry run)"
		if len(errs) > 0 {
			got = `The ValidatingAdmissionPolicy "probe" is invalid: ` + errs[0].Error()
		}
		if want := strings.Join(e.want, "\n"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", e.expr, got, want)
		}
	}
}
