package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestClusterRoleAggregationAndRBAC runs a server with
// --authorization-mode=RBAC: the bootstrap policy is there, a ClusterRole
// labelled aggregate-to-view adds its rules to view (and, through edit,
// to admin), and a RoleBinding to view then lets bob list
// flunders, with upstream's reason; removing the label takes them away.
func TestClusterRoleAggregationAndRBAC(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory(), Anonymous: true, AuthorizationMode: "RBAC"})
	ctx := context.Background()
	roles := s.API().Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"})
	if _, err := roles.Get(ctx, "", "system:auth-delegator"); err != nil {
		t.Fatalf("bootstrap policy: %v", err)
	}
	flunders := rbac.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders"}}
	if _, err := roles.Create(ctx, &rbac.ClusterRole{
		TypeMeta:   meta.TypeMeta{Kind: "ClusterRole", APIVersion: "rbac.authorization.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "flunders-view", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbac.PolicyRule{flunders},
	}); err != nil {
		t.Fatal(err)
	}
	has := func(name string) bool {
		o, err := roles.Get(ctx, "", name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range o.(*rbac.ClusterRole).Rules {
			if rbac.RulesEqual(&r, &flunders) {
				return true
			}
		}
		return false
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second) // a bound, not a timing goal
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s not within 10 s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("view, edit and admin aggregate flunders-view", func() bool { return has("view") && has("edit") && has("admin") })
	if _, err := s.API().Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "rolebindings"}).Create(ctx, &rbac.RoleBinding{
		TypeMeta:   meta.TypeMeta{Kind: "RoleBinding", APIVersion: "rbac.authorization.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "bob-view"},
		RoleRef:    rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbac.Subject{{Kind: "User", APIGroup: rbac.GroupRBAC, Name: "bob"}},
	}); err != nil {
		t.Fatal(err)
	}
	bob := &authentication.UserInfo{Username: "bob", Groups: []string{GroupAuthenticated}}
	listFlunders := func() (int, string) {
		r := httptest.NewRequest("GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
		ri, _ := request.NewRequestInfo(r)
		r = r.WithContext(request.WithRequestInfoContext(request.WithUser(r.Context(), bob), ri))
		w := httptest.NewRecorder()
		WithAuthorization(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }), s.rbac, nil).ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	waitFor("bob allowed", func() bool { c, _ := listFlunders(); return c == http.StatusTeapot })
	d, reason, _ := s.rbac.Authorize(ctx, Attributes{User: bob, Verb: "list", Namespace: "default", APIGroup: "wardle.example.com", Resource: "flunders", ResourceRequest: true})
	if d != DecisionAllow || reason != `RBAC: allowed by RoleBinding "bob-view/default" of ClusterRole "view" to User "bob"` {
		t.Errorf("%v %q", d, reason)
	}
	o, _ := roles.Get(ctx, "", "flunders-view")
	cr := o.(*rbac.ClusterRole)
	cr.Labels = nil
	if _, err := roles.Update(ctx, cr); err != nil {
		t.Fatal(err)
	}
	waitFor("view, edit and admin drop flunders-view", func() bool { return !has("view") && !has("edit") && !has("admin") })
	waitFor("bob refused", func() bool { c, _ := listFlunders(); return c == http.StatusForbidden })
	_, body := listFlunders()
	want := `flunders.wardle.example.com is forbidden: User \"bob\" cannot list resource \"flunders\" in API group \"wardle.example.com\" in the namespace \"default\"`
	if !strings.Contains(body, want) {
		t.Errorf("403 body %s, want %s", body, want)
	}
}
