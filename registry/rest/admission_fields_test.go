package rest

import (
	"encoding/json"
	"testing"
)

// specAndFields returns the spec (or webhooks) and the fieldsV1 of every
// managedFields entry of a JSON object, re-encoded compactly (keys sorted).
func specAndFields(t *testing.T, body []byte, top string) (string, string) {
	t.Helper()
	var o struct {
		Metadata struct {
			ManagedFields []struct {
				FieldsV1 json.RawMessage `json:"fieldsV1"`
			} `json:"managedFields"`
		} `json:"metadata"`
	}
	var all map[string]any
	if err := json.Unmarshal(body, &o); err != nil || json.Unmarshal(body, &all) != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	var fields []any
	for _, m := range o.Metadata.ManagedFields {
		var f any
		_ = json.Unmarshal(m.FieldsV1, &f)
		fields = append(fields, f)
	}
	s, _ := json.Marshal(all[top])
	f, _ := json.Marshal(fields)
	return string(s), string(f)
}

// TestAdmissionFieldSchema pins what kube-apiserver 1.33.13 answered for a
// ValidatingAdmissionPolicyBinding created with validationActions
// [Deny, Audit] and a namespaceSelector, then strategic-merge-patched
// (captured with curl -A discvap against the reference, NO_BACKEND=1):
// validationActions is a set in managedFields (`v:"Warn"`) but replaced,
// not merged, by a strategic merge patch (no patchStrategy upstream), and
// matchResources is an atomic struct (`f:matchResources: {}`) that the
// patch still merges into. Before, aggsim owned validationActions as one
// field and matchResources field by field.
func TestAdmissionFieldSchema(t *testing.T) {
	a := allStrategiesAPI(t)
	const base = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	w := coreDo(a, "POST", base, "application/json", `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"dv-b"},"spec":{"policyName":"p","validationActions":["Deny","Audit"],"matchResources":{"namespaceSelector":{"matchLabels":{"a":"b"}}}}}`)
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	w = coreDo(a, "PATCH", base+"/dv-b", "application/strategic-merge-patch+json", `{"spec":{"validationActions":["Warn"],"matchResources":{"objectSelector":{"matchLabels":{"x":"y"}}}}}`)
	spec, fields := specAndFields(t, w.Body.Bytes(), "spec")
	wantSpec := `{"matchResources":{"matchPolicy":"Equivalent","namespaceSelector":{"matchLabels":{"a":"b"}},"objectSelector":{"matchLabels":{"x":"y"}}},"policyName":"p","validationActions":["Warn"]}`
	wantFields := `[{"f:spec":{"f:matchResources":{},"f:policyName":{},"f:validationActions":{".":{},"v:\"Warn\"":{}}}}]`
	if w.Code != 200 || spec != wantSpec || fields != wantFields {
		t.Errorf("patch: %d\n spec   %s\n want   %s\n fields %s\n want   %s", w.Code, spec, wantSpec, fields, wantFields)
	}
}

// TestWebhooksEmptyList pins kube-apiserver 1.33.13's answer to a JSON
// merge patch {"webhooks":[]} (testdata/reference/vwc-patch-update.txt,
// step 4): webhooks is omitempty upstream, so the emptied list is neither
// written back nor owned in managedFields. Before, aggsim answered
// "webhooks": [] and credited f:webhooks to the patcher.
func TestWebhooksEmptyList(t *testing.T) {
	a := allStrategiesAPI(t)
	const base = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	w := coreDo(a, "POST", base, "application/json", `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"v","labels":{"rs":"v"}},"webhooks":[{"name":"check.example.com","clientConfig":{"url":"https://hook.example.com/validate"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`)
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	w = coreDo(a, "PATCH", base+"/v", "application/merge-patch+json", `{"webhooks":[]}`)
	webhooks, fields := specAndFields(t, w.Body.Bytes(), "webhooks")
	if want := `[{"f:metadata":{"f:labels":{".":{},"f:rs":{}}}}]`; w.Code != 200 || webhooks != "null" || fields != want {
		t.Errorf("patch: %d webhooks %s\n fields %s\n want   %s", w.Code, webhooks, fields, want)
	}
}
