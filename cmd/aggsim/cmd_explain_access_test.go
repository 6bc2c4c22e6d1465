package main

import (
	"context"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// TestExplainAccessQuery pins how the arguments become the debug
// endpoint's query (kubectl auth can-i's forms).
func TestExplainAccessQuery(t *testing.T) {
	for _, c := range []struct {
		args  []string
		flags explainAccessOptions
		want  string
		err   string
	}{
		{args: []string{"list", "flunders"}, flags: explainAccessOptions{as: "bob"}, want: "as=bob&resource=flunders&verb=list"},
		{args: []string{"list", "flunders"}, flags: explainAccessOptions{as: "bob", namespace: "default"}, want: "as=bob&namespace=default&resource=flunders&verb=list"},
		{args: []string{"get", "flunders.wardle.example.com/x"}, flags: explainAccessOptions{as: "bob", asGroups: []string{"a", "b"}, namespace: "team", subresource: "status"},
			want: "as=bob&as-group=a&as-group=b&name=x&namespace=team&resource=flunders.wardle.example.com&subresource=status&verb=get"},
		{args: []string{"delete", "fl", "x"}, flags: explainAccessOptions{as: "bob", namespace: "default", allNamespaces: true}, want: "as=bob&name=x&namespace=&resource=fl&verb=delete"},
		{args: []string{"get", "/healthz"}, flags: explainAccessOptions{as: "bob", namespace: "default"}, want: "as=bob&path=%2Fhealthz&verb=get"},
		{args: []string{"get", "/healthz", "x"}, flags: explainAccessOptions{as: "bob"}, err: "a non-resource URL takes no NAME or --subresource"},
		{args: []string{"get", "fl/x", "y"}, flags: explainAccessOptions{as: "bob"}, err: `name given twice: "fl/x" and "y"`},
		{args: []string{"get", "fl"}, err: "--as is required: the user whose access to explain"},
	} {
		q, err := c.flags.query(c.args)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: err %v, want %s", c.args, err, c.err)
			}
			continue
		}
		if err != nil || q.Encode() != c.want {
			t.Errorf("%q: %v %s, want %s", c.args, err, q.Encode(), c.want)
		}
	}
}

// TestExplainAccessCommand runs `aggsim explain access` against a server
// with RBAC: a denial with its near miss (a RoleBinding in another
// namespace), then the same request where the binding is.
func TestExplainAccessCommand(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.AuthorizationMode = "RBAC" }))
	if _, err := srv.Aggregator().API().Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "rolebindings"}).Create(context.Background(), &rbac.RoleBinding{
		TypeMeta:   meta.TypeMeta{Kind: "RoleBinding", APIVersion: "rbac.authorization.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Namespace: "kube-public", Name: "bob-view"},
		RoleRef:    rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbac.Subject{{Kind: "User", APIGroup: rbac.GroupRBAC, Name: "bob"}},
	}); err != nil {
		t.Fatal(err)
	}
	// view's rules are filled in by the aggregation controller after start
	// (as kube-controller-manager fills them): ask until they are there.
	explain := func(want string, args ...string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second) // a bound, not a timing goal
		for {
			out, err := runExplainCmd(t, append([]string{"access", "--kubeconfig", srv.KubeconfigPath()}, args...)...)
			if err == nil && out == want {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("explain access %q: %v\n%s\nwant\n%s", args, err, out, want)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	want := `User:         bob (groups ["system:authenticated"])
Request:      list configmaps in namespace "default"
Authorizers:  system:masters, then RBAC
Decision:     denied (NoOpinion)
Response:     403 Forbidden: configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"
Near misses:
  - [namespace] RoleBinding "bob-view/kube-public" of ClusterRole "view" to User "bob" allows it in namespace "kube-public" only: a RoleBinding grants only inside its namespace; create one in "default"
To allow it:
  - kubectl create rolebinding <name> --clusterrole=view --user=bob -n default (ClusterRole "view" allows it)
  - kubectl create role <name> --verb=list --resource=configmaps -n default && kubectl create rolebinding <name> --role=<name> --user=bob -n default
`
	explain(want, "--as=bob", "list", "cm")
	want = `User:         bob (groups ["system:authenticated"])
Request:      get configmaps "x" in namespace "kube-public"
Authorizers:  system:masters, then RBAC
Decision:     allowed (by RBAC)
Reason:       RBAC: allowed by RoleBinding "bob-view/kube-public" of ClusterRole "view" to User "bob"
Binding:      RoleBinding "bob-view/kube-public" of ClusterRole "view" to User "bob"
Rule:         ClusterRole "view" rule 0: {APIGroups:[""], Resources:["configmaps" "endpoints" "persistentvolumeclaims" "persistentvolumeclaims/status" "pods" "replicationcontrollers" "replicationcontrollers/scale" "serviceaccounts" "services" "services/status"], Verbs:["get" "list" "watch"]}
`
	explain(want, "--as=bob", "get", "configmaps/x", "-n", "kube-public")
	if _, err := runExplainCmd(t, "access", "--kubeconfig", srv.KubeconfigPath(), "--as=bob", "get", "cm", "-o", "yaml"); err == nil ||
		err.Error() != `--output: unsupported format "yaml" (use json or leave empty)` {
		t.Errorf("-o yaml: %v", err)
	}
}
