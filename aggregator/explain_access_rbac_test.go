package aggregator

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/storage"
)

var flunderRead = rbac.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders"}}

func listFlunders() *rbac.RequestAttributes {
	return &rbac.RequestAttributes{Verb: "list", APIGroup: "wardle.example.com", Resource: "flunders", ResourceRequest: true}
}

// TestExplainAccessGrant: the binding and rule that allow a request, with
// upstream's description of the binding (the reason's text).
func TestExplainAccessGrant(t *testing.T) {
	a := NewRBACAuthorizer()
	for _, o := range []meta.Object{
		clusterRole("flunder-reader", cmRead, flunderRead),
		roleBinding("default", "bob-reads", "ClusterRole", "flunder-reader", user("bob")),
	} {
		a.Update(o)
	}
	g, misses := a.explainAccess("bob", []string{GroupAuthenticated}, "default", listFlunders())
	want := &AccessGrant{Via: `RoleBinding "bob-reads/default" of ClusterRole "flunder-reader" to User "bob"`, Role: `ClusterRole "flunder-reader"`,
		RuleIndex: 1, Rule: flunderRead, RuleString: `{APIGroups:["wardle.example.com"], Resources:["flunders"], Verbs:["get" "list" "watch"]}`}
	if !reflect.DeepEqual(g, want) || misses != nil {
		t.Errorf("grant %+v misses %v, want %+v", g, misses, want)
	}
}

