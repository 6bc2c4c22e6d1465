package rbac

import (
	"slices"
	"strconv"
	"strings"
)

// Wildcards of PolicyRule fields (k8s.io/api/rbac/v1: VerbAll,
// APIGroupAll, ResourceAll, NonResourceAll).
const (
	// All matches every verb, API group, resource or non-resource URL.
	All = "*"
)

// RequestAttributes is what a rule is matched against: a resource request
// (verb, API group, resource, subresource, name) or a non-resource one
// (verb, path).
type RequestAttributes struct {
	Verb            string
	APIGroup        string
	Resource        string
	Subresource     string
	Name            string
	Path            string
	ResourceRequest bool
}

// RuleAllows reports whether rule r allows the request a, as upstream's
// RuleAllows (plugin/pkg/auth/authorizer/rbac/rbac.go): for a resource
// request the verb, API group, resource ("res/sub" for a subresource,
// "*/sub" matching any resource's sub) and name (any when ResourceNames
// is empty) must match; for a non-resource request the verb and path (a
// rule URL ending in "*" matches every path with its prefix).
func RuleAllows(a *RequestAttributes, r *PolicyRule) bool {
	if !containsOrAll(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return nonResourceURLMatches(r, a.Path)
	}
	return containsOrAll(r.APIGroups, a.APIGroup) && resourceMatches(r, a.Resource, a.Subresource) && resourceNameMatches(r, a.Name)
}

// containsOrAll reports whether l holds v or the wildcard All
// (VerbMatches, APIGroupMatches).
func containsOrAll(l []string, v string) bool {
	return slices.Contains(l, All) || slices.Contains(l, v)
}

// resourceMatches mirrors ResourceMatches: "*", the exact resource (with
// "/sub" when the request has a subresource), or "*/sub".
func resourceMatches(r *PolicyRule, resource, sub string) bool {
	for _, rr := range r.Resources {
		if rr == All {
			return true
		}
		if sub == "" {
			if rr == resource {
				return true
			}
			continue
		}
		if len(rr) == len(resource)+1+len(sub) && strings.HasPrefix(rr, resource) && rr[len(resource)] == '/' && strings.HasSuffix(rr, sub) {
			return true
		}
		if len(rr) == len(sub)+2 && strings.HasPrefix(rr, "*/") && strings.HasSuffix(rr, sub) {
			return true
		}
	}
	return false
}

func resourceNameMatches(r *PolicyRule, name string) bool {
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)
}

// nonResourceURLMatches mirrors NonResourceURLMatches: one of the rule's
// URLs covers the path (urlCovers).
func nonResourceURLMatches(r *PolicyRule, path string) bool {
	return slices.ContainsFunc(r.NonResourceURLs, func(u string) bool { return urlCovers(u, path) })
}

// urlCovers reports whether the non-resource URL pattern u covers path:
// the exact path, or u ends in "*" and its prefix (without the trailing
// stars) starts path; "*" covers every path. Upstream's
// NonResourceURLMatches and nonResourceURLCovers (escalation) agree on it.
func urlCovers(u, path string) bool {
	return u == path || (strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")))
}

// ServiceAccountUsername is the user name a ServiceAccount authenticates
// as: system:serviceaccount:<namespace>:<name>.
func ServiceAccountUsername(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// SubjectApplies reports whether s names the user (by name, one of its
// groups, or as the ServiceAccount the user name stands for), as
// upstream's appliesToUser. bindingNamespace is the namespace a
// ServiceAccount subject without one means (that of a RoleBinding).
func SubjectApplies(s *Subject, username string, groups []string, bindingNamespace string) bool {
	switch s.Kind {
	case KindUser:
		return s.Name == username
	case KindGroup:
		for _, g := range groups {
			if g == s.Name {
				return true
			}
		}
		return false
	case KindServiceAccount:
		ns := bindingNamespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		if ns == "" {
			return false
		}
		// compare without building the name: system:serviceaccount:<ns>:<name>
		const prefix = "system:serviceaccount:"
		return len(username) == len(prefix)+len(ns)+1+len(s.Name) &&
			strings.HasPrefix(username, prefix) &&
			username[len(prefix):len(prefix)+len(ns)] == ns &&
			username[len(prefix)+len(ns)] == ':' &&
			username[len(prefix)+len(ns)+1:] == s.Name
	}
	return false
}

// DescribeSubject names s in an authorization reason as upstream's
// describeSubject: `User "bob"`, `Group "devs"`, `ServiceAccount
// "name/namespace"` (the binding's namespace when the subject has none).
func DescribeSubject(s *Subject, bindingNamespace string) string {
	if s.Kind == KindServiceAccount {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return s.Kind + " " + strconv.Quote(s.Name+"/"+ns)
	}
	return s.Kind + " " + strconv.Quote(s.Name)
}

// AggregateRules returns the rules of an aggregated ClusterRole: for each
// of its selectors in order, the rules of the other ClusterRoles it
// selects, in name order, each rule once, as kube-controller-manager's
// clusterrole-aggregation controller builds them
// (pkg/controller/clusterroleaggregation). roles are all ClusterRoles.
func AggregateRules(agg *ClusterRole, roles []*ClusterRole) []PolicyRule {
	sorted := slices.Clone(roles)
	slices.SortFunc(sorted, func(a, b *ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	rules := []PolicyRule{}
	for i := range agg.AggregationRule.ClusterRoleSelectors {
		sel := &agg.AggregationRule.ClusterRoleSelectors[i]
		for _, r := range sorted {
			if r.Name == agg.Name || !sel.Matches(r.Labels) {
				continue
			}
			for _, rule := range r.Rules {
				if !slices.ContainsFunc(rules, func(x PolicyRule) bool { return RulesEqual(&x, &rule) }) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules
}

// RulesEqual compares two rules field by field, a nil list equal to an
// empty one (upstream's equality.Semantic).
func RulesEqual(a, b *PolicyRule) bool {
	return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) &&
		slices.Equal(a.ResourceNames, b.ResourceNames) && slices.Equal(a.NonResourceURLs, b.NonResourceURLs)
}
