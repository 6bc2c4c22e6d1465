package aggregator

import (
	"slices"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// passByPass is what the controller did before settleAggregatedRules, and
// what kube-controller-manager does: every pass recomputes each
// aggregated role from the roles as the last pass left them, applies the
// ones that differ, and the writes trigger the next pass. It returns the
// settled roles and the number of applies.
func passByPass(t *testing.T, roles []*rbac.ClusterRole) ([]*rbac.ClusterRole, int) {
	t.Helper()
	cur := make([]*rbac.ClusterRole, len(roles))
	for i, r := range roles {
		cp := *r
		cur[i] = &cp
	}
	applies := 0
	for pass := 0; ; pass++ {
		if pass > 20 {
			t.Fatal("pass by pass did not settle in 20 passes")
		}
		next := make([]*rbac.ClusterRole, len(cur))
		changed := false
		for i, r := range cur {
			cp := *r
			next[i] = &cp
			if r.AggregationRule == nil {
				continue
			}
			if want := rbac.AggregateRules(r, cur); !rulesListEqual(want, r.Rules) {
				next[i].Rules = want
				applies++
				changed = true
			}
		}
		cur = next
		if !changed {
			return cur, applies
		}
	}
}

func bootstrapClusterRoles() []*rbac.ClusterRole {
	p := rbac.BootstrapPolicy()
	out := make([]*rbac.ClusterRole, len(p.ClusterRoles))
	for i := range p.ClusterRoles {
		out[i] = &p.ClusterRoles[i]
	}
	return out
}

// TestSettleAggregatedRulesBootstrap: on kube-apiserver 1.33's bootstrap
// policy, in name order and in reverse (admin before edit before view,
// the order that needs most passes), settleAggregatedRules gives admin,
// edit and view exactly the rules that applying pass by pass settles to,
// with one apply each instead of six in all.
func TestSettleAggregatedRulesBootstrap(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		roles := bootstrapClusterRoles()
		slices.SortFunc(roles, func(a, b *rbac.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
		if reverse {
			slices.Reverse(roles)
		}
		want, applies := passByPass(t, roles)
		if applies != 6 {
			t.Errorf("reverse=%v: pass by pass applied %d times, want 6", reverse, applies)
		}
		got := settleAggregatedRules(roles)
		var names []string
		for name := range got {
			names = append(names, name)
		}
		slices.Sort(names)
		if strings.Join(names, ",") != "admin,edit,view" {
			t.Fatalf("reverse=%v: settled %v, want admin, edit and view", reverse, names)
		}
		for _, r := range want {
			if r.AggregationRule == nil {
				continue
			}
			if !rulesListEqual(got[r.Name], r.Rules) {
				t.Errorf("reverse=%v: %s settled to %v, pass by pass to %v", reverse, r.Name, got[r.Name], r.Rules)
			}
		}
		// Counts captured from a fresh aggsim serve's applies: view 10
		// rules, edit 23, admin 25.
		for name, n := range map[string]int{"view": 10, "edit": 23, "admin": 25} {
			if len(got[name]) != n {
				t.Errorf("reverse=%v: %s has %d rules, want %d", reverse, name, len(got[name]), n)
			}
		}
		for _, r := range roles {
			if (r.Name == "admin" || r.Name == "edit" || r.Name == "view") && r.Rules != nil {
				t.Errorf("settleAggregatedRules changed its input: %s has rules", r.Name)
			}
		}
		// Settled roles settle to nothing more.
		for _, r := range roles {
			if rules, ok := got[r.Name]; ok {
				r.Rules = rules
			}
		}
		if again := settleAggregatedRules(roles); len(again) != 0 {
			t.Errorf("reverse=%v: settled roles change again: %v", reverse, again)
		}
	}
}

// TestSettleAggregatedRulesCycle: two roles selecting each other settle
// (in one pass each, in list order) instead of swapping rules forever,
// and no role's rules are left changing.
func TestSettleAggregatedRulesCycle(t *testing.T) {
	rule := func(res string) rbac.PolicyRule {
		return rbac.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{res}}
	}
	sel := func(label string) *rbac.AggregationRule {
		return &rbac.AggregationRule{ClusterRoleSelectors: []meta.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}
	}
	roles := []*rbac.ClusterRole{
		{ObjectMeta: meta.ObjectMeta{Name: "a", Labels: map[string]string{"to-b": "true"}}, AggregationRule: sel("to-a"), Rules: []rbac.PolicyRule{rule("pods")}},
		{ObjectMeta: meta.ObjectMeta{Name: "b", Labels: map[string]string{"to-a": "true"}}, AggregationRule: sel("to-b"), Rules: []rbac.PolicyRule{rule("secrets")}},
	}
	got := settleAggregatedRules(roles)
	want := []rbac.PolicyRule{rule("secrets")}
	if !rulesListEqual(got["a"], want) {
		t.Errorf("a settled to %v, want %v", got["a"], want)
	}
	if _, ok := got["b"]; ok {
		t.Errorf("b changed: %v (its rules are a's once a took b's)", got["b"])
	}
}
