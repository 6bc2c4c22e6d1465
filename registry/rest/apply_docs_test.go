package rest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/storage"
)

// applyMergeDocs merges as applyMerge does on the documents' encodings,
// byte for byte, and leaves both documents as they were: keyed lists
// (Service ports by port and protocol), a set of scalars, nested maps,
// null (a removal in the configuration), numbers kept exact, and the
// aggregation's rules onto a role without rules.
func TestApplyMergeDocsSameAsApplyMerge(t *testing.T) {
	a := allStrategiesAPI(t)
	svc := a.Store(meta.GroupResource{Resource: "services"})
	roles := a.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"})
	view, _ := json.Marshal(rbac.BootstrapPolicy().ClusterRoles[0].Rules)
	for _, c := range []struct {
		mergeKeys map[string]string
		live, cfg string
	}{
		{scopeOf(svc, "").mergeKeys,
			`{"metadata":{"name":"s","labels":{"a":"1","b":"2"}},"spec":{"ports":[{"port":80,"protocol":"TCP","name":"h"},{"port":80,"protocol":"UDP"}],"selector":{"x":"y"},"clusterIPs":["10.0.0.1"]}}`,
			`{"metadata":{"name":"s","labels":{"b":null,"c":"3"}},"spec":{"ports":[{"port":80,"protocol":"UDP","name":"u"},{"port":443,"protocol":"TCP"}],"sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"n":1.50e3}}`},
		{scopeOf(roles, "").mergeKeys,
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"view","labels":{"kubernetes.io/bootstrapping":"rbac-defaults"}},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}}`,
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"view"},"rules":` + string(view) + `}`},
		{map[string]string{"list": "name"}, `{"list":[{"name":"a","v":[1,2]}],"s":"<&>"}`, `{"list":[{"name":"b"},{"name":"a","v":[3]}],"s":null,"t":"\u2028"}`},
	} {
		var live, cfg map[string]any
		if err := unmarshalNumber([]byte(c.live), &live); err != nil {
			t.Fatal(err)
		}
		if err := unmarshalNumber([]byte(c.cfg), &cfg); err != nil {
			t.Fatal(err)
		}
		liveJSON, _ := json.Marshal(live)
		cfgJSON, _ := json.Marshal(cfg)
		want, err := applyMerge(liveJSON, cfgJSON, c.mergeKeys)
		if err != nil {
			t.Fatal(err)
		}
		got, err := applyMergeDocs(live, cfg, c.mergeKeys)
		if err != nil || string(got) != string(want) {
			t.Errorf("applyMergeDocs(%s, %s) = %s, %v; want %s", c.live, c.cfg, got, err, want)
		}
		if l, _ := json.Marshal(live); string(l) != string(liveJSON) {
			t.Errorf("live changed: %s, was %s", l, liveJSON)
		}
		if g, _ := json.Marshal(cfg); string(g) != string(cfgJSON) {
			t.Errorf("cfg changed: %s, was %s", g, cfgJSON)
		}
	}
}

// BenchmarkAggregationApply measures the ClusterRole aggregation's apply
// right after a fresh start: view's aggregated rules applied (force,
// manager clusterrole-aggregation-controller, the JSON body mark) to a
// role that holds none yet. The role is created untimed.
func BenchmarkAggregationApply(b *testing.B) {
	st := storage.NewMemory()
	b.Cleanup(func() { _ = st.Close() })
	now := func() time.Time { return testNow }
	a := NewAPI(st, registry.Strategies(now), registry.StoreOptions{Clock: now})
	b.Cleanup(a.Shutdown)
	var rules []rbac.PolicyRule
	for _, r := range rbac.BootstrapPolicy().ClusterRoles {
		if strings.HasPrefix(r.Name, "system:aggregate-to-") {
			rules = append(rules, r.Rules...)
		}
	}
	const roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles/"
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("r%d", i)
		b.StopTimer()
		if w := do(b, a, "POST", roles, "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"`+name+`"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}}`); w.Code != 201 {
			b.Fatalf("create: %d %s", w.Code, w.Body)
		}
		body, _ := json.Marshal(map[string]any{
			"apiVersion": rbac.GroupRBAC + "/v1", "kind": "ClusterRole",
			"metadata": map[string]string{"name": name}, "rules": rules,
		})
		b.StartTimer()
		if w := applyIn(a, true, roles+name, "fieldManager=clusterrole-aggregation-controller&force=true&fieldValidation=Ignore", string(body)); w.Code != 200 {
			b.Fatalf("apply: %d %s", w.Code, w.Body)
		}
	}
}
