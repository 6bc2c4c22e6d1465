package aggregatortest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// faultWebhook answers AdmissionReviews, at /m (a mutating webhook) and
// /v (a validating one), wrongly in the way the steps' "arm" lines name.
// Captured from kube-apiserver 1.33.13 (../shared/reference/up.sh,
// NO_BACKEND=1, API_PORT=7643) by this test's own replay loop:
//
//	CONV_CAPTURE=https://127.0.0.1:7643 CONV_PKI=/tmp/ref-ref16/pki \
//	  go test ./aggregator/aggregatortest -run TestAdmissionWebhookFaultsMatchReference
type faultWebhook struct {
	webhookCallLog
	armedMode
}

func (f *faultWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := f.record(r)
	mode := f.current()
	var rev struct {
		APIVersion string `json:"apiVersion"`
		Request    struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	_ = json.Unmarshal(b, &rev)
	writeJSON := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	resp := map[string]any{"uid": rev.Request.UID, "allowed": true}
	review := map[string]any{"apiVersion": rev.APIVersion, "kind": "AdmissionReview", "response": resp}
	reviewEnvelopeFault(review, mode, "ConversionReview")
	patch := func(p string) {
		resp["patchType"] = "JSONPatch"
		resp["patch"] = []byte(p)
	}
	switch mode {
	case "empty":
		return
	case "slow": // beyond the webhook's timeoutSeconds (2)
		t := time.NewTimer(3 * time.Second)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	case "yaml":
		j, _ := json.Marshal(review)
		y, _ := yaml.JSONToYAML(j)
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(y)
		return
	case "status-200":
		writeJSON(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success"})
		return
	case "upper-keys":
		writeJSON(map[string]any{"APIVersion": rev.APIVersion, "Kind": "AdmissionReview", "Response": map[string]any{"UID": rev.Request.UID, "Allowed": true}})
		return
	case "status-403":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"webhook forbids","reason":"Forbidden","code":403}`))
		return
	case "text-403":
		http.Error(w, "go away", http.StatusForbidden)
		return
	case "wronguid":
		resp["uid"] = "not-the-uid"
	case "v1beta1-answer":
		review["apiVersion"] = "admission.k8s.io/v1beta1"
	case "patch-no-type":
		resp["patch"] = []byte(`[{"op":"add","path":"/data","value":{"x":"y"}}]`)
	case "type-no-patch":
		resp["patchType"] = "JSONPatch"
	case "type-empty":
		resp["patchType"] = ""
		resp["patch"] = []byte(`[{"op":"add","path":"/data","value":{"x":"y"}}]`)
	case "type-merge":
		resp["patchType"] = "MergePatch"
		resp["patch"] = []byte(`{"data":{"x":"y"}}`)
	case "patch-not-json":
		patch(`not json`)
	case "patch-object":
		patch(`{"op":"add","path":"/data","value":{"x":"y"}}`)
	case "patch-missing-path":
		patch(`[{"op":"remove","path":"/metadata/annotations/nope"}]`)
	case "patch-remove-missing-key":
		patch(`[{"op":"remove","path":"/metadata/labels/nope"}]`)
	case "patch-replace-missing":
		patch(`[{"op":"replace","path":"/metadata/labels/nope","value":"x"}]`)
	case "patch-move-missing":
		patch(`[{"op":"move","from":"/metadata/labels/nope","path":"/metadata/labels/x"}]`)
	case "patch-bad-index":
		patch(`[{"op":"add","path":"/metadata/finalizers/5","value":"x"}]`)
	case "patch-test-fails":
		patch(`[{"op":"test","path":"/metadata/name","value":"other"}]`)
	case "patch-bad-op":
		patch(`[{"op":"frob","path":"/data"}]`)
	case "patch-no-op":
		patch(`[{"path":"/data","value":{"x":"y"}}]`)
	case "patch-bad-value":
		patch(`[{"op":"add","path":"/data","value":{"x":5}}]`)
	case "patch-unknown-field":
		patch(`[{"op":"add","path":"/bogus","value":1}]`)
	case "patch-kind":
		patch(`[{"op":"replace","path":"/kind","value":"Secret"}]`)
	case "patch-kind-bogus":
		patch(`[{"op":"replace","path":"/kind","value":"Bogus"}]`)
	case "patch-kind-list":
		patch(`[{"op":"replace","path":"/kind","value":"ConfigMapList"}]`)
	case "patch-apiversion":
		patch(`[{"op":"replace","path":"/apiVersion","value":"v2"}]`)
	case "patch-apiversion-apps":
		patch(`[{"op":"replace","path":"/apiVersion","value":"apps/v1"}]`)
	case "patch-name":
		patch(`[{"op":"replace","path":"/metadata/name","value":"renamed"}]`)
	case "cr-unknown":
		patch(`[{"op":"add","path":"/spec/bogus","value":1}]`)
	case "cr-metadata-unknown":
		patch(`[{"op":"add","path":"/metadata/bogus","value":1}]`)
	case "cr-badtype":
		patch(`[{"op":"replace","path":"/spec/a","value":"str"}]`)
	case "cr-rule":
		patch(`[{"op":"replace","path":"/spec/a","value":20}]`)
	case "cr-kind":
		patch(`[{"op":"replace","path":"/kind","value":"Other"}]`)
	case "cr-apiversion":
		patch(`[{"op":"replace","path":"/apiVersion","value":"adm.example.com/v2"}]`)
	case "cr-default":
		patch(`[{"op":"remove","path":"/spec/b"}]`)
	case "cr-name":
		patch(`[{"op":"replace","path":"/metadata/name","value":"renamed-thing"}]`)
	case "eq-label":
		if strings.HasPrefix(r.URL.Path, "/m") {
			patch(`[{"op":"add","path":"/metadata/labels/patched","value":"yes"}]`)
		}
	case "patch-empty":
		patch(`[]`)
	case "deny-code-0":
		resp["allowed"] = false
		resp["status"] = map[string]any{"message": "zero code"}
	case "deny-code-200":
		resp["allowed"] = false
		resp["status"] = map[string]any{"message": "ok code", "code": 200}
	case "deny-code-500":
		resp["allowed"] = false
		resp["status"] = map[string]any{"message": "server code", "code": 500, "reason": "InternalError"}
	case "deny-code-409-details":
		resp["allowed"] = false
		resp["status"] = map[string]any{"message": "with details", "code": 409, "reason": "Conflict",
			"details": map[string]any{"name": "x", "kind": "things", "causes": []any{map[string]any{"type": "FieldValueInvalid", "message": "bad", "field": "data.x"}}}}
	case "deny-status-success":
		resp["allowed"] = false
		resp["status"] = map[string]any{"status": "Success", "message": "says success"}
	case "deny-warn":
		resp["allowed"] = false
		resp["warnings"] = []string{"warned before denial"}
	case "allow-status":
		resp["status"] = map[string]any{"message": "allowed anyway", "code": 403}
	case "warn-long":
		resp["warnings"] = []string{strings.Repeat("long ", 300)}
	case "warn-many":
		ws := make([]string, 40)
		for i := range ws {
			ws[i] = strings.Repeat("w", 180) + string(rune('a'+i%26))
		}
		resp["warnings"] = ws
	case "warn-dup":
		resp["warnings"] = []string{"same", "same", "other"}
	case "warn-control":
		resp["warnings"] = []string{"line\nbreak\ttab", "", "  spaced  ", "quote \" and \\ backslash", "ünïcödé"}
	}
	writeJSON(review)
}

// TestAdmissionWebhookFaultsMatchReference replays
// webhooks/faults-steps.txt: a mutating and a validating webhook (chosen
// by the ConfigMap's labels m and v) answering badly in each way
// kube-apiserver 1.33.13 tells apart (AdmissionReview apiVersion/kind,
// response, uid, patch and patchType, patches that do not apply or give
// a bad object, denials with odd statuses, warnings beyond the limits),
// and compares codes, Warning headers, bodies and the reviews sent.
func TestAdmissionWebhookFaultsMatchReference(t *testing.T) {
	replayArmedSteps(t, webhookGoldenDir, "faults-steps.txt", "faults", "wh", &faultWebhook{}, true, 40, map[string]string{
		"m-patch-kind":            "a patch to kind Secret: upstream decodes a Secret and fails converting it (500 `converting (v1.Secret) to (core.ConfigMap): unknown conversion`); aggsim decodes into the resource's type and keeps the ConfigMap",
		"mb-patch-kind":           "as m-patch-kind",
		"m-patch-kind-list":       "as m-patch-kind (`converting (v1.ConfigMapList) to (core.ConfigMap)`)",
		"m-patch-kind-bogus":      "upstream: 500 InternalError `no kind \"Bogus\" is registered for version \"v1\" ...`; aggsim keeps the ConfigMap",
		"m-patch-apiversion":      "upstream: 500 InternalError `no kind \"ConfigMap\" is registered for version \"v2\" ...`; aggsim keeps the ConfigMap",
		"m-patch-apiversion-apps": "as m-patch-apiversion (`... for version \"apps/v1\" ...`)",
	})
}
