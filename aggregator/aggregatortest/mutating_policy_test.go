package aggregatortest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator"
)

const (
	mapPath  = "/apis/admissionregistration.k8s.io/v1alpha1/mutatingadmissionpolicies"
	mapbPath = "/apis/admissionregistration.k8s.io/v1alpha1/mutatingadmissionpolicybindings"
)

// addPolicy creates a MutatingAdmissionPolicy named name for CREATE of
// configmaps with the given extra spec fields and mutations, and its
// binding (bindingSpec extra fields).
func addPolicy(t *testing.T, s *Server, name, reinvocation, extraSpec, mutations, bindingSpec string) {
	t.Helper()
	if code, body := postJSON(t, s, mapPath, `{"apiVersion":"admissionregistration.k8s.io/v1alpha1","kind":"MutatingAdmissionPolicy","metadata":{"name":"`+name+`"},
		"spec":{`+extraSpec+`"reinvocationPolicy":"`+reinvocation+`","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
		"mutations":`+mutations+`}}`); code != http.StatusCreated {
		t.Fatalf("policy %s: %d %s", name, code, body)
	}
	if code, body := postJSON(t, s, mapbPath, `{"apiVersion":"admissionregistration.k8s.io/v1alpha1","kind":"MutatingAdmissionPolicyBinding","metadata":{"name":"`+name+`"},
		"spec":{`+bindingSpec+`"policyName":"`+name+`"}}`); code != http.StatusCreated {
		t.Fatalf("binding %s: %d %s", name, code, body)
	}
}

func labelsOf(t *testing.T, body string) map[string]string {
	t.Helper()
	var o struct {
		Metadata struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if o.Metadata.Labels == nil {
		o.Metadata.Labels = map[string]string{}
	}
	for k, v := range o.Metadata.Annotations {
		o.Metadata.Labels["annotation:"+k] = v
	}
	return o.Metadata.Labels
}

// Without the flags, admissionregistration.k8s.io/v1alpha1 is not served
// (kube-apiserver 1.33.13 started without them: /apis/admissionregistration.k8s.io
// lists v1 only; GET .../v1alpha1 and .../v1alpha1/mutatingadmissionpolicies
// answer 404 "the server could not find the requested resource").
func TestMutatingAdmissionPolicyOffByDefault(t *testing.T) {
	s := Start(t)
	code, body := getText(t, s, "/apis/admissionregistration.k8s.io", "application/json")
	if code != http.StatusOK || strings.Contains(body, "v1alpha1") {
		t.Fatalf("group: %d %s", code, body)
	}
	for _, p := range []string{"/apis/admissionregistration.k8s.io/v1alpha1", mapPath} {
		code, body := getText(t, s, p, "application/json")
		if code != http.StatusNotFound || !strings.Contains(body, `"message":"the server could not find the requested resource"`) {
			t.Errorf("%s: %d %s", p, code, body)
		}
	}
}

// With --runtime-config alone, kube-apiserver 1.33.13 serves the
// resources (discovery lists both) but the admission plugin is off: a
// bound policy changes nothing (up.sh with
// EXTRA_APISERVER_FLAGS=--runtime-config=admissionregistration.k8s.io/v1alpha1=true;
// kubectl apply -f testdata/admission/mutating-policies/kubectl/policy.yaml;
// kubectl create -f .../configmap.yaml -o jsonpath='{.metadata.labels}'
// printed {"e2e":"yes"}).
func TestMutatingAdmissionPolicyAPIWithoutGate(t *testing.T) {
	s := Start(t, WithAggregatorOptions(func(o *aggregator.Options) {
		o.RuntimeConfig = map[string]bool{aggregator.GroupVersionAdmissionRegistrationV1Alpha1: true}
	}))
	addPolicy(t, s, "add-label", "Never", "", `[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}"}}]`, "")
	code, body := postJSON(t, s, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c1","labels":{"a":"b"}}}`)
	if code != http.StatusCreated || labelsOf(t, body)["mutated"] != "" {
		t.Fatalf("%d %s", code, body)
	}
}

// Upstream's plugin order (kube-apiserver 1.33.13 logs "Loaded 13 mutating
// admission controller(s) successfully in the following order: ...,
// MutatingAdmissionPolicy,MutatingAdmissionWebhook"): a mutating webhook
// receives the object the policy changed; a policy with
// reinvocationPolicy IfNeeded runs again after the webhook changed the
// object, one with Never does not.
func TestMutatingAdmissionPolicyBeforeWebhooksAndReinvoked(t *testing.T) {
	s := Start(t, withMutatingAdmissionPolicy())
	// counts how often it ran, in a label: 1, then "1" + "1"...
	addPolicy(t, s, "count", "IfNeeded", "", `[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {'count': ('count' in object.metadata.labels ? object.metadata.labels['count'] : '') + '1'}}}"}}]`, "")
	addPolicy(t, s, "once", "Never", "", `[{"patchType":"JSONPatch","jsonPatch":{"expression":"[JSONPatch{op: 'add', path: '/metadata/labels/once', value: ('once' in object.metadata.labels ? object.metadata.labels['once'] : '') + '1'}]"}}]`, "")
	wh := s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "mutate.example.com", Mutating: true, Handler: func(r *AdmissionRequest) AdmissionResponse {
		if strings.Contains(string(r.Object), `"webhook"`) {
			return AdmissionResponse{Allowed: true}
		}
		return AdmissionResponse{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/webhook","value":"yes"}]`)}
	}})
	code, body := postJSON(t, s, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c1","labels":{"a":"b"}}}`)
	if code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	got := labelsOf(t, body)
	if got["count"] != "11" || got["once"] != "1" || got["webhook"] != "yes" {
		t.Errorf("labels %v, want count=11 (reinvoked once), once=1, webhook=yes", got)
	}
	reqs := wh.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Object), `"count":"1"`) || !strings.Contains(string(reqs[0].Object), `"once":"1"`) {
		t.Fatalf("webhook saw %d requests, first %s", len(reqs), reqs[0].Object)
	}
}

