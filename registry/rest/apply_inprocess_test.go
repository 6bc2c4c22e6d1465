package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/storage"
)

// applyIn sends an apply to a, with WithJSONApplyBody's mark when marked.
func applyIn(a *API, marked bool, path, query, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("PATCH", path+"?"+query, strings.NewReader(body))
	r.Header.Set("Content-Type", PatchApply)
	if marked {
		r = r.WithContext(WithJSONApplyBody(context.Background()))
	}
	w := httptest.NewRecorder()
	a.ServeHTTP(w, r)
	return w
}

// An apply whose body is marked as encoding/json's (the ClusterRole
// aggregation's and the APF consumer's in-process applies) skips the YAML
// conversion and stores, answers and records exactly what the same apply
// without the mark does: the aggregation's body, rules in PolicyRule's
// field order, applied to a role that exists (force, another manager) and
// to one that does not (create), and the FlowSchema status apply.
// Bodies the mark does not cover (not an object, the wrong kind, YAML)
// get the unmarked answers.
func TestApplyJSONBodyMarkedSameResult(t *testing.T) {
	now := func() time.Time { return time.Unix(1700000000, 0).UTC() }
	newAPI := func() *API {
		st := storage.NewMemory()
		t.Cleanup(func() { st.Close() })
		a := NewAPI(st, registry.Strategies(now), registry.StoreOptions{Clock: now})
		t.Cleanup(a.Shutdown)
		return a
	}
	p := rbac.BootstrapPolicy()
	var view *rbac.ClusterRole
	for i := range p.ClusterRoles {
		if p.ClusterRoles[i].Name == "system:aggregate-to-view" {
			view = &p.ClusterRoles[i]
		}
	}
	if view == nil {
		t.Fatal("no system:aggregate-to-view in the bootstrap policy")
	}
	rolesBody, err := json.Marshal(map[string]any{
		"apiVersion": rbac.GroupRBAC + "/v1", "kind": "ClusterRole",
		"metadata": map[string]string{"name": "view"}, "rules": view.Rules,
	})
	if err != nil {
		t.Fatal(err)
	}
	const roles = "/apis/rbac.authorization.k8s.io/v1/clusterroles/"
	const fs = "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/"
	flowSchema := `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"fs"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":500}}`
	fsStatus := `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"fs"},"status":{"conditions":[{"type":"Dangling","status":"False","lastTransitionTime":"2023-11-14T22:13:20Z","reason":"Found","message":"This FlowSchema references the PriorityLevelConfiguration object named \"global-default\" and it exists"}]}}`
	steps := []struct {
		method, path, query, contentType, body string
	}{
		{"POST", roles, "", "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"view","labels":{"a":"b"}},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}}`},
		{"PATCH", roles + "view", "fieldManager=clusterrole-aggregation-controller&force=true", PatchApply, string(rolesBody)},
		{"PATCH", roles + "view", "fieldManager=clusterrole-aggregation-controller&force=true", PatchApply, string(rolesBody)}, // no change
		{"PATCH", roles + "absent", "fieldManager=m", PatchApply, strings.Replace(string(rolesBody), `"name":"view"`, `"name":"absent"`, 1)},
		{"PATCH", roles + "view", "fieldManager=m", PatchApply, `[1]`},
		{"PATCH", roles + "view", "fieldManager=m", PatchApply, `{"apiVersion":"v1","kind":"ClusterRole","metadata":{"name":"view"}}`},
		{"PATCH", roles + "view", "fieldManager=m", PatchApply, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: view\n  labels:\n    c: d\n"},
		{"POST", fs, "", "application/json", flowSchema},
		{"PATCH", fs + "fs/status", "fieldManager=api-priority-and-fairness-config-consumer-v1&force=true", PatchApply, fsStatus},
		{"GET", roles + "view", "", "", ""},
		{"GET", roles + "absent", "", "", ""},
		{"GET", fs + "fs", "", "", ""},
	}
	plain, marked := newAPI(), newAPI()
	for i, s := range steps {
		var got [2]*httptest.ResponseRecorder
		for j, a := range []*API{plain, marked} {
			if s.method == "PATCH" {
				got[j] = applyIn(a, j == 1, s.path, s.query, s.body)
			} else {
				got[j] = do(t, a, s.method, s.path, s.contentType, s.body)
			}
		}
		// uids are random: the rest is byte-equal
		b0, b1 := uidRE.ReplaceAll(got[0].Body.Bytes(), nil), uidRE.ReplaceAll(got[1].Body.Bytes(), nil)
		if got[0].Code != got[1].Code || !bytes.Equal(b0, b1) {
			t.Errorf("step %d %s %s: without the mark %d\n%s\nwith it %d\n%s", i, s.method, s.path, got[0].Code, got[0].Body, got[1].Code, got[1].Body)
		}
		if s.method == "GET" && got[0].Code != 200 {
			t.Errorf("step %d GET %s: %d %s", i, s.path, got[0].Code, got[0].Body)
		}
	}
	// the applies did something: view holds the applied rules, owned by
	// the aggregation's manager
	w := do(t, marked, "GET", roles+"view", "", "")
	if !strings.Contains(w.Body.String(), `"manager":"clusterrole-aggregation-controller","operation":"Apply"`) || !strings.Contains(w.Body.String(), `"pods/log"`) {
		t.Errorf("view after the applies: %s", w.Body)
	}
}

// The mark takes a JSON object body as it is (keys in the order sent);
// without it, or for a body that is no JSON object, the YAML conversion
// runs (keys sorted).
func TestApplyBodyToJSONMark(t *testing.T) {
	body := []byte(` {"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1"}` + "\n")
	for _, c := range []struct {
		ctx  context.Context
		body string
		want string
	}{
		{WithJSONApplyBody(context.Background()), string(body), `{"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1"}`},
		{context.Background(), string(body), `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole"}`},
		{WithJSONApplyBody(context.Background()), "kind: ClusterRole\napiVersion: v1\n", `{"apiVersion":"v1","kind":"ClusterRole"}`},
	} {
		got, err := applyBodyToJSON(c.ctx, []byte(c.body))
		if err != nil || string(got) != c.want {
			t.Errorf("%q: %s, %v; want %s", c.body, got, err, c.want)
		}
	}
}