// TestExplainAccessNearMisses: one case per near-miss kind; each lists
// exactly the expected near miss for bob's "list flunders in default".
func TestExplainAccessNearMisses(t *testing.T) {
	withLabels := func(r *rbac.ClusterRole, l map[string]string) *rbac.ClusterRole { r.Labels = l; return r }
	aggregated := func(name string, sel map[string]string) *rbac.ClusterRole {
		r := clusterRole(name)
		r.AggregationRule = &rbac.AggregationRule{ClusterRoleSelectors: []meta.LabelSelector{{MatchLabels: sel}}}
		return r
	}
	status := rbac.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders/status"}}
	named := rbac.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders"}, ResourceNames: []string{"mine"}}
	for _, c := range []struct {
		name    string
		objs    []meta.Object
		user    string
		groups  []string
		req     *rbac.RequestAttributes
		ns      string
		want    []AccessNearMiss
		wantNil bool
	}{{
		name: "namespace",
		objs: []meta.Object{clusterRole("fr", flunderRead), roleBinding("team", "bob-fr", "ClusterRole", "fr", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissNamespace, Binding: `RoleBinding "bob-fr/team"`, Role: `ClusterRole "fr"`,
			Message: `RoleBinding "bob-fr/team" of ClusterRole "fr" to User "bob" allows it in namespace "team" only: a RoleBinding grants only inside its namespace; create one in "default"`}},
	}, {
		name: "namespace, cluster-wide request",
		ns:   "-",
		objs: []meta.Object{clusterRole("fr", flunderRead), roleBinding("team", "bob-fr", "ClusterRole", "fr", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissNamespace, Binding: `RoleBinding "bob-fr/team"`, Role: `ClusterRole "fr"`,
			Message: `RoleBinding "bob-fr/team" of ClusterRole "fr" to User "bob" allows it in namespace "team" only: a RoleBinding grants only inside its namespace, and this request is cluster-wide (a cluster-scoped resource, or all namespaces): it needs a ClusterRoleBinding`}},
	}, {
		name: "verb",
		req:  &rbac.RequestAttributes{Verb: "delete", APIGroup: "wardle.example.com", Resource: "flunders", Name: "x", ResourceRequest: true},
		objs: []meta.Object{role("default", "r", flunderRead), roleBinding("default", "bob-r", "Role", "r", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissVerb, Binding: `RoleBinding "bob-r/default"`, Role: `Role "r"`, Rule: `{APIGroups:["wardle.example.com"], Resources:["flunders"], Verbs:["get" "list" "watch"]}`,
			Message: `RoleBinding "bob-r/default" of Role "r" to User "bob" has a rule for ["get" "list" "watch"] of ["flunders"] but not "delete"`}},
	}, {
		name: "apiGroup",
		objs: []meta.Object{role("default", "r", rbac.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"wardle.k8s.io"}, Resources: []string{"flunders"}}),
			roleBinding("default", "bob-r", "Role", "r", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissAPIGroup, Binding: `RoleBinding "bob-r/default"`, Role: `Role "r"`, Rule: `{APIGroups:["wardle.k8s.io"], Resources:["flunders"], Verbs:["list"]}`,
			Message: `RoleBinding "bob-r/default" of Role "r" to User "bob" has a rule for ["flunders"] in API group ["wardle.k8s.io"], not "wardle.example.com"`}},
	}, {
		name: "resource (subresource)",
		objs: []meta.Object{role("default", "r", status), roleBinding("default", "bob-r", "Role", "r", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissResource, Binding: `RoleBinding "bob-r/default"`, Role: `Role "r"`, Rule: `{APIGroups:["wardle.example.com"], Resources:["flunders/status"], Verbs:["list"]}`,
			Message: `RoleBinding "bob-r/default" of Role "r" to User "bob" has a rule for ["flunders/status"], not "flunders" (a subresource is its own resource, "flunders/<sub>"; resources are plural)`}},
	}, {
		name: "resourceName",
		req:  &rbac.RequestAttributes{Verb: "get", APIGroup: "wardle.example.com", Resource: "flunders", Name: "yours", ResourceRequest: true},
		objs: []meta.Object{role("default", "r", named), roleBinding("default", "bob-r", "Role", "r", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissResourceName, Binding: `RoleBinding "bob-r/default"`, Role: `Role "r"`, Rule: `{APIGroups:["wardle.example.com"], Resources:["flunders"], ResourceNames:["mine"], Verbs:["get"]}`,
			Message: `RoleBinding "bob-r/default" of Role "r" to User "bob" has a rule for ["get"] of ["flunders"] named ["mine"] only, not "yours"`}},
	}, {
		name: "nonResourceURL",
		ns:   "-",
		req:  &rbac.RequestAttributes{Verb: "get", Path: "/healthz/etcd"},
		objs: []meta.Object{clusterRole("h", rbac.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}), clusterRoleBinding("bob-h", "h", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissNonResourceURL, Binding: `ClusterRoleBinding "bob-h"`, Role: `ClusterRole "h"`, Rule: `{NonResourceURLs:["/healthz"], Verbs:["get"]}`,
			Message: `ClusterRoleBinding "bob-h" of ClusterRole "h" to User "bob" has a rule for ["/healthz"], which do not cover "/healthz/etcd" (a URL covers only itself, or every path it prefixes when it ends in "*")`}},
	}, {
		name: "subject: Group named like the user",
		objs: []meta.Object{clusterRole("fr", flunderRead), roleBinding("default", "fr", "ClusterRole", "fr", group("bob"))},
		want: []AccessNearMiss{{Kind: NearMissSubject, Binding: `RoleBinding "fr/default"`, Role: `ClusterRole "fr"`,
			Message: `RoleBinding "fr/default" of ClusterRole "fr" allows it, but names Group "bob": "bob" is the user's name, not one of its groups ["system:authenticated"]: the subject needs kind User`}},
	}, {
		name: "subject: User named like a group",
		objs: []meta.Object{clusterRole("fr", flunderRead), clusterRoleBinding("fr", "fr", user("devs"))},
		user: "jane", groups: []string{"devs", GroupAuthenticated},
		want: []AccessNearMiss{{Kind: NearMissSubject, Binding: `ClusterRoleBinding "fr"`, Role: `ClusterRole "fr"`,
			Message: `ClusterRoleBinding "fr" of ClusterRole "fr" allows it, but names User "devs": "devs" is one of the user's groups, so the subject needs kind Group`}},
	}, {
		name: "subject: ServiceAccount of another namespace",
		objs: []meta.Object{clusterRole("fr", flunderRead), clusterRoleBinding("fr", "fr", serviceAccount("other", "builder"))},
		user: "system:serviceaccount:default:builder", groups: []string{"system:serviceaccounts", "system:serviceaccounts:default", GroupAuthenticated},
		want: []AccessNearMiss{{Kind: NearMissSubject, Binding: `ClusterRoleBinding "fr"`, Role: `ClusterRole "fr"`,
			Message: `ClusterRoleBinding "fr" of ClusterRole "fr" allows it, but names ServiceAccount "builder/other": that is the ServiceAccount of namespace "other"; the user is the one of namespace "default"`}},
	}, {
		name: "subject: ServiceAccount named like the user",
		objs: []meta.Object{clusterRole("fr", flunderRead), roleBinding("default", "fr", "ClusterRole", "fr", serviceAccount("", "bob"))},
		want: []AccessNearMiss{{Kind: NearMissSubject, Binding: `RoleBinding "fr/default"`, Role: `ClusterRole "fr"`,
			Message: `RoleBinding "fr/default" of ClusterRole "fr" allows it, but names ServiceAccount "bob/default": a ServiceAccount authenticates as "system:serviceaccount:default:bob", and the user is "bob": the subject needs kind User`}},
	}, {
		name: "aggregation: labels select nothing",
		objs: []meta.Object{
			aggregated("view", map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}),
			withLabels(clusterRole("wardle-view", flunderRead), map[string]string{"rbac.authorization.k8s.io/aggregate-to-viewer": "true"}),
			roleBinding("default", "bob-view", "ClusterRole", "view", user("bob")),
		},
		want: []AccessNearMiss{{Kind: NearMissAggregation, Binding: `RoleBinding "bob-view/default"`, Role: `ClusterRole "view"`,
			Message: `ClusterRole "wardle-view" allows it, but is not aggregated into ClusterRole "view" (bound by RoleBinding "bob-view/default"): its labels {rbac.authorization.k8s.io/aggregate-to-viewer=true} match none of "view"'s clusterRoleSelectors [rbac.authorization.k8s.io/aggregate-to-view=true]`}},
	}, {
		name: "missing role",
		objs: []meta.Object{roleBinding("default", "bob-gone", "ClusterRole", "gone", user("bob"))},
		want: []AccessNearMiss{{Kind: NearMissMissingRole, Binding: `RoleBinding "bob-gone/default"`, Role: `ClusterRole "gone"`,
			Message: `RoleBinding "bob-gone/default" binds User "bob" to ClusterRole "gone", which does not exist (RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found)`}},
	}, {
		name:    "unrelated rules are no near misses",
		objs:    []meta.Object{role("default", "r", cmRead), roleBinding("default", "bob-r", "Role", "r", user("bob")), clusterRole("all", rbac.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}})},
		wantNil: true,
	}} {
		t.Run(c.name, func(t *testing.T) {
			a := NewRBACAuthorizer()
			for _, o := range c.objs {
				a.Update(o)
			}
			u, groups, ns, req := "bob", []string{GroupAuthenticated}, "default", listFlunders()
			if c.user != "" {
				u, groups = c.user, c.groups
			}
			if c.ns == "-" {
				ns = ""
			}
			if c.req != nil {
				req = c.req
			}
			g, misses := a.explainAccess(u, groups, ns, req)
			if g != nil {
				t.Fatalf("allowed by %+v", g)
			}
			if c.wantNil {
				if misses != nil {
					t.Errorf("near misses %+v, want none", misses)
				}
				return
			}
			if !reflect.DeepEqual(misses, c.want) {
				t.Errorf("near misses\n%+v\nwant\n%+v", misses, c.want)
			}
		})
	}
}

