package aggregator

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

func role(ns, name string, rules ...rbac.PolicyRule) *rbac.Role {
	return &rbac.Role{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func clusterRole(name string, rules ...rbac.PolicyRule) *rbac.ClusterRole {
	return &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: name}, Rules: rules}
}

func roleBinding(ns, name, kind, roleName string, subjects ...rbac.Subject) *rbac.RoleBinding {
	return &rbac.RoleBinding{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}, Subjects: subjects,
		RoleRef: rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: kind, Name: roleName}}
}

func clusterRoleBinding(name, roleName string, subjects ...rbac.Subject) *rbac.ClusterRoleBinding {
	return &rbac.ClusterRoleBinding{ObjectMeta: meta.ObjectMeta{Name: name}, Subjects: subjects,
		RoleRef: rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "ClusterRole", Name: roleName}}
}

func user(name string) rbac.Subject {
	return rbac.Subject{Kind: rbac.KindUser, APIGroup: rbac.GroupRBAC, Name: name}
}
func group(name string) rbac.Subject {
	return rbac.Subject{Kind: rbac.KindGroup, APIGroup: rbac.GroupRBAC, Name: name}
}
func serviceAccount(ns, name string) rbac.Subject {
	return rbac.Subject{Kind: rbac.KindServiceAccount, Namespace: ns, Name: name}
}

var cmRead = rbac.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}

func resAttrs(u *authentication.UserInfo, verb, ns, resource string) Attributes {
	return Attributes{User: u, Verb: verb, Namespace: ns, Resource: resource, APIVersion: "v1", ResourceRequest: true}
}

// TestRBACAuthorizerReasons pins the decisions and reasons of a real
// kube-apiserver 1.33.13 (--authorization-mode=RBAC) for the same objects:
// ../shared/testdata/kube-1.33/rbac/sar-bob-*.json.txt (Role cm-reader
// bound to bob in team) and the SubjectAccessReviews of
// `kubectl create -f sar.json -o jsonpath={.status}` run against the
// reference (a ClusterRoleBinding x-crb to a missing ClusterRole for
// carol; flunder-status bound to Group devs and ServiceAccount
// team2:builder).
func TestRBACAuthorizerReasons(t *testing.T) {
	a := NewRBACAuthorizer()
	for _, o := range []meta.Object{
		role("team", "cm-reader", cmRead),
		roleBinding("team", "bob-cm-reader", "Role", "cm-reader", user("bob")),
		clusterRoleBinding("x-crb", "missing-role", user("carol")),
		clusterRole("flunder-status", rbac.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"configmaps/status"}}),
		clusterRoleBinding("fs", "flunder-status", group("devs"), serviceAccount("team2", "builder")),
	} {
		a.Update(o)
	}
	bob := &authentication.UserInfo{Username: "bob", Groups: []string{"system:authenticated"}}
	carol := &authentication.UserInfo{Username: "carol"}
	dave := &authentication.UserInfo{Username: "dave", Groups: []string{"devs"}}
	sa := &authentication.UserInfo{Username: "system:serviceaccount:team2:builder"}
	status := func(at Attributes) Attributes { at.Subresource = "status"; return at }
	for _, c := range []struct {
		attrs  Attributes
		want   Decision
		reason string
	}{
		{resAttrs(bob, "list", "team", "configmaps"), DecisionAllow, `RBAC: allowed by RoleBinding "bob-cm-reader/team" of Role "cm-reader" to User "bob"`},
		{resAttrs(bob, "delete", "team", "configmaps"), DecisionNoOpinion, ""},
		{resAttrs(bob, "list", "default", "configmaps"), DecisionNoOpinion, ""},
		{resAttrs(bob, "list", "", "configmaps"), DecisionNoOpinion, ""},
		{resAttrs(carol, "get", "", "pods"), DecisionNoOpinion, `RBAC: clusterrole.rbac.authorization.k8s.io "missing-role" not found`},
		{status(resAttrs(dave, "update", "", "configmaps")), DecisionAllow, `RBAC: allowed by ClusterRoleBinding "fs" of ClusterRole "flunder-status" to Group "devs"`},
		{resAttrs(dave, "update", "", "configmaps"), DecisionNoOpinion, ""},
		{status(resAttrs(sa, "update", "x", "configmaps")), DecisionAllow, `RBAC: allowed by ClusterRoleBinding "fs" of ClusterRole "flunder-status" to ServiceAccount "builder/team2"`},
	} {
		d, reason, err := a.Authorize(context.Background(), c.attrs)
		if d != c.want || reason != c.reason || err != nil {
			t.Errorf("%s %s %s/%s: %v %q %v, want %v %q", c.attrs.User.Username, c.attrs.Verb, c.attrs.Namespace, c.attrs.Resource, d, reason, err, c.want, c.reason)
		}
	}
}

