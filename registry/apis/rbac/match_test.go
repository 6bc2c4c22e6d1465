package rbac

import (
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestRuleAllows pins upstream's rule matching
// (plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows and
// pkg/apis/rbac/v1/evaluation_helpers.go).
func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) RequestAttributes {
		return RequestAttributes{Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name, ResourceRequest: true}
	}
	url := func(verb, path string) RequestAttributes { return RequestAttributes{Verb: verb, Path: path} }
	cm := PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}
	for _, c := range []struct {
		name string
		rule PolicyRule
		req  RequestAttributes
		want bool
	}{
		{"exact", cm, res("list", "", "configmaps", "", ""), true},
		{"other verb", cm, res("delete", "", "configmaps", "", ""), false},
		{"other group", cm, res("get", "apps", "configmaps", "", ""), false},
		{"other resource", cm, res("get", "", "secrets", "", ""), false},
		{"subresource not granted by its resource", cm, res("get", "", "configmaps", "status", ""), false},
		{"verb wildcard", PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("deletecollection", "", "pods", "", ""), true},
		{"group wildcard", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"flunders"}}, res("get", "wardle.example.com", "flunders", "", ""), true},
		{"resource wildcard covers subresources", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}, res("get", "", "pods", "log", ""), true},
		{"resource/subresource", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders/status"}}, res("update", "wardle.example.com", "flunders", "status", ""), true},
		{"resource/subresource not the resource", PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders/status"}}, res("update", "wardle.example.com", "flunders", "", ""), false},
		{"*/subresource", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("get", "apps", "deployments", "scale", ""), true},
		{"*/subresource other sub", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("get", "apps", "deployments", "status", ""), false},
		{"*/subresource not a resource", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("get", "apps", "scale", "", ""), false},
		{"resourceNames match", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b"}}, res("get", "", "configmaps", "", "b"), true},
		{"resourceNames miss", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("get", "", "configmaps", "", "c"), false},
		{"resourceNames and a list (no name)", PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("list", "", "configmaps", "", ""), false},
		{"url exact", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, url("get", "/healthz"), true},
		{"url exact is not a prefix", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, url("get", "/healthz/etcd"), false},
		{"url trailing star", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, url("get", "/apis/wardle.example.com/v1alpha1"), true},
		{"url trailing star needs the prefix", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}}, url("get", "/apis"), false},
		{"url star alone", PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, url("post", "/anything"), true},
		{"url rule never matches resources", PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, res("get", "", "pods", "", ""), false},
		{"resource rule never matches urls", PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, url("get", "/healthz"), false},
	} {
		if got := RuleAllows(&c.req, &c.rule); got != c.want {
			t.Errorf("%s: RuleAllows = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSubjectApplies pins upstream's appliesToUser and describeSubject.
func TestSubjectApplies(t *testing.T) {
	sa := Subject{Kind: KindServiceAccount, Name: "builder"}
	for _, c := range []struct {
		s      Subject
		user   string
		groups []string
		ns     string
		want   bool
	}{
		{Subject{Kind: KindUser, Name: "bob"}, "bob", nil, "", true},
		{Subject{Kind: KindUser, Name: "bob"}, "bobby", nil, "", false},
		{Subject{Kind: KindGroup, Name: "devs"}, "x", []string{"a", "devs"}, "", true},
		{Subject{Kind: KindGroup, Name: "devs"}, "devs", nil, "", false},
		{sa, "system:serviceaccount:team:builder", nil, "team", true},
		{sa, "system:serviceaccount:team:builder", nil, "other", false},
		{sa, "system:serviceaccount:team:builder", nil, "", false},
		{Subject{Kind: KindServiceAccount, Name: "builder", Namespace: "team"}, "system:serviceaccount:team:builder", nil, "other", true},
		{Subject{Kind: KindServiceAccount, Name: "b", Namespace: "team"}, "system:serviceaccount:team:builder", nil, "", false},
		{Subject{Kind: KindGroup, Name: "system:serviceaccounts:team"}, "system:serviceaccount:team:builder", []string{"system:serviceaccounts", "system:serviceaccounts:team"}, "", true},
		{Subject{Kind: "Robot", Name: "bob"}, "bob", nil, "", false},
	} {
		if got := SubjectApplies(&c.s, c.user, c.groups, c.ns); got != c.want {
			t.Errorf("%+v applies to %s %v in %q = %v, want %v", c.s, c.user, c.groups, c.ns, got, c.want)
		}
	}
	if got := DescribeSubject(&sa, "team"); got != `ServiceAccount "builder/team"` {
		t.Errorf("DescribeSubject = %s", got)
	}
	if got := DescribeSubject(&Subject{Kind: KindUser, Name: "bob"}, "team"); got != `User "bob"` {
		t.Errorf("DescribeSubject = %s", got)
	}
}

// TestLabelSelectorMatches pins metav1 label selector semantics.
func TestLabelSelectorMatches(t *testing.T) {
	l := map[string]string{"a": "1", "b": "2"}
	for _, c := range []struct {
		s    meta.LabelSelector
		want bool
	}{
		{meta.LabelSelector{}, true},
		{meta.LabelSelector{MatchLabels: map[string]string{"a": "1"}}, true},
		{meta.LabelSelector{MatchLabels: map[string]string{"a": "2"}}, false},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "In", Values: []string{"0", "1"}}}}, true},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "c", Operator: "NotIn", Values: []string{"1"}}}}, true},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "NotIn", Values: []string{"1"}}}}, false},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "b", Operator: "Exists"}}}, true},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "b", Operator: "DoesNotExist"}}}, false},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "c", Operator: "DoesNotExist"}}}, true},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "c", Operator: "In", Values: []string{"1"}}}}, false},
		{meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "a", Operator: "Gt", Values: []string{"0"}}}}, false},
		{meta.LabelSelector{MatchLabels: map[string]string{"a": "1", "b": "3"}}, false},
	} {
		if got := c.s.Matches(l); got != c.want {
			t.Errorf("%+v: %v", c.s, got)
		}
	}
}

