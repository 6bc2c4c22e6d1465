package rbac

import (
	"fmt"
	"slices"
	"strings"
)

// Covers reports whether owner rules cover every permission of the
// servant rules, and the uncovered ones, each broken down to one verb on
// one group and resource (and name) or one URL, as upstream's
// validation.Covers (pkg/registry/rbac/validation/policy_comparator.go).
func Covers(owner, servant []PolicyRule) (bool, []PolicyRule) {
	var missing []PolicyRule
	for _, s := range servant {
		for _, sub := range breakdownRule(s) {
			if !slices.ContainsFunc(owner, func(o PolicyRule) bool { return ruleCovers(&o, &sub) }) {
				missing = append(missing, sub)
			}
		}
	}
	return len(missing) == 0, missing
}

// breakdownRule splits r into rules of one group, resource, verb and
// name, and of one URL and verb (upstream's BreakdownRule).
func breakdownRule(r PolicyRule) []PolicyRule {
	var out []PolicyRule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) > 0 {
					for _, n := range r.ResourceNames {
						out = append(out, PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
					}
				} else {
					out = append(out, PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

func hasAll(set, contains []string) bool {
	for _, c := range contains {
		if !slices.Contains(set, c) {
			return false
		}
	}
	return true
}

// ruleCovers mirrors upstream's ruleCovers: verbs, groups, resources
// ("*", exact, or "*/sub" for a subresource), names (an owner without
// names covers all) and URLs (an owner URL ending in "*" covers its
// prefix).
func ruleCovers(owner, sub *PolicyRule) bool {
	verbs := slices.Contains(owner.Verbs, All) || hasAll(owner.Verbs, sub.Verbs)
	groups := slices.Contains(owner.APIGroups, All) || hasAll(owner.APIGroups, sub.APIGroups)
	resources := resourceCoversAll(owner.Resources, sub.Resources)
	urls := true
	for _, p := range sub.NonResourceURLs {
		if !slices.ContainsFunc(owner.NonResourceURLs, func(o string) bool { return urlCovers(o, p) }) {
			urls = false
		}
	}
	names := len(owner.ResourceNames) == 0 || (len(sub.ResourceNames) > 0 && hasAll(owner.ResourceNames, sub.ResourceNames))
	return verbs && groups && resources && names && urls
}

func resourceCoversAll(set, covers []string) bool {
	if slices.Contains(set, All) || hasAll(set, covers) {
		return true
	}
	for _, p := range covers {
		if slices.Contains(set, p) {
			continue
		}
		_, sub, ok := strings.Cut(p, "/")
		if !ok || !slices.Contains(set, "*/"+sub) {
			return false
		}
	}
	return true
}

// compactRules merges rules of one group and one resource (at most one
// name) that differ only by verb, as upstream's CompactRules; the merged
// rules follow the others.
func compactRules(rules []PolicyRule) []PolicyRule {
	type key struct {
		group, resource, name string
		named                 bool
	}
	var out []PolicyRule
	var order []key
	simple := map[key]*PolicyRule{}
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := key{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.name, k.named = r.ResourceNames[0], true
		}
		if e, ok := simple[k]; ok {
			e.Verbs = append(e.Verbs, r.Verbs...)
			continue
		}
		c := PolicyRule{Verbs: slices.Clone(r.Verbs), APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames}
		simple[k] = &c
		order = append(order, k)
	}
	for _, k := range order {
		out = append(out, *simple[k])
	}
	return out
}

// CompactString prints a rule as upstream's escalation messages do:
// `{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}`, the present
// fields in that order (NonResourceURLs and ResourceNames between
// Resources and Verbs), each list as Go's %q prints a []string.
func CompactString(r PolicyRule) string {
	var parts []string
	add := func(name string, l []string) {
		if len(l) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, l))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

// EscalationMessage is upstream's ConfirmNoEscalation refusal for a user
// whose rules (owner) do not cover rules, or "" when they do:
// `user "bob" (groups=["system:authenticated"]) is attempting to grant
// RBAC permissions not currently held:` and the missing permissions,
// compacted, sorted and one a line, then `; resolution errors: [...]`
// when resolving the user's rules met errors.
func EscalationMessage(username string, groups []string, owner, rules []PolicyRule, resolutionErrors []string) string {
	ok, missing := Covers(owner, rules)
	if ok {
		return ""
	}
	var lines []string
	for _, m := range compactRules(missing) {
		if s := CompactString(m); !slices.Contains(lines, s) {
			lines = append(lines, s)
		}
	}
	slices.Sort(lines)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", username, groups, strings.Join(lines, "\n"))
	if len(resolutionErrors) > 0 {
		msg += fmt.Sprintf("; resolution errors: %v", resolutionErrors)
	}
	return msg
}
