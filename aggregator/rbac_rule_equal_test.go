package aggregator

import (
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// TestPolicyRuleEqualIsDeepEqual checks policyRuleEqual answers as
// reflect.DeepEqual (which reconcileRBAC used) for every pair of a set of
// rules differing in one list each, nil against empty included, and for
// every pair of the bootstrap policy's rules.
func TestPolicyRuleEqualIsDeepEqual(t *testing.T) {
	rules := []rbac.PolicyRule{
		{},
		{Verbs: []string{}},
		{Verbs: []string{"get"}},
		{Verbs: []string{"get", "list"}},
		{Verbs: []string{"list", "get"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}},
		{Verbs: []string{"get"}, APIGroups: []string{}},
		{Verbs: []string{"get"}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, Resources: []string{"pods"}, ResourceNames: []string{"a"}},
		{Verbs: []string{"get"}, Resources: []string{"pods"}, ResourceNames: []string{}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/livez"}},
	}
	for _, cr := range rbac.BootstrapPolicy().ClusterRoles {
		rules = append(rules, cr.Rules...)
	}
	n := 0
	for i, a := range rules {
		for j, b := range rules {
			want := reflect.DeepEqual(a, b)
			if got := policyRuleEqual(a, b); got != want {
				t.Fatalf("policyRuleEqual(rules[%d] %+v, rules[%d] %+v) = %v, reflect.DeepEqual says %v", i, a, j, b, got, want)
			}
			if want {
				n++
			}
		}
	}
	if n < len(rules) {
		t.Fatalf("only %d equal pairs among %d rules: every rule equals itself", n, len(rules))
	}
}

// TestContainsRule checks containsRule finds a rule at its index, at
// another index, and not at all.
func TestContainsRule(t *testing.T) {
	get := rbac.PolicyRule{Verbs: []string{"get"}, Resources: []string{"pods"}}
	list := rbac.PolicyRule{Verbs: []string{"list"}, Resources: []string{"pods"}}
	watch := rbac.PolicyRule{Verbs: []string{"watch"}, Resources: []string{"pods"}}
	rules := []rbac.PolicyRule{get, list}
	for _, c := range []struct {
		i    int
		r    rbac.PolicyRule
		want bool
	}{{0, get, true}, {1, get, true}, {5, list, true}, {0, watch, false}, {2, watch, false}} {
		if got := containsRule(rules, c.i, c.r); got != c.want {
			t.Errorf("containsRule(rules, %d, %v) = %v, want %v", c.i, c.r.Verbs, got, c.want)
		}
	}
}

// TestReviseRBACLeavesLiveListsAlone checks reviseRBAC copies a live
// object's lists before adding to them, also when their arrays have room
// to grow in place (reconcileRBAC copies on the first change only).
func TestReviseRBACLeavesLiveListsAlone(t *testing.T) {
	a := rbac.Subject{Kind: "Group", Name: "a"}
	b := rbac.Subject{Kind: "Group", Name: "b"}
	subjects := make([]rbac.Subject, 1, 4)
	subjects[0] = a
	live := &rbac.ClusterRoleBinding{Subjects: subjects}
	want := &rbac.ClusterRoleBinding{Subjects: []rbac.Subject{a, b}}
	got, ok := reviseRBAC(live, want).(*rbac.ClusterRoleBinding)
	if !ok || !reflect.DeepEqual(got.Subjects, []rbac.Subject{a, b}) {
		t.Fatalf("revised = %+v, want subjects [a b]", got)
	}
	if len(live.Subjects) != 1 || subjects[:2][1] != (rbac.Subject{}) {
		t.Fatalf("live subjects' array modified: %+v", subjects[:2])
	}
	rule := rbac.PolicyRule{Verbs: []string{"get"}}
	rules := make([]rbac.PolicyRule, 0, 4)
	liveRole := &rbac.ClusterRole{Rules: rules}
	if got := reviseRBAC(liveRole, &rbac.ClusterRole{Rules: []rbac.PolicyRule{rule}}); got == nil {
		t.Fatal("a missing rule was not added")
	}
	if rules[:1][0].Verbs != nil {
		t.Fatalf("live rules' array modified: %+v", rules[:1])
	}
}
