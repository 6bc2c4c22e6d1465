package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

func doJSON(s *Server, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

// waitFor polls cond every 5 ms for at most 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// The serviceaccount controller, as kube-controller-manager 1.33.13's
// (reference started with KCM=1): every namespace has "default" (the
// system namespaces at start, a new namespace at once), a deleted
// "default" comes back, and the object carries only name and namespace
// (`kubectl get sa default -n t1 -o yaml --show-managed-fields` shows no
// managedFields); deleting the namespace removes it for good. With
// --controllers=-serviceaccount nothing is created.
func TestServiceAccountController(t *testing.T) {
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	s, _ := runServer(t, Options{Storage: st, Anonymous: true})
	sa := s.API().Store(meta.GroupResource{Resource: "serviceaccounts"})
	exists := func(ns string) func() bool {
		return func() bool { _, err := sa.Get(context.Background(), ns, "default"); return err == nil }
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		waitFor(t, "default ServiceAccount in "+ns, exists(ns))
	}
	if w := doJSON(s, "POST", "/api/v1/namespaces", `{"metadata":{"name":"t1"}}`); w.Code != http.StatusCreated {
		t.Fatalf("create namespace: %d %s", w.Code, w.Body)
	}
	waitFor(t, "default ServiceAccount in t1", exists("t1"))
	got := normalizedJSON(t, getJSON(t, s, "/api/v1/namespaces/t1/serviceaccounts/default"))
	const want = `{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"default","namespace":"t1","uid":"X","resourceVersion":"X","creationTimestamp":"X"}}`
	if got != want {
		t.Errorf("default ServiceAccount:\n got %s\nwant %s", got, want)
	}
	if w := doJSON(s, "DELETE", "/api/v1/namespaces/t1/serviceaccounts/default", ""); w.Code != http.StatusOK {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	waitFor(t, "default ServiceAccount recreated in t1", exists("t1"))
	// Deleting the namespace deletes its ServiceAccounts (namespaced
	// content of the namespace controller) and the controller does not
	// bring "default" back.
	if w := doJSON(s, "DELETE", "/api/v1/namespaces/t1", ""); w.Code != http.StatusOK {
		t.Fatalf("delete namespace: %d %s", w.Code, w.Body)
	}
	ns := s.API().Store(meta.GroupResource{Resource: "namespaces"})
	waitFor(t, "namespace t1 gone", func() bool { _, err := ns.Get(context.Background(), "", "t1"); return err != nil })
	time.Sleep(50 * time.Millisecond)
	if exists("t1")() {
		t.Error("default ServiceAccount of the deleted namespace t1 still exists")
	}

	st2 := storage.NewMemory()
	t.Cleanup(func() { st2.Close() })
	s2, _ := runServer(t, Options{Storage: st2, Anonymous: true, Controllers: []string{"*", "-serviceaccount"}})
	time.Sleep(100 * time.Millisecond)
	if _, err := s2.API().Store(meta.GroupResource{Resource: "serviceaccounts"}).Get(context.Background(), "default", "default"); err == nil {
		t.Error("--controllers=*,-serviceaccount: default ServiceAccount created")
	}
}

// TestServiceAccountControllerFlag: kube-controller-manager 1.33's name
// serviceaccount-controller and its alias serviceaccount are known to
// --controllers, and "-serviceaccount" disables it.
func TestServiceAccountControllerFlag(t *testing.T) {
	for _, c := range []struct {
		list []string
		want bool
	}{{nil, true}, {[]string{"*", "-serviceaccount"}, false}, {[]string{"*", "-serviceaccount-controller"}, false}, {[]string{"namespace"}, false}, {[]string{"serviceaccount"}, true}} {
		if got := ControllerEnabled(ServiceAccountControllerName, c.list); got != c.want {
			t.Errorf("%q: %v, want %v", c.list, got, c.want)
		}
	}
	if err := ValidateControllers([]string{"*", "-serviceaccount", "serviceaccount-controller"}); err != nil {
		t.Error(err)
	}
}