// TestAggregateRules: per selector, the selected roles in name order
// (never the aggregated role itself), each rule once.
func TestAggregateRules(t *testing.T) {
	r := func(v string) PolicyRule {
		return PolicyRule{Verbs: []string{v}, APIGroups: []string{""}, Resources: []string{"pods"}}
	}
	lbl := func(k string) map[string]string { return map[string]string{k: "true"} }
	agg := &ClusterRole{AggregationRule: &AggregationRule{ClusterRoleSelectors: []meta.LabelSelector{{MatchLabels: lbl("x")}, {MatchLabels: lbl("y")}}}}
	agg.Name, agg.Labels, agg.Rules = "agg", lbl("x"), []PolicyRule{r("self")}
	b := &ClusterRole{Rules: []PolicyRule{r("b"), r("a")}}
	b.Name, b.Labels = "b", lbl("x")
	a := &ClusterRole{Rules: []PolicyRule{r("a")}}
	a.Name, a.Labels = "a", lbl("x")
	y := &ClusterRole{Rules: []PolicyRule{r("y"), r("b")}}
	y.Name, y.Labels = "0-y", lbl("y")
	got := AggregateRules(agg, []*ClusterRole{b, y, agg, a})
	var verbs []string
	for _, g := range got {
		verbs = append(verbs, g.Verbs[0])
	}
	if strings.Join(verbs, ",") != "a,b,y" {
		t.Errorf("aggregated %v, want a,b,y", verbs)
	}
	if got := AggregateRules(&ClusterRole{AggregationRule: &AggregationRule{ClusterRoleSelectors: []meta.LabelSelector{{MatchLabels: lbl("none")}}}}, []*ClusterRole{a}); got == nil || len(got) != 0 {
		t.Errorf("no match: %#v, want an empty list", got)
	}
}

// TestEscalationMessage pins upstream's refusal texts, captured from
// kube-apiserver 1.33.13 (../shared/testdata/kube-1.33/rbac/
// escalate-role-secrets.txt and escalate-bind-clusteradmin.txt): bob holds
// cm-reader (get/list/watch configmaps) and role-admin in team.
func TestEscalationMessage(t *testing.T) {
	owner := []PolicyRule{
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
		{Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}, APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}},
	}
	groups := []string{"system:authenticated"}
	if m := EscalationMessage("bob", groups, owner, []PolicyRule{{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"secrets"}}}, nil); m != "user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"list\"]}" {
		t.Errorf("secrets: %s", m)
	}
	clusterAdmin := []PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, {Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}
	if m := EscalationMessage("bob", groups, owner, clusterAdmin, nil); m != "user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n{NonResourceURLs:[\"*\"], Verbs:[\"*\"]}" {
		t.Errorf("cluster-admin: %s", m)
	}
	if m := EscalationMessage("bob", groups, owner, []PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}, nil); m != "" {
		t.Errorf("subset refused: %s", m)
	}
	// verbs of one resource compact into one line; "*/sub" and URL
	// prefixes cover; names
	owner = []PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"*/scale"}}, {Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/*"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"a"}}}
	m := EscalationMessage("bob", nil, owner, []PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis/x"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"a"}},
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"b"}},
		{Verbs: []string{"get", "delete"}, APIGroups: []string{""}, Resources: []string{"pods"}},
	}, []string{"x"})
	if m != "user \"bob\" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"delete\"]}\n{APIGroups:[\"\"], Resources:[\"secrets\"], ResourceNames:[\"b\"], Verbs:[\"get\" \"list\"]}; resolution errors: [x]" {
		t.Errorf("compact: %q", m)
	}
}
