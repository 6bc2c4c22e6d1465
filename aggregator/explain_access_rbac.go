package aggregator

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// Kinds of AccessNearMiss.
const (
	// NearMissNamespace: a RoleBinding of the user in another namespace
	// whose role allows the request (RoleBindings grant only in their own
	// namespace).
	NearMissNamespace = "namespace"
	// NearMissVerb, NearMissAPIGroup, NearMissResource,
	// NearMissResourceName and NearMissNonResourceURL: a rule of a role
	// bound to the user that differs from the request in that one field.
	NearMissVerb           = "verb"
	NearMissAPIGroup       = "apiGroup"
	NearMissResource       = "resource"
	NearMissResourceName   = "resourceName"
	NearMissNonResourceURL = "nonResourceURL"
	// NearMissSubject: a binding whose role allows the request names the
	// user (or one of its groups) with the wrong subject kind.
	NearMissSubject = "subject"
	// NearMissAggregation: a ClusterRole allows the request but the
	// aggregated ClusterRole bound to the user does not select it (or has
	// not collected its rules yet).
	NearMissAggregation = "aggregation"
	// NearMissMissingRole: a binding of the user refers to a role that
	// does not exist.
	NearMissMissingRole = "missingRole"
)

// maxNearMisses bounds the near misses one explanation lists.
const maxNearMisses = 25

// AccessGrant is the binding and rule that allow a request.
type AccessGrant struct {
	// Via is upstream's description of the binding, as in the reason:
	// `RoleBinding "x/ns" of ClusterRole "y" to User "bob"`.
	Via string `json:"via"`
	// Role is the role whose rule allows it: `ClusterRole "view"`.
	Role string `json:"role"`
	// RuleIndex is the rule's index in the role's rules (from 0).
	RuleIndex int `json:"ruleIndex"`
	// Rule is the rule, also compacted as upstream prints rules
	// (`{APIGroups:["x"], Resources:["y"], Verbs:["get"]}`) in RuleString.
	Rule       rbac.PolicyRule `json:"rule"`
	RuleString string          `json:"ruleString"`
}

