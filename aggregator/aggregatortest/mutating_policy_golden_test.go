package aggregatortest

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
)

// mutatingPolicyGoldenDir holds steps.txt and the reference's answers,
// captured by its capture.sh from kube-apiserver 1.33.13 started with
// --feature-gates=MutatingAdmissionPolicy=true
// --runtime-config=admissionregistration.k8s.io/v1alpha1=true.
const mutatingPolicyGoldenDir = "../../testdata/admission/mutating-policies"

// withMutatingAdmissionPolicy turns on the gate and its API, as the
// reference was started.
func withMutatingAdmissionPolicy() Option {
	return WithAggregatorOptions(func(o *aggregator.Options) {
		o.FeatureGates = map[string]bool{aggregator.FeatureMutatingAdmissionPolicy: true}
		o.RuntimeConfig = map[string]bool{aggregator.GroupVersionAdmissionRegistrationV1Alpha1: true}
	})
}

// TestMutatingAdmissionPoliciesMatchReference replays steps.txt:
// defaults and validation texts of MutatingAdmissionPolicies and their
// bindings, an ApplyConfiguration adding a label to ConfigMaps, a
// JSONPatch with a variable on a custom resource (and the patch failing
// on update), an expression failing under failurePolicy Fail and Ignore,
// a variable failing, a binding whose params are missing,
// jsonpatch.escapeKey with the mutated object then failing validation,
// and an ApplyConfiguration merging labels, finalizers and data; status,
// Warning headers and bodies are compared with the reference's.
func TestMutatingAdmissionPoliciesMatchReference(t *testing.T) {
	s := Start(t, withMutatingAdmissionPolicy())
	steps := 0
	for _, st := range readGoldenSteps(t, filepath.Join(mutatingPolicyGoldenDir, "steps.txt")) {
		name, method, path, ct, body := st.name, st.method, st.path, st.ct, st.body
		steps++
		gotCode, got := doGoldenStep(t, s.Client(), name, method, s.URL+path, ct, body)
		if name == "crd" {
			waitServed(t, s, "/apis/example.com/v1")
		}
		wantCode, err := os.ReadFile(filepath.Join(mutatingPolicyGoldenDir, "ref", name+".code"))
		if err != nil {
			t.Fatal(err)
		}
		if gotCode != string(wantCode) {
			t.Errorf("%s: status and warnings\n got %q\nwant %q", name, gotCode, wantCode)
		}
		wantBody, err := os.ReadFile(filepath.Join(mutatingPolicyGoldenDir, "ref", name+".body"))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := normalizeGolden(got), normalizeGolden(string(wantBody)); g != w && name != "crd" {
			t.Errorf("%s: body\n got %s\nwant %s", name, g, w)
		}
	}
	if steps < 35 {
		t.Fatalf("only %d steps read", steps)
	}
}

// waitServed polls path until it answers 200 (a CRD's group/version
// being served), for at most 10 s.
func waitServed(t *testing.T, s *Server, path string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		resp, err := s.Client().Get(s.URL + path)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s not served after 10 s", path)
}