// Params: a namespaced paramKind with paramRef by name. (kube-apiserver
// 1.33.13 answered "no params found for policy binding with `Deny`
// parameterNotFoundAction" even with the ConfigMap present, in the
// capture's namespace and in the request's; aggsim resolves params as
// for ValidatingAdmissionPolicies, see README.)
func TestMutatingAdmissionPolicyParams(t *testing.T) {
	s := Start(t, withMutatingAdmissionPolicy())
	if code, body := postJSON(t, s, "/api/v1/namespaces/kube-public/configmaps", `{"metadata":{"name":"defaults"},"data":{"team":"pizza"}}`); code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	addPolicy(t, s, "with-params", "Never", `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},`,
		`[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{annotations: params.data}}"}}]`,
		`"paramRef":{"name":"defaults","namespace":"kube-public"},`)
	code, body := postJSON(t, s, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c1","labels":{}}}`)
	if code != http.StatusCreated || labelsOf(t, body)["annotation:team"] != "pizza" {
		t.Fatalf("%d %s", code, body)
	}
}

// aggsim's own record (upstream has none): a refusal by a
// MutatingAdmissionPolicy is listed by `aggsim explain webhook
// --last-denied` with the policy's kind and name, and the overview lists
// the policy with its bindings and refusals.
func TestExplainMutatingAdmissionPolicyRefusal(t *testing.T) {
	s := Start(t, withMutatingAdmissionPolicy())
	addPolicy(t, s, "fail-expr", "Never", "", `[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{data: {'x': object.data.missing}}"}}]`, "")
	code, body := postJSON(t, s, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"c1"}}`)
	const msg = "policy 'fail-expr' with binding 'fail-expr' denied request: expression 'Object{data: {'x': object.data.missing}}' resulted in error: no such key: data"
	if code != http.StatusForbidden || !strings.Contains(body, `"message":"`+msg+`"`) {
		t.Fatalf("%d %s", code, body)
	}
	_, got := getText(t, s, "/debug/aggsim/admission/refusals", "")
	lines := strings.Split(got, "\n")
	if len(lines) < 3 || !strings.HasSuffix(lines[0], "  refused by MutatingAdmissionPolicy fail-expr (binding fail-expr)") ||
		lines[1] != "  Request:  CREATE configmaps default/c1 by aggsim-admin" || lines[2] != "  Answer:   403 "+msg {
		t.Fatalf("refusals:\n%s", got)
	}
	_, got = getText(t, s, "/debug/aggsim/admission", "")
	if !strings.Contains(got, "MUTATING POLICY  FAILUREPOLICY  BINDINGS   REFUSALS\nfail-expr        Fail           fail-expr  1\n") {
		t.Fatalf("overview:\n%s", got)
	}
}