// AccessNearMiss is something that almost allows a request: its Kind (one
// of the NearMiss* constants), the binding and role involved, and a
// sentence saying what differs.
type AccessNearMiss struct {
	Kind    string `json:"kind"`
	Binding string `json:"binding,omitempty"`
	Role    string `json:"role,omitempty"`
	// Rule is the rule that nearly matches (kinds verb, apiGroup,
	// resource, resourceName, nonResourceURL), compacted.
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

// bindingRef is one binding of either kind, as the explanation walks them.
type bindingRef struct {
	crb       *rbac.ClusterRoleBinding
	rb        *rbac.RoleBinding
	name      string // `ClusterRoleBinding "x"` / `RoleBinding "x/ns"`
	namespace string // "" for a ClusterRoleBinding
	subjects  []rbac.Subject
	ref       rbac.RoleRef
}

func (b bindingRef) roleName() string { return b.ref.Kind + " " + strconv.Quote(b.ref.Name) }

// allBindingsLocked returns every binding, ClusterRoleBindings first, each
// kind in name (namespace/name) order. a.mu is held.
func (a *RBACAuthorizer) allBindingsLocked() []bindingRef {
	var out []bindingRef
	for _, k := range slices.Sorted(maps.Keys(a.clusterBindings)) {
		b := a.clusterBindings[k]
		out = append(out, bindingRef{crb: b, name: "ClusterRoleBinding " + strconv.Quote(b.Name), subjects: b.Subjects, ref: b.RoleRef})
	}
	for _, k := range slices.Sorted(maps.Keys(a.roleBindings)) {
		b := a.roleBindings[k]
		out = append(out, bindingRef{rb: b, name: "RoleBinding " + strconv.Quote(b.Name+"/"+b.Namespace), namespace: b.Namespace, subjects: b.Subjects, ref: b.RoleRef})
	}
	return out
}

// explainAccess finds the binding and rule that allow req for the user
// (nil when none) and, when none does, the near misses (at most
// maxNearMisses), walking every binding: a debug endpoint, not the
// request path.
func (a *RBACAuthorizer) explainAccess(username string, groups []string, namespace string, req *rbac.RequestAttributes) (*AccessGrant, []AccessNearMiss) {
	var grant *AccessGrant
	a.visit(username, groups, namespace, func(src rbacSource, rules []rbac.PolicyRule, err string) bool {
		if err != "" {
			return true
		}
		for i := range rules {
			if rbac.RuleAllows(req, &rules[i]) {
				ref := src.roleRef()
				grant = &AccessGrant{Via: src.describe(), Role: ref.Kind + " " + strconv.Quote(ref.Name), RuleIndex: i, Rule: rules[i], RuleString: rbac.CompactString(rules[i])}
				return false
			}
		}
		return true
	})
	if grant != nil {
		return grant, nil
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	var misses []AccessNearMiss
	add := func(m AccessNearMiss) {
		if len(misses) < maxNearMisses && !slices.Contains(misses, m) {
			misses = append(misses, m)
		}
	}
	for _, b := range a.allBindingsLocked() {
		applies := slices.ContainsFunc(b.subjects, func(s rbac.Subject) bool {
			return rbac.SubjectApplies(&s, username, groups, b.namespace)
		})
		// A ClusterRoleBinding grants everywhere; a RoleBinding only to
		// resource requests in its namespace.
		inScope := b.crb != nil || (req.ResourceRequest && namespace != "" && b.namespace == namespace)
		rules, rerr := a.roleRules(b.ref, b.namespace)
		allowing := slices.IndexFunc(rules, func(r rbac.PolicyRule) bool { return rbac.RuleAllows(req, &r) })
		switch {
		case applies && rerr != "" && inScope:
			add(AccessNearMiss{Kind: NearMissMissingRole, Binding: b.name, Role: b.roleName(),
				Message: fmt.Sprintf("%s binds %s to %s, which does not exist (RBAC: %s)", b.name, describeApplying(b, username, groups), b.roleName(), rerr)})
		case applies && !inScope && allowing >= 0:
			msg := fmt.Sprintf("%s of %s to %s allows it in namespace %q only", b.name, b.roleName(), describeApplying(b, username, groups), b.namespace)
			switch {
			case !req.ResourceRequest:
				msg += ": a non-resource URL is granted only by a ClusterRoleBinding"
			case namespace == "":
				msg += ": a RoleBinding grants only inside its namespace, and this request is cluster-wide (a cluster-scoped resource, or all namespaces): it needs a ClusterRoleBinding"
			default:
				msg += fmt.Sprintf(": a RoleBinding grants only inside its namespace; create one in %q", namespace)
			}
			add(AccessNearMiss{Kind: NearMissNamespace, Binding: b.name, Role: b.roleName(), Message: msg})
		case applies && inScope && rerr == "":
			for i := range rules {
				if kind, what := oneFieldMiss(req, &rules[i]); kind != "" {
					add(AccessNearMiss{Kind: kind, Binding: b.name, Role: b.roleName(), Rule: rbac.CompactString(rules[i]),
						Message: fmt.Sprintf("%s of %s to %s has a rule for %s", b.name, b.roleName(), describeApplying(b, username, groups), what)})
				}
			}
			if b.ref.Kind == "ClusterRole" {
				for _, m := range a.aggregationMissesLocked(b, req) {
					add(m)
				}
			}
		case !applies && inScope && allowing >= 0:
			for _, s := range b.subjects {
				if why := wrongKind(&s, username, groups, b.namespace); why != "" {
					add(AccessNearMiss{Kind: NearMissSubject, Binding: b.name, Role: b.roleName(),
						Message: fmt.Sprintf("%s of %s allows it, but names %s: %s", b.name, b.roleName(), rbac.DescribeSubject(&s, b.namespace), why)})
				}
			}
		}
	}
	return nil, misses
}

// roleRef is the role of the binding a visit is at.
func (s rbacSource) roleRef() rbac.RoleRef {
	if s.crb != nil {
		return s.crb.RoleRef
	}
	return s.rb.RoleRef
}

// describeApplying names the first subject of b that applies to the user,
// as upstream's reason does.
func describeApplying(b bindingRef, username string, groups []string) string {
	return rbac.DescribeSubject(subjectAt(b.subjects, firstApplying(b.subjects, username, groups, b.namespace)), b.namespace)
}

// oneFieldMiss reports the one field in which rule r differs from the
// request (and a phrase saying how), or "" when r allows it or differs in
// more than one. A resource that is not the request's (nor a subresource
// of it) counts as unrelated, not as a near miss, and so does a
// non-resource URL that shares no first path segment with the request.
func oneFieldMiss(req *rbac.RequestAttributes, r *rbac.PolicyRule) (kind, what string) {
	all := []string{rbac.All}
	verbOK := rbac.RuleAllows(req, &rbac.PolicyRule{Verbs: r.Verbs, APIGroups: all, Resources: all, NonResourceURLs: all})
	if !req.ResourceRequest {
		if len(r.NonResourceURLs) == 0 {
			return "", ""
		}
		urlOK := rbac.RuleAllows(req, &rbac.PolicyRule{Verbs: all, NonResourceURLs: r.NonResourceURLs})
		switch {
		case urlOK && !verbOK:
			return NearMissVerb, fmt.Sprintf("%s on %q but not %q", quoteList(r.Verbs), req.Path, req.Verb)
		case verbOK && !urlOK && slices.ContainsFunc(r.NonResourceURLs, func(u string) bool { return firstSegment(u) == firstSegment(req.Path) }):
			return NearMissNonResourceURL, fmt.Sprintf("%s, which do not cover %q (a URL covers only itself, or every path it prefixes when it ends in \"*\")", quoteList(r.NonResourceURLs), req.Path)
		}
		return "", ""
	}
	if len(r.Resources) == 0 {
		return "", ""
	}
	groupOK := rbac.RuleAllows(req, &rbac.PolicyRule{Verbs: all, APIGroups: r.APIGroups, Resources: all})
	resOK := rbac.RuleAllows(req, &rbac.PolicyRule{Verbs: all, APIGroups: all, Resources: r.Resources})
	nameOK := rbac.RuleAllows(req, &rbac.PolicyRule{Verbs: all, APIGroups: all, Resources: all, ResourceNames: r.ResourceNames})
	bad := 0
	for _, ok := range []bool{verbOK, groupOK, resOK, nameOK} {
		if !ok {
			bad++
		}
	}
	if bad != 1 {
		return "", ""
	}
	res := req.Resource
	if req.Subresource != "" {
		res += "/" + req.Subresource
	}
	switch {
	case !verbOK:
		return NearMissVerb, fmt.Sprintf("%s of %s but not %q", quoteList(r.Verbs), quoteList(r.Resources), req.Verb)
	case !groupOK:
		return NearMissAPIGroup, fmt.Sprintf("%s in API group %s, not %q", quoteList(r.Resources), quoteList(r.APIGroups), req.APIGroup)
	case !nameOK:
		n := strconv.Quote(req.Name)
		if req.Name == "" {
			n = "no name (a list, watch or create names none: resourceNames cannot restrict them)"
		}
		return NearMissResourceName, fmt.Sprintf("%s of %s named %s only, not %s", quoteList(r.Verbs), quoteList(r.Resources), quoteList(r.ResourceNames), n)
	}
	// !resOK: a near miss only for the same resource (another
	// subresource) or a singular/plural slip.
	related := slices.ContainsFunc(r.Resources, func(x string) bool {
		base, _, _ := strings.Cut(x, "/")
		return base == req.Resource || base == "*" || strings.TrimSuffix(base, "s") == strings.TrimSuffix(req.Resource, "s")
	})
	if !related {
		return "", ""
	}
	return NearMissResource, fmt.Sprintf("%s, not %q (a subresource is its own resource, \"%s/<sub>\"; resources are plural)", quoteList(r.Resources), res, req.Resource)
}

func firstSegment(p string) string {
	p = strings.TrimPrefix(p, "/")
	seg, _, _ := strings.Cut(p, "/")
	return strings.TrimRight(seg, "*")
}

func quoteList(l []string) string { return fmt.Sprintf("%q", l) }

// wrongKind says why subject s would name the user but for its kind (or,
// for a ServiceAccount, its namespace), or "" when it is unrelated.
func wrongKind(s *rbac.Subject, username string, groups []string, bindingNamespace string) string {
	saNS, saName, isSA := strings.Cut(strings.TrimPrefix(username, "system:serviceaccount:"), ":")
	isSA = isSA && strings.HasPrefix(username, "system:serviceaccount:")
	switch s.Kind {
	case rbac.KindUser:
		if slices.Contains(groups, s.Name) {
			return fmt.Sprintf("%q is one of the user's groups, so the subject needs kind Group", s.Name)
		}
		if isSA && s.Name == saName {
			return fmt.Sprintf("the user is the ServiceAccount %s/%s: the subject needs kind ServiceAccount with namespace %q (or User %q)", saNS, saName, saNS, username)
		}
	case rbac.KindGroup:
		if s.Name == username {
			return fmt.Sprintf("%q is the user's name, not one of its groups %q: the subject needs kind User", s.Name, groups)
		}
	case rbac.KindServiceAccount:
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		if s.Name == username {
			return fmt.Sprintf("a ServiceAccount authenticates as %q, and the user is %q: the subject needs kind User", rbac.ServiceAccountUsername(ns, s.Name), username)
		}
		if isSA && s.Name == saName && ns != saNS {
			return fmt.Sprintf("that is the ServiceAccount of namespace %q; the user is the one of namespace %q", ns, saNS)
		}
	}
	return ""
}

// aggregationMissesLocked lists, for a binding to an aggregated
// ClusterRole that does not allow req, the ClusterRoles that name the
// request's resource (no wildcard resource) and allow it but are not
// aggregated into it: none of its selectors match their labels, or they
// match and the controller has not collected the rules yet.
func (a *RBACAuthorizer) aggregationMissesLocked(b bindingRef, req *rbac.RequestAttributes) []AccessNearMiss {
	agg, ok := a.clusterRoles[b.ref.Name]
	if !ok || agg.AggregationRule == nil {
		return nil
	}
	var out []AccessNearMiss
	for _, name := range slices.Sorted(maps.Keys(a.clusterRoles)) {
		c := a.clusterRoles[name]
		if c.Name == agg.Name || c.AggregationRule != nil {
			continue
		}
		if !slices.ContainsFunc(c.Rules, func(r rbac.PolicyRule) bool {
			return rbac.RuleAllows(req, &r) && !slices.Contains(r.Resources, rbac.All) && !slices.Contains(r.NonResourceURLs, rbac.All)
		}) {
			continue
		}
		sels := agg.AggregationRule.ClusterRoleSelectors
		selected := slices.ContainsFunc(sels, func(s meta.LabelSelector) bool { return s.Matches(c.Labels) })
		msg := ""
		if selected {
			msg = fmt.Sprintf("ClusterRole %q allows it and ClusterRole %q selects it, but its rules are not aggregated yet (the clusterrole-aggregation controller adds them within moments)", c.Name, agg.Name)
		} else {
			msg = fmt.Sprintf("ClusterRole %q allows it, but is not aggregated into ClusterRole %q (bound by %s): its labels %s match none of %q's clusterRoleSelectors %s",
				c.Name, agg.Name, b.name, formatLabels(c.Labels), agg.Name, formatSelectors(sels))
		}
		out = append(out, AccessNearMiss{Kind: NearMissAggregation, Binding: b.name, Role: b.roleName(), Message: msg})
	}
	return out
}

// formatLabels prints labels as {k=v, ...} in key order.
func formatLabels(l map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, k+"="+l[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// formatSelectors prints label selectors as [k=v,k2 In (a b); ...].
func formatSelectors(sels []meta.LabelSelector) string {
	var out []string
	for _, s := range sels {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
			parts = append(parts, k+"="+s.MatchLabels[k])
		}
		for _, e := range s.MatchExpressions {
			p := e.Key + " " + e.Operator
			if len(e.Values) > 0 {
				p += " (" + strings.Join(e.Values, " ") + ")"
			}
			parts = append(parts, p)
		}
		out = append(out, strings.Join(parts, ","))
	}
	return "[" + strings.Join(out, "; ") + "]"
}

// suggestClusterRole returns the first of view, edit, admin (least
// privilege first) that allows req, or "".
func (a *RBACAuthorizer) suggestClusterRole(req *rbac.RequestAttributes) string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, n := range []string{"view", "edit", "admin"} {
		if c, ok := a.clusterRoles[n]; ok && slices.ContainsFunc(c.Rules, func(r rbac.PolicyRule) bool { return rbac.RuleAllows(req, &r) }) {
			return n
		}
	}
	return ""
}
