package rest

import (
	"strings"
	"testing"
)

// TestBeforeFirstApply: kube-apiserver 1.33.13 answers, for a
// ServiceAccount created empty and strategic-merge-patched by a client
// without User-Agent (so without managedFields):
//
//   - an apply changing automountServiceAccountToken: 409 `Apply failed
//     with 1 conflict: conflict with "before-first-apply" using v1:
//     .automountServiceAccountToken`;
//   - an apply adding a secret: 200 with the managers of
//     testdata/reference/sa-update-delete.txt: the applier owns
//     `k:{"name":"c"}: {}` (ObjectReference is atomic), and
//     "before-first-apply" (Update) owns what the object held before.
func TestBeforeFirstApply(t *testing.T) {
	a := allStrategiesAPI(t)
	sa := "/api/v1/namespaces/default/serviceaccounts"
	for _, step := range []struct{ method, path, ct, body string }{
		{"POST", sa, "application/json", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}}`},
		{"PATCH", sa + "/robot", PatchStrategic, `{"secrets":[{"name":"a"}],"imagePullSecrets":[{"name":"p"}],"automountServiceAccountToken":false}`},
	} {
		w := do(t, a, step.method, step.path, step.ct, step.body)
		if w.Code/100 != 2 || strings.Contains(w.Body.String(), "managedFields") {
			t.Fatalf("%s %s: %d %s", step.method, step.path, w.Code, w.Body)
		}
	}
	w := do(t, a, "PATCH", sa+"/robot?fieldManager=tool", PatchApply, "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: robot\nautomountServiceAccountToken: true\n")
	if want := `"message":"Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: .automountServiceAccountToken"`; w.Code != 409 || !strings.Contains(w.Body.String(), want) {
		t.Errorf("conflicting apply: %d %s\nwant %s", w.Code, w.Body, want)
	}
	w = do(t, a, "PATCH", sa+"/robot?fieldManager=tool", PatchApply, "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: robot\nsecrets:\n- name: c\n")
	got := w.Body.String()
	for _, want := range []string{
		`"manager":"tool","operation":"Apply","apiVersion":"v1","time":"2026-11-21T23:54:47Z","fieldsType":"FieldsV1","fieldsV1":{"f:secrets":{"k:{\"name\":\"c\"}":{}}}}`,
		`{"manager":"before-first-apply","operation":"Update","apiVersion":"v1","time":"2026-11-21T23:54:47Z","fieldsType":"FieldsV1","fieldsV1":{"f:automountServiceAccountToken":{},"f:imagePullSecrets":{},"f:secrets":{".":{},"k:{\"name\":\"a\"}":{}}}}`,
	} {
		if w.Code != 200 || !strings.Contains(got, want) {
			t.Errorf("apply: %d %s\nwant %s", w.Code, got, want)
		}
	}
}
