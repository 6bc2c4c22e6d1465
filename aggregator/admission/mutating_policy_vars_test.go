package admission

import (
	"context"
	"testing"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// mutatingPolicySource is a policySource with MutatingAdmissionPolicies.
type mutatingPolicySource struct {
	*policySource
	mpolicies []*admissionregistration.MutatingAdmissionPolicy
	mbindings []*admissionregistration.MutatingAdmissionPolicyBinding
}

func (s *mutatingPolicySource) MutatingAdmissionPolicies(context.Context) ([]*admissionregistration.MutatingAdmissionPolicy, error) {
	return s.mpolicies, nil
}

func (s *mutatingPolicySource) MutatingAdmissionPolicyBindings(context.Context) ([]*admissionregistration.MutatingAdmissionPolicyBinding, error) {
	return s.mbindings, nil
}

func (s *mutatingPolicySource) ApplyStore(string, string) *registry.Store { return nil }

// TestMutatingPolicyNamespaceObjectAndAuthorizer: a MutatingAdmissionPolicy
// reads namespaceObject and the authorizer as a ValidatingAdmissionPolicy
// does (both are declared in its environment): the namespace's env label
// is copied onto the configmap, and a second label says whether the
// authorizer allows the request's user to delete secrets there. Before,
// namespaceObject was null and the authorizer unbound in mutations.
// kube-apiserver 1.33.13 (--feature-gates=MutatingAdmissionPolicy=true
// --runtime-config=admissionregistration.k8s.io/v1alpha1=true, RBAC) binds
// both: a JSONPatch policy writing namespaceObject.metadata.name, .labels,
// .status.phase, authorizer.requestResource.check('delete').allowed() and
// an authorizer.serviceAccount(...) check's allowed() and reason() into
// annotations gave, on `kubectl create configmap` in an env=prod and an
// unlabelled namespace, {"env":"prod","me":"true","ns-name":"prod",
// "ns-phase":"Active","sa":"false","sa-reason":""} and the same with
// "unlabelled"/"dev"; aggsim serve --authorization-mode=RBAC answers the
// same bytes.
func TestMutatingPolicyNamespaceObjectAndAuthorizer(t *testing.T) {
	base := benchPolicySource()
	base.policies, base.bindings = nil, nil
	base.allow = func(c celrules.AuthzCheck) bool {
		return c.Resource == "secrets" && c.Verb == "delete" && c.Namespace == "prod"
	}
	p := &admissionregistration.MutatingAdmissionPolicy{ObjectMeta: meta.ObjectMeta{Name: "env-label"},
		Spec: admissionregistration.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr("Fail"), ReinvocationPolicy: "Never",
			MatchConstraints: &admissionregistration.MatchResources{ResourceRules: []admissionregistration.NamedRuleWithOperations{{
				RuleWithOperations: rule([]string{"CREATE"}, "configmaps")}}},
			Mutations: []admissionregistration.Mutation{{PatchType: "JSONPatch", JSONPatch: &admissionregistration.JSONPatch{
				Expression: `[JSONPatch{op: "add", path: "/metadata/labels", value: {
					"env": namespaceObject == null ? "none" : namespaceObject.metadata.labels["env"],
					"may-delete-secrets": string(authorizer.group("").resource("secrets").namespace(object.metadata.namespace).check("delete").allowed())}}]`}}},
		}}
	b := &admissionregistration.MutatingAdmissionPolicyBinding{ObjectMeta: meta.ObjectMeta{Name: "env-label"},
		Spec: admissionregistration.MutatingAdmissionPolicyBindingSpec{PolicyName: "env-label"}}
	src := &mutatingPolicySource{policySource: base, mpolicies: []*admissionregistration.MutatingAdmissionPolicy{p},
		mbindings: []*admissionregistration.MutatingAdmissionPolicyBinding{b}}
	d := New(Options{Source: src, MutatingAdmissionPolicy: true})
	for _, tc := range []struct{ ns, env, may string }{{"prod", "prod", "true"}, {"dev", "none", "false"}} {
		a := createAttrs(&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: tc.ns}})
		if err := d.Mutate(context.Background(), a); err != nil {
			t.Fatalf("%s: %v", tc.ns, err)
		}
		got := a.Object.(*core.ConfigMap).Labels
		if got["env"] != tc.env || got["may-delete-secrets"] != tc.may || len(got) != 2 {
			t.Errorf("%s: labels %v, want env=%s may-delete-secrets=%s", tc.ns, got, tc.env, tc.may)
		}
	}
	if src.checks != 2 {
		t.Errorf("authorizer called %d times, want 2", src.checks)
	}
}
