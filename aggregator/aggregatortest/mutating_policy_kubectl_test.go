package aggregatortest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// TestMutatingAdmissionPolicyKubectl applies a MutatingAdmissionPolicy
// and its binding with kubectl 1.33 (and 1.27 when on PATH), creates a
// ConfigMap it matches and reads the policies back, comparing with what
// kubectl printed against kube-apiserver 1.33.13
// (testdata/admission/mutating-policies/kubectl, commands in its README):
// apply's lines, the label the policy added, the tables (AGE blanked) and
// the fields kubectl explain lists (and, recursively, their types, enums
// and required markers).
func TestMutatingAdmissionPolicyKubectl(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl not on PATH")
	}
	kubectls := []string{"kubectl"}
	if _, err := exec.LookPath("kubectl.1.27"); err == nil {
		kubectls = append(kubectls, "kubectl.1.27")
	}
	dir := filepath.Join("..", "..", "testdata", "admission", "mutating-policies", "kubectl")
	want := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	age := regexp.MustCompile(`\s+\d+s\n`)
	for _, kubectl := range kubectls {
		srv := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) {
			o.FeatureGates = map[string]bool{aggregator.FeatureMutatingAdmissionPolicy: true}
			o.RuntimeConfig = map[string]bool{aggregator.GroupVersionAdmissionRegistrationV1Alpha1: true}
		}))
		run := func(args ...string) string {
			t.Helper()
			cmd := exec.Command(kubectl, append([]string{"--kubeconfig", srv.KubeconfigPath()}, args...)...)
			cmd.Env = append(os.Environ(), "KUBECACHEDIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", kubectl, strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		if got := run("apply", "-f", filepath.Join(dir, "policy.yaml")); got != want("apply.txt") {
			t.Errorf("%s apply:\n got %q\nwant %q", kubectl, got, want("apply.txt"))
		}
		if got := run("create", "-f", filepath.Join(dir, "configmap.yaml"), "-o", "jsonpath={.metadata.labels}"); got != want("create-labels.txt") {
			t.Errorf("%s create: labels %q, want %q", kubectl, got, want("create-labels.txt"))
		}
		for _, c := range [][2]string{{"mutatingadmissionpolicies", "get-policy.txt"}, {"mutatingadmissionpolicybindings", "get-binding.txt"}} {
			got := age.ReplaceAllString(run("get", c[0], "e2e-team-label"), " AGE\n")
			if w := age.ReplaceAllString(want(c[1]), " AGE\n"); got != w {
				t.Errorf("%s get %s:\n got %q\nwant %q", kubectl, c[0], got, w)
			}
		}
		if kubectl != "kubectl" {
			continue // explain's layout changed after 1.27; the capture is 1.33's
		}
		var fields []string
		inFields := false
		for _, l := range strings.Split(run("explain", "mutatingadmissionpolicybinding.spec"), "\n") {
			inFields = inFields || strings.HasPrefix(l, "FIELDS")
			if inFields && regexp.MustCompile(`^  [a-zA-Z]`).MatchString(l) {
				fields = append(fields, l)
			}
		}
		if got := strings.Join(fields, "\n") + "\n"; got != want("explain-binding-fields.txt") {
			t.Errorf("explain fields:\n got %q\nwant %q", got, want("explain-binding-fields.txt"))
		}
		rec := run("explain", "mutatingadmissionpolicy.spec", "--recursive")
		if i := strings.Index(rec, "FIELDS:"); i < 0 || rec[i:] != want("explain-policy-spec-recursive.txt") {
			t.Errorf("explain --recursive:\n got %s\nwant %s", rec, want("explain-policy-spec-recursive.txt"))
		}
	}
}
