package aggregator

import (
	"slices"

	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// settleAggregatedRules returns the rules that the aggregated ClusterRoles
// of roles (rbac.AggregateRules) end with once chains have settled, by
// name, for those whose rules differ from what roles hold. Each pass
// recomputes every aggregated role from the others' rules as already
// updated in that pass, so a chain (view into edit into admin) settles in
// memory and each role is applied once: kube-controller-manager writes
// every step of a chain and lets the write trigger the next sync, which
// ends in the same rules with more writes (a fresh server's bootstrap
// policy took six applies, three now). At most len(roles)+1 passes: rules
// that still change then (selectors in a cycle) are returned as they are,
// and the next informer event goes on from what was written. roles are
// not changed.
func settleAggregatedRules(roles []*rbac.ClusterRole) map[string][]rbac.PolicyRule {
	work := make([]*rbac.ClusterRole, len(roles))
	for i, r := range roles {
		cp := *r // Rules is replaced below, never changed in place
		work[i] = &cp
	}
	for pass := 0; pass <= len(work); pass++ {
		changed := false
		for _, r := range work {
			if r.AggregationRule == nil {
				continue
			}
			want := rbac.AggregateRules(r, work)
			if rulesListEqual(want, r.Rules) {
				continue
			}
			r.Rules = want
			changed = true
		}
		if !changed {
			break
		}
	}
	out := map[string][]rbac.PolicyRule{}
	for i, r := range work {
		if r.AggregationRule != nil && !rulesListEqual(r.Rules, roles[i].Rules) {
			out[r.Name] = r.Rules
		}
	}
	return out
}

// rulesListEqual compares two rule lists in order, rule by rule
// (rbac.RulesEqual).
func rulesListEqual(a, b []rbac.PolicyRule) bool {
	return slices.EqualFunc(a, b, func(x, y rbac.PolicyRule) bool { return rbac.RulesEqual(&x, &y) })
}
