package aggregator

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// checkCreatedCRD compares the established CRD name with
// kube-apiserver 1.33.13's answer to `kubectl get crd NAME -o yaml` after
// `kubectl apply --server-side` (testdata/crd/created/NAME.crd.yaml,
// spec.versions[*].schema cut), when that file exists: spec defaults
// (conversion None), acceptedNames, the conditions with their reasons and
// messages (KubernetesAPIApprovalPolicyConformant True ApprovedAnnotation
// with the PR URL of Gateway API's api-approved annotation) and
// storedVersions. Times, uids and resourceVersions are left out, and the
// conditions are compared sorted by type: upstream's order is a race
// between its API-approval and naming controllers (the reference put
// NamesAccepted first for Gateway but KubernetesAPIApprovalPolicyConformant
// first for HTTPRoute and Foo; aggsim always puts the latter first).
// TestCustomResourceObjectsAsUpstream calls it for its fixture CRDs (the
// Certificate, Gateway and HTTPRoute have captures).
func checkCreatedCRD(t *testing.T, s *Server, name string) {
	t.Helper()
	f := "testdata/crd/created/" + name + ".crd.yaml"
	if _, err := os.Stat(f); err != nil {
		return
	}
	t.Run(name+"/created", func(t *testing.T) {
		var got map[string]any
		if err := json.Unmarshal(waitCRD(t, s, name, apiextensions.IsEstablished), &got); err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := yaml.Unmarshal(readCaptured(t, f), &want); err != nil {
			t.Fatal(err)
		}
		for _, v := range got["spec"].(map[string]any)["versions"].([]any) {
			delete(v.(map[string]any), "schema")
		}
		if g, w := comparableCRD(got), comparableCRD(want); g != w {
			t.Errorf("got\n%s\nwant\n%s", g, w)
		}
	})
}

// comparableCRD is a CRD as JSON without its volatile metadata
// (creationTimestamp, resourceVersion, uid, managedFields: kubectl get
// -o yaml hides them) and condition times, conditions sorted by type.
func comparableCRD(crd map[string]any) string {
	md := crd["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "resourceVersion", "uid", "managedFields"} {
		delete(md, k)
	}
	st := crd["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		delete(c.(map[string]any), "lastTransitionTime")
	}
	sort.SliceStable(conds, func(i, j int) bool {
		return conds[i].(map[string]any)["type"].(string) < conds[j].(map[string]any)["type"].(string)
	})
	b, _ := json.MarshalIndent(crd, "", "  ")
	return strings.TrimSpace(string(b))
}
