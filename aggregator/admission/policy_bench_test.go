package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// policySource is a fakeSource with policies, bindings, Namespace
// objects and an authorizer that allows what allow says.
type policySource struct {
	fakeSource
	policies []*admissionregistration.ValidatingAdmissionPolicy
	bindings []*admissionregistration.ValidatingAdmissionPolicyBinding
	nsObjs   map[string]map[string]any
	allow    func(c celrules.AuthzCheck) bool
	checks   int
}

func (s *policySource) ValidatingAdmissionPolicies(context.Context) ([]*admissionregistration.ValidatingAdmissionPolicy, error) {
	return append([]*admissionregistration.ValidatingAdmissionPolicy(nil), s.policies...), nil
}

func (s *policySource) ValidatingAdmissionPolicyBindings(context.Context) ([]*admissionregistration.ValidatingAdmissionPolicyBinding, error) {
	return append([]*admissionregistration.ValidatingAdmissionPolicyBinding(nil), s.bindings...), nil
}

func (s *policySource) Params(context.Context, string, string, string, string, *meta.LabelSelector) ([]meta.Object, bool, bool, error) {
	return nil, false, false, nil
}

func (s *policySource) NamespaceObject(_ context.Context, name string) (map[string]any, bool, error) {
	o, ok := s.nsObjs[name]
	return o, ok, nil
}

func (s *policySource) AuthorizeCEL(_ context.Context, c celrules.AuthzCheck) (bool, string, error) {
	s.checks++
	if s.allow != nil && s.allow(c) {
		return true, "allowed by test", nil
	}
	return false, "", nil
}

// benchPolicySource holds one policy on configmaps CREATE (a match
// condition, a variable and three validations: the namespace's env label
// through namespaceObject, an authorizer check of the request's own
// resource, and the object's data) bound with Deny.
func benchPolicySource() *policySource {
	p := &admissionregistration.ValidatingAdmissionPolicy{ObjectMeta: meta.ObjectMeta{Name: "prod-rules"},
		Spec: admissionregistration.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr("Fail"),
			MatchConstraints: &admissionregistration.MatchResources{ResourceRules: []admissionregistration.NamedRuleWithOperations{{
				RuleWithOperations: rule([]string{"CREATE"}, "configmaps")}}},
			MatchConditions: []admissionregistration.MatchCondition{{Name: "not-system", Expression: "!object.metadata.name.startsWith('system-')"}},
			Variables:       []admissionregistration.Variable{{Name: "keys", Expression: "has(object.data) ? size(object.data) : 0"}},
			Validations: []admissionregistration.Validation{
				{Expression: "namespaceObject == null || !has(namespaceObject.metadata.labels) || !('env' in namespaceObject.metadata.labels) || namespaceObject.metadata.labels['env'] != 'prod' || variables.keys > 0",
					Message: "configmaps in prod namespaces need data"},
				{Expression: "authorizer.requestResource.check('create').allowed()", MessageExpression: "'not allowed: ' + object.metadata.name"},
				{Expression: "!has(object.data) || object.data.all(k, k.size() < 64)", Message: "key too long"},
			},
		}}
	b := &admissionregistration.ValidatingAdmissionPolicyBinding{ObjectMeta: meta.ObjectMeta{Name: "prod-rules"},
		Spec: admissionregistration.ValidatingAdmissionPolicyBindingSpec{PolicyName: "prod-rules", ValidationActions: []string{"Deny"}}}
	return &policySource{
		policies: []*admissionregistration.ValidatingAdmissionPolicy{p},
		bindings: []*admissionregistration.ValidatingAdmissionPolicyBinding{b},
		nsObjs: map[string]map[string]any{"prod": {"metadata": map[string]any{"name": "prod", "labels": map[string]any{"env": "prod"}},
			"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}},
		allow: func(c celrules.AuthzCheck) bool { return c.Resource == "configmaps" && c.Verb == "create" },
	}
}

// TestPolicyNamespaceObjectAndAuthorizer: the benchmark's policy admits a
// configmap with data in the env=prod namespace, refuses one without
// data there (namespaceObject) and one the authorizer refuses, with
// upstream's texts.
func TestPolicyNamespaceObjectAndAuthorizer(t *testing.T) {
	src := benchPolicySource()
	d := New(Options{Source: src})
	ok := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "prod"}, Data: map[string]string{"k": "v"}}
	if err := d.Validate(context.Background(), createAttrs(ok)); err != nil {
		t.Fatalf("admitted object refused: %v", err)
	}
	if src.checks != 1 {
		t.Fatalf("authorizer called %d times, want 1", src.checks)
	}
	empty := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "y", Namespace: "prod"}}
	err := d.Validate(context.Background(), createAttrs(empty))
	const want = `configmaps "y" is forbidden: ValidatingAdmissionPolicy 'prod-rules' with binding 'prod-rules' denied request: configmaps in prod namespaces need data`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if err := d.Validate(context.Background(), createAttrs(&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "z", Namespace: "dev"}})); err != nil {
		t.Fatalf("no namespace object: %v", err)
	}
	src.allow = nil
	err = d.Validate(context.Background(), createAttrs(ok))
	if err == nil || !strings.HasSuffix(err.Error(), "denied request: not allowed: x") {
		t.Fatalf("got %v, want the authorizer's refusal", err)
	}
}

// BenchmarkPolicyEvaluation times Dispatcher.Validate for one configmap
// CREATE that the benchmark's policy admits: listing the policy and
// binding, matching, the match condition, the variable, namespaceObject,
// three validations and one authorizer check (the CEL programs are
// compiled once and cached).
func BenchmarkPolicyEvaluation(b *testing.B) {
	d := New(Options{Source: benchPolicySource()})
	obj := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "prod"}, Data: map[string]string{"k": "v", "l": "w"}}
	a := createAttrs(obj)
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Validate(context.Background(), a); err != nil {
			b.Fatal(err)
		}
	}
}
