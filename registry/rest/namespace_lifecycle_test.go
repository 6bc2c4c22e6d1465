package rest

import (
	"net/http"
	"strings"
	"testing"
)

// Deleting an immortal namespace is refused as kube-apiserver 1.33.13's
// NamespaceLifecycle admission refuses it, whether or not it exists; other
// namespaces are not. The reference answered (curl -X DELETE
// /api/v1/namespaces/kube-public, also with ?dryRun=All; scenario
// ns-delete-builtin) exactly these bodies (compact; a final newline is not
// this test's concern); kube-node-lease was deleted.
func TestDeleteImmortalNamespaceForbidden(t *testing.T) {
	a := coreAPI(t)
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if w := do(t, a, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+name+`"}}`); w.Code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, w.Code, w.Body)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/namespaces/default", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"default\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"default","kind":"namespaces"},"code":403}`},
		{"/api/v1/namespaces/kube-system", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"kube-system\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"kube-system","kind":"namespaces"},"code":403}`},
		{"/api/v1/namespaces/kube-public?dryRun=All", `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"kube-public\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"kube-public","kind":"namespaces"},"code":403}`},
	} {
		w := do(t, a, "DELETE", tc.path, "", "")
		if w.Code != http.StatusForbidden || strings.TrimSuffix(w.Body.String(), "\n") != tc.want {
			t.Errorf("DELETE %s: %d\n%s\nwant 403\n%s", tc.path, w.Code, w.Body, tc.want)
		}
	}
	if w := do(t, a, "DELETE", "/api/v1/namespaces/kube-node-lease", "", ""); w.Code != http.StatusOK {
		t.Errorf("DELETE kube-node-lease: %d %s", w.Code, w.Body)
	}
	if w := do(t, a, "GET", "/api/v1/namespaces/default", "", ""); w.Code != http.StatusOK {
		t.Errorf("default after the refused delete: %d %s", w.Code, w.Body)
	}
}

// A status write may only set phase Active while the namespace has no
// deletionTimestamp (ValidateNamespaceStatusUpdate); an empty phase is
// defaulted to Active. kube-apiserver 1.33.13 answered PATCH
// /api/v1/namespaces/hw1/status (merge patch {"status":{"phase":"Terminating"}},
// scenario ns-status-subresource) with this 422 and {"status":{"phase":""}}
// with 200 and phase Active.
func TestNamespaceStatusPhaseValidation(t *testing.T) {
	a := coreAPI(t)
	if w := do(t, a, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"hw1"}}`); w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	w := do(t, a, "PATCH", "/api/v1/namespaces/hw1/status", PatchMerge, `{"status":{"phase":"Terminating"}}`)
	const want = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Namespace \\\"hw1\\\" is invalid: status.Phase: Invalid value: \\\"Terminating\\\": may only be 'Active' if `deletionTimestamp` is empty\",\"reason\":\"Invalid\",\"details\":{\"name\":\"hw1\",\"kind\":\"Namespace\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"Terminating\\\": may only be 'Active' if `deletionTimestamp` is empty\",\"field\":\"status.Phase\"}]},\"code\":422}"
	if w.Code != http.StatusUnprocessableEntity || strings.TrimSuffix(w.Body.String(), "\n") != want {
		t.Errorf("phase Terminating: %d\n%s\nwant\n%s", w.Code, w.Body, want)
	}
	w = do(t, a, "PATCH", "/api/v1/namespaces/hw1/status", PatchMerge, `{"status":{"phase":""}}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":{"phase":"Active"}`) {
		t.Errorf("empty phase: %d %s", w.Code, w.Body)
	}
}