// TestExplainAccessModes: what allowed a request when RBAC did not (the
// privileged group, AlwaysAllow after RBAC), and the advice of a mode
// without roles.
func TestExplainAccessModes(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		mode, user    string
		groups        []string
		allowed       bool
		allowedBy     string
		modes, advice string
	}{
		{"RBAC", "root", []string{GroupMasters}, true, GroupMasters, "system:masters,RBAC", ""},
		{"RBAC,AlwaysAllow", "bob", nil, true, ModeAlwaysAllow, "system:masters,RBAC,AlwaysAllow", ""},
		{"AlwaysAllow", "bob", nil, true, ModeAlwaysAllow, "AlwaysAllow", ""},
		{"AlwaysDeny", "bob", nil, false, "", "system:masters,AlwaysDeny", `authorization mode "AlwaysDeny" decides without roles: only system:masters is allowed`},
	} {
		s, _ := runServer(t, Options{Storage: storage.NewMemory(), AuthorizationMode: c.mode})
		e, err := s.ExplainAccess(ctx, AccessQuery{User: c.user, Groups: c.groups, Verb: "list", Resource: "configmaps", Namespace: "default"})
		if err != nil {
			t.Fatal(err)
		}
		if e.Allowed != c.allowed || e.AllowedBy != c.allowedBy || strings.Join(e.Modes, ",") != c.modes || strings.Join(e.Advice, "|") != c.advice || e.Grant != nil {
			t.Errorf("%s as %s: %+v", c.mode, c.user, e)
		}
		if !c.allowed && (e.Reason != "Everything is forbidden." || e.Forbidden != `configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.`) {
			t.Errorf("%s: reason %q forbidden %q", c.mode, e.Reason, e.Forbidden)
		}
	}
}
