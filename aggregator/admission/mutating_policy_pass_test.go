package admission

import (
	"context"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// nsCountingSource counts the Namespace reads of a mutatingPolicySource.
type nsCountingSource struct {
	*mutatingPolicySource
	nsReads int
}

func (s *nsCountingSource) NamespaceObject(ctx context.Context, name string) (map[string]any, bool, error) {
	s.nsReads++
	return s.mutatingPolicySource.NamespaceObject(ctx, name)
}

// labelPolicy is a MutatingAdmissionPolicy on configmaps CREATE adding
// label key with the namespace's env label, bound by a binding of its name.
func labelPolicy(name, key string) (*admissionregistration.MutatingAdmissionPolicy, *admissionregistration.MutatingAdmissionPolicyBinding) {
	p := &admissionregistration.MutatingAdmissionPolicy{ObjectMeta: meta.ObjectMeta{Name: name},
		Spec: admissionregistration.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr("Fail"), ReinvocationPolicy: "Never",
			MatchConstraints: &admissionregistration.MatchResources{ResourceRules: []admissionregistration.NamedRuleWithOperations{{
				RuleWithOperations: rule([]string{"CREATE"}, "configmaps")}}},
			Variables: []admissionregistration.Variable{{Name: "bad", Expression: "object.data.missing"},
				{Name: "env", Expression: `namespaceObject.metadata.labels["env"]`}},
			Mutations: []admissionregistration.Mutation{{PatchType: "JSONPatch", JSONPatch: &admissionregistration.JSONPatch{
				Expression: `[JSONPatch{op: "add", path: "/metadata/labels/` + key + `", value: variables.env}]`}}},
		}}
	b := &admissionregistration.MutatingAdmissionPolicyBinding{ObjectMeta: meta.ObjectMeta{Name: name},
		Spec: admissionregistration.MutatingAdmissionPolicyBindingSpec{PolicyName: name}}
	return p, b
}

// TestMutatingPoliciesReadNamespaceOnce: two bound policies reading
// namespaceObject read the Namespace once per Mutate (before, once per
// bound policy: 2), and the second sees the first's label; a variable
// that fails to evaluate does not keep a later one from being read, and
// reading it fails with upstream's `composited variable` error.
func TestMutatingPoliciesReadNamespaceOnce(t *testing.T) {
	base := benchPolicySource()
	base.policies, base.bindings = nil, nil
	p1, b1 := labelPolicy("a", "first")
	p2, b2 := labelPolicy("b", "second")
	p2.Spec.Mutations[0].JSONPatch.Expression = `[JSONPatch{op: "add", path: "/metadata/labels/second", value: object.metadata.labels["first"] + "-" + variables.env}]`
	src := &nsCountingSource{mutatingPolicySource: &mutatingPolicySource{policySource: base,
		mpolicies: []*admissionregistration.MutatingAdmissionPolicy{p2, p1},
		mbindings: []*admissionregistration.MutatingAdmissionPolicyBinding{b2, b1}}}
	d := New(Options{Source: src, MutatingAdmissionPolicy: true})
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "prod", Labels: map[string]string{"keep": "1"}}}
	a := createAttrs(cm)
	if err := d.Mutate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	got := a.Object.(*core.ConfigMap).Labels
	if got["first"] != "prod" || got["second"] != "prod-prod" || len(got) != 3 {
		t.Errorf("labels %v, want first=prod second=prod-prod", got)
	}
	if src.nsReads != 1 {
		t.Errorf("Namespace read %d times, want 1", src.nsReads)
	}

	p1.Spec.Mutations[0].JSONPatch.Expression = `[JSONPatch{op: "add", path: "/metadata/labels/first", value: "x" + variables.bad}]`
	src.mpolicies = []*admissionregistration.MutatingAdmissionPolicy{p1}
	src.mbindings = []*admissionregistration.MutatingAdmissionPolicyBinding{b1}
	a = createAttrs(cm)
	err := d.Mutate(context.Background(), a)
	want := `policy 'a' with binding 'a' denied request: expression '[JSONPatch{op: "add", path: "/metadata/labels/first", value: "x" + variables.bad}]' resulted in error: composited variable "bad" fails to evaluate: no such key: data`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}
