package aggregator

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCRDCreatedFromProjectsAsUpstream creates the Certificate, Gateway
// and HTTPRoute CRDs (testdata/crd/SOURCES.md) and compares each
// established CRD with kube-apiserver 1.33.13's answer to
// `kubectl get crd NAME -o yaml` after `kubectl apply --server-side`
// (testdata/crd/created, spec.versions[*].schema cut): spec defaults
// (conversion None), acceptedNames, the conditions with their reasons and
// messages (KubernetesAPIApprovalPolicyConformant True ApprovedAnnotation
// with the PR URL of Gateway API's api-approved annotation) and
// storedVersions. Times, uids and resourceVersions are left out, and the
// conditions are compared sorted by type: upstream's order is a race
// between its API-approval and naming controllers (the reference put
// NamesAccepted first for Gateway but KubernetesAPIApprovalPolicyConformant
// first for HTTPRoute and Foo; aggsim always puts the latter first).
func TestCRDCreatedFromProjectsAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	for name, file := range map[string]string{
		"certificates.cert-manager.io":         "cert-manager.io_certificates.yaml",
		"gateways.gateway.networking.k8s.io":   "gateway.networking.k8s.io_gateways.yaml",
		"httproutes.gateway.networking.k8s.io": "gateway.networking.k8s.io_httproutes.yaml",
	} {
		t.Run(name, func(t *testing.T) {
			if code, out := postCRD(t, s, file); code != 201 {
				t.Fatalf("create: %d %s", code, out)
			}
			var got map[string]any
			if err := json.Unmarshal(waitCRD(t, s, name, apiextensions.IsEstablished), &got); err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := yaml.Unmarshal(readCaptured(t, "testdata/crd/created/"+name+".crd.yaml"), &want); err != nil {
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
