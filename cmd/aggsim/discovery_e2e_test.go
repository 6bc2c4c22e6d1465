package main

// Discovery as kubectl sees it (issue 3): `kubectl api-versions` and
// `kubectl api-resources` against `aggsim serve --demo`, with the installed
// kubectl, kubectl.1.27 and kubectl.1.33. kubectl 1.27 reads legacy
// discovery (/apis, /apis/<g>/<v>), 1.30+ aggregated discovery: both must
// list exactly aggsim's own groups, the demo backend's and the demo CRD's, preferred
// versions first, with short names and scopes, and short names must
// resolve.

import (
	"os"
	"path/filepath"
	"testing"
)

const wantAPIVersions = `admissionregistration.k8s.io/v1
apiextensions.k8s.io/v1
apiregistration.k8s.io/v1
authentication.k8s.io/v1
authorization.k8s.io/v1
coordination.k8s.io/v1
flowcontrol.apiserver.k8s.io/v1
rbac.authorization.k8s.io/v1
restaurant.example.com/v1
restaurant.example.com/v1alpha1
restaurant.example.com/v1beta1
v1
wardle.example.com/v1alpha1
wardle.example.com/v1beta1
`

const wantAPIResources = `NAME                                SHORTNAMES   APIVERSION                        NAMESPACED   KIND
configmaps                          cm           v1                                true         ConfigMap
endpoints                           ep           v1                                true         Endpoints
events                              ev           v1                                true         Event
limitranges                         limits       v1                                true         LimitRange
namespaces                          ns           v1                                false        Namespace
resourcequotas                      quota        v1                                true         ResourceQuota
serviceaccounts                     sa           v1                                true         ServiceAccount
services                            svc          v1                                true         Service
mutatingwebhookconfigurations                    admissionregistration.k8s.io/v1   false        MutatingWebhookConfiguration
validatingadmissionpolicies                      admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicy
validatingadmissionpolicybindings                admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations                  admissionregistration.k8s.io/v1   false        ValidatingWebhookConfiguration
customresourcedefinitions           crd,crds     apiextensions.k8s.io/v1           false        CustomResourceDefinition
apiservices                                      apiregistration.k8s.io/v1         false        APIService
selfsubjectreviews                               authentication.k8s.io/v1          false        SelfSubjectReview
tokenreviews                                     authentication.k8s.io/v1          false        TokenReview
localsubjectaccessreviews                        authorization.k8s.io/v1           true         LocalSubjectAccessReview
selfsubjectaccessreviews                         authorization.k8s.io/v1           false        SelfSubjectAccessReview
selfsubjectrulesreviews                          authorization.k8s.io/v1           false        SelfSubjectRulesReview
subjectaccessreviews                             authorization.k8s.io/v1           false        SubjectAccessReview
leases                                           coordination.k8s.io/v1            true         Lease
flowschemas                                      flowcontrol.apiserver.k8s.io/v1   false        FlowSchema
prioritylevelconfigurations                      flowcontrol.apiserver.k8s.io/v1   false        PriorityLevelConfiguration
clusterrolebindings                              rbac.authorization.k8s.io/v1      false        ClusterRoleBinding
clusterroles                                     rbac.authorization.k8s.io/v1      false        ClusterRole
rolebindings                                     rbac.authorization.k8s.io/v1      true         RoleBinding
roles                                            rbac.authorization.k8s.io/v1      true         Role
pizzas                              pz           restaurant.example.com/v1beta1    true         Pizza
toppings                            tp           restaurant.example.com/v1         true         Topping
fischers                                         wardle.example.com/v1alpha1       false        Fischer
flunders                            fl           wardle.example.com/v1alpha1       true         Flunder
`

func TestDiscoveryKubectlE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e")
	}
	srv := startServe(t, t.TempDir(), "--demo")
	bins := kubectlBinaries(t)
	if real, ok := bins["kubectl"]; ok {
		if p := filepath.Join(filepath.Dir(real), "kubectl.1.33"); fileExists(p) {
			bins["kubectl.1.33"] = p
		}
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			// A fresh HOME per kubectl: no discovery cache shared between versions.
			home := t.TempDir()
			kc := filepath.Join(home, "kubeconfig")
			b, err := os.ReadFile(srv.Kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(kc, b, 0o600); err != nil {
				t.Fatal(err)
			}
			k := kubectlRunner{t: t, bin: bin, kubeconfig: kc}
			if got := k.ok("api-versions"); got != wantAPIVersions {
				t.Errorf("api-versions:\n%s\nwant:\n%s", got, wantAPIVersions)
			}
			if got := k.ok("api-resources"); got != wantAPIResources {
				t.Errorf("api-resources:\n%s\nwant:\n%s", got, wantAPIResources)
			}
			// Short names and plural/kind names resolve through discovery.
			if got := k.ok("get", "fl", "-A", "-o", "name"); got != "" {
				t.Errorf("get fl: %q, want no flunders", got)
			}
			if got := k.ok("get", "fischers.wardle.example.com", "-o", "name"); got != "" {
				t.Errorf("get fischers: %q", got)
			}
			if _, se, code := k.run("", "get", "flunders.v1beta1.wardle.example.com", "-n", "default"); code != 0 || se != "No resources found in default namespace.\n" {
				t.Errorf("get flunders.v1beta1: exit %d stderr %q", code, se)
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
