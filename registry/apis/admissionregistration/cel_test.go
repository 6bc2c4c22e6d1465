package admissionregistration

import (
	"bufio"
	"encoding/json"
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
	entries := readProbes(t, "testdata/policy-compile.txt")
	if len(entries) < 70 {
		t.Fatalf("only %d expressions read", len(entries))
	}
	for _, e := range entries {
		checkProbe(t, e.header, nil, []Validation{{Expression: e.header}}, e.want)
	}
}

// TestPolicyVariablesMatchReference: variables are typed by their
// expressions in order (testdata/policy-variables.txt, from
// probe-variables.sh against 1.33.13): `undefined field 'zz'`, a forward
// reference, `(kubernetes.variables, int)`, a later variable of the same
// name winning, an authorizer decision kept as dyn, and messageExpression
// types.
func TestPolicyVariablesMatchReference(t *testing.T) {
	entries := readProbes(t, "testdata/policy-variables.txt")
	if len(entries) < 18 {
		t.Fatalf("only %d entries read", len(entries))
	}
	for _, e := range entries {
		vj, cj, ok := strings.Cut(e.header, "\t")
		if !ok {
			t.Fatalf("bad header %q", e.header)
		}
		var vars []Variable
		var vals []Validation
		if err := json.Unmarshal([]byte(vj), &vars); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(cj), &vals); err != nil {
			t.Fatal(err)
		}
		checkProbe(t, e.header, vars, vals, e.want)
	}
}

type probeEntry struct {
	header string
	want   []string
}

// readProbes reads a probe transcript: a header line ending in a colon,
// then kubectl's answer indented by two spaces.
func readProbes(t *testing.T, file string) []*probeEntry {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type entry = probeEntry
	var entries []*entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "  "); ok && len(entries) > 0 {
			e := entries[len(entries)-1]
			e.want = append(e.want, rest)
			continue
		}
		header, ok := strings.CutSuffix(line, ":")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		entries = append(entries, &entry{header: header})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return entries
}

// checkProbe validates a policy on configmaps CREATE with vars and vals
// and compares kubectl's text of its first error (or of its creation)
// with want.
func checkProbe(t *testing.T, name string, vars []Variable, vals []Validation, want []string) {
	t.Helper()
	spec := &ValidatingAdmissionPolicySpec{
		MatchConstraints: &MatchResources{ResourceRules: []NamedRuleWithOperations{{RuleWithOperations: RuleWithOperations{
			Operations: []string{"CREATE"}, Rule: Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
		Variables:   vars,
		Validations: vals,
	}
	DefaultValidatingAdmissionPolicySpec(spec)
	errs := ValidateValidatingAdmissionPolicySpec("probe", spec)
	got := "validatingadmissionpolicy.admissionregistration.k8s.io/probe created (server dry run)"
	if len(errs) > 0 {
		got = `The ValidatingAdmissionPolicy "probe" is invalid: ` + errs[0].Error()
	}
	if w := strings.Join(want, "\n"); got != w {
		t.Errorf("%s:\n got %s\nwant %s", name, got, w)
	}
}