// TestRBACAuthorizerSemantics covers upstream's documented semantics:
// a RoleBinding to a ClusterRole grants it in its namespace only; the
// ServiceAccount groups; a RoleBinding's ServiceAccount subject without
// a namespace means the binding's; ClusterRoleBindings are visited before
// RoleBindings; bindings of one subject in name order; non-resource URLs
// only through ClusterRoleBindings; updates and deletes re-index.
func TestRBACAuthorizerSemantics(t *testing.T) {
	ctx := context.Background()
	a := NewRBACAuthorizer()
	a.Update(clusterRole("view-cm", cmRead))
	a.Update(clusterRole("urls", rbac.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/apis/*"}}))
	a.Update(roleBinding("team", "b-view", "ClusterRole", "view-cm", group("system:serviceaccounts:team")))
	a.Update(roleBinding("team", "a-sa", "ClusterRole", "view-cm", rbac.Subject{Kind: rbac.KindServiceAccount, Name: "builder"}))
	a.Update(roleBinding("team", "urls-in-ns", "ClusterRole", "urls", user("eve")))
	sa := &authentication.UserInfo{Username: "system:serviceaccount:team:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}}
	other := &authentication.UserInfo{Username: "system:serviceaccount:other:x", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:other"}}
	check := func(u *authentication.UserInfo, at Attributes, want Decision, reason string) {
		t.Helper()
		at.User = u
		d, r, _ := a.Authorize(ctx, at)
		if d != want || r != reason {
			t.Errorf("%s %+v: %v %q, want %v %q", u.Username, at, d, r, want, reason)
		}
	}
	// a-sa sorts before b-view: the reason names it
	check(sa, resAttrs(nil, "get", "team", "configmaps"), DecisionAllow, `RBAC: allowed by RoleBinding "a-sa/team" of ClusterRole "view-cm" to ServiceAccount "builder/team"`)
	check(sa, resAttrs(nil, "get", "default", "configmaps"), DecisionNoOpinion, "")
	check(other, resAttrs(nil, "get", "team", "configmaps"), DecisionNoOpinion, "")
	// non-resource URLs are never granted by a RoleBinding
	eve := &authentication.UserInfo{Username: "eve"}
	check(eve, Attributes{Verb: "get", Path: "/healthz"}, DecisionNoOpinion, "")
	a.Update(clusterRoleBinding("eve-urls", "urls", user("eve")))
	check(eve, Attributes{Verb: "get", Path: "/apis/wardle.example.com"}, DecisionAllow, `RBAC: allowed by ClusterRoleBinding "eve-urls" of ClusterRole "urls" to User "eve"`)
	check(eve, Attributes{Verb: "get", Path: "/apis"}, DecisionNoOpinion, "")
	// a ClusterRoleBinding wins over an earlier-named RoleBinding
	a.Update(clusterRoleBinding("z-sa-view", "view-cm", group("system:serviceaccounts")))
	check(sa, resAttrs(nil, "list", "team", "configmaps"), DecisionAllow, `RBAC: allowed by ClusterRoleBinding "z-sa-view" of ClusterRole "view-cm" to Group "system:serviceaccounts"`)
	// an update that drops the subject un-indexes it; delete removes
	a.Update(clusterRoleBinding("z-sa-view", "view-cm", user("nobody")))
	a.Delete(roleBinding("team", "a-sa", "", ""))
	check(sa, resAttrs(nil, "list", "team", "configmaps"), DecisionAllow, `RBAC: allowed by RoleBinding "b-view/team" of ClusterRole "view-cm" to Group "system:serviceaccounts:team"`)
	a.OnChange(clusterRole("view-cm"), nil)
	check(sa, resAttrs(nil, "list", "team", "configmaps"), DecisionNoOpinion, `RBAC: clusterrole.rbac.authorization.k8s.io "view-cm" not found`)
	// two missing roles: upstream's aggregate "[a, b]"
	a.Update(roleBinding("team", "c-missing", "Role", "gone", group("system:serviceaccounts")))
	check(sa, resAttrs(nil, "list", "team", "configmaps"), DecisionNoOpinion, `RBAC: [clusterrole.rbac.authorization.k8s.io "view-cm" not found, role.rbac.authorization.k8s.io "gone" not found]`)
}

// TestAuthorizationModes pins the comma list: order, first decision
// wins, system:masters first, unknown and repeated modes refused.
func TestAuthorizationModes(t *testing.T) {
	for _, bad := range []string{"Webhook", "RBAC,RBAC", "RBAC,"} {
		if _, err := ParseAuthorizationModes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ctx := context.Background()
	r := NewRBACAuthorizer()
	r.Update(clusterRole("cm", cmRead))
	r.Update(clusterRoleBinding("bob-cm", "cm", user("bob")))
	bob := &authentication.UserInfo{Username: "bob"}
	admin := &authentication.UserInfo{Username: "admin", Groups: []string{GroupMasters}}
	for _, c := range []struct {
		modes string
		u     *authentication.UserInfo
		verb  string
		want  Decision
	}{
		{"RBAC", bob, "get", DecisionAllow},
		{"RBAC", bob, "delete", DecisionNoOpinion},
		{"RBAC", admin, "delete", DecisionAllow},
		{"RBAC,AlwaysAllow", bob, "delete", DecisionAllow},
		{"AlwaysDeny,RBAC", bob, "get", DecisionAllow}, // AlwaysDeny has no opinion, as upstream's
		{"AlwaysDeny", admin, "get", DecisionAllow},
		{"AlwaysDeny", bob, "get", DecisionNoOpinion},
		{"", bob, "delete", DecisionAllow},
	} {
		modes, err := ParseAuthorizationModes(c.modes)
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := authorizerFor(modes, r).Authorize(ctx, resAttrs(c.u, c.verb, "x", "configmaps"))
		if d != c.want {
			t.Errorf("%s %s %s: %v, want %v", c.modes, c.u.Username, c.verb, d, c.want)
		}
	}
	_, reason, _ := UnionAuthorizer{AlwaysDeny{}, AlwaysDeny{}}.Authorize(ctx, resAttrs(bob, "get", "", "pods"))
	if reason != "Everything is forbidden.\nEverything is forbidden." {
		t.Errorf("union reason %q", reason)
	}
}

// BenchmarkRBACAuthorize times one decision with 10,000 RoleBindings (in
// 1,000 namespaces) and 1,000 ClusterRoles, as issue 14 asks (goal:
// ≤ 2 µs): the user and its group have five RoleBindings in the
// namespace, the second rule of the first role allows.
func BenchmarkRBACAuthorize(b *testing.B) {
	a := NewRBACAuthorizer()
	for i := range 1000 {
		a.Update(clusterRole("role-"+strconv.Itoa(i), rbac.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}},
			rbac.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}}))
	}
	for i := range 10000 {
		ns := "ns-" + strconv.Itoa(i%1000)
		a.Update(roleBinding(ns, "rb-"+strconv.Itoa(i), "ClusterRole", "role-"+strconv.Itoa(i%1000),
			user("user-"+strconv.Itoa(i%5000)), group("group-"+strconv.Itoa(i%300))))
	}
	for i := range 100 {
		a.Update(clusterRoleBinding("crb-"+strconv.Itoa(i), "role-"+strconv.Itoa(i), group("group-"+strconv.Itoa(i))))
	}
	// no ClusterRoleBinding names the user; five RoleBindings in ns-234 do
	u := &authentication.UserInfo{Username: "user-1234", Groups: []string{"group-234", "system:authenticated"}}
	attrs := resAttrs(u, "list", "ns-234", "secrets")
	ctx := context.Background()
	if d, reason, _ := a.Authorize(ctx, attrs); d != DecisionAllow {
		b.Fatalf("not allowed: %q", reason)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.Authorize(ctx, attrs)
	}
}

// TestRBACRulesFor: the rules of the roles bound to the user, cluster-wide
// then in the namespace, split into resource and non-resource rules, the
// missing roles as the error; unions concatenate and AlwaysAllow lists
// "*" (upstream's RBAC RulesFor and union rule resolver).
func TestRBACRulesFor(t *testing.T) {
	a := NewRBACAuthorizer()
	a.Update(clusterRole("basic", rbac.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews"}}))
	a.Update(clusterRole("urls", rbac.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*"}}))
	a.Update(clusterRoleBinding("basic", "basic", group("system:authenticated")))
	a.Update(clusterRoleBinding("urls", "urls", group("system:authenticated")))
	a.Update(role("team", "cm-reader", cmRead))
	a.Update(roleBinding("team", "bob-cm-reader", "Role", "cm-reader", user("bob")))
	a.Update(roleBinding("team", "gone", "Role", "gone", user("bob")))
	bob := &authentication.UserInfo{Username: "bob", Groups: []string{"system:authenticated"}}
	res, nonRes, incomplete, err := a.RulesFor(bob, "team")
	got, _ := json.Marshal([]any{res, nonRes, incomplete, err.Error()})
	want := `[[{"verbs":["create"],"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews"]},{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["configmaps"]}],[{"verbs":["get"],"nonResourceURLs":["/api","/api/*"]}],false,"role.rbac.authorization.k8s.io \"gone\" not found"]`
	if string(got) != want {
		t.Errorf("RulesFor:\n got %s\nwant %s", got, want)
	}
	res, _, _, _ = a.RulesFor(bob, "other")
	if len(res) != 1 {
		t.Errorf("in other: %v", res)
	}
	res, nonRes, incomplete, _ = rulesOf(SystemMastersAuthorizer{Delegate: UnionAuthorizer{a, AlwaysAllow{}, AuthorizerFunc(nil)}}, bob, "other")
	if len(res) != 2 || len(nonRes) != 2 || !incomplete || res[1].Resources[0] != "*" {
		t.Errorf("union: %v %v %v", res, nonRes, incomplete)
	}
}
