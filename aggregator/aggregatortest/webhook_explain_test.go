package aggregatortest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/admission"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// getText GETs path as the admin and returns the status code and body.
func getText(t *testing.T, s *Server, path, accept string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var (
	explainTimeRE    = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	explainPortRE    = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	explainLatencyRE = regexp.MustCompile(`in \d+\.\d ms`)
)

// normaliseExplain replaces what changes from run to run: times, ports,
// latencies.
func normaliseExplain(s string) string {
	s = explainTimeRE.ReplaceAllString(s, "TIME")
	s = explainPortRE.ReplaceAllString(s, "127.0.0.1:PORT")
	return explainLatencyRE.ReplaceAllString(s, "in N ms")
}

func denyBad(r *AdmissionRequest) AdmissionResponse {
	if r.Name == "bad" {
		return AdmissionResponse{Message: "bad is not allowed"}
	}
	return AdmissionResponse{Allowed: true}
}

func TestExplainWebhookReachable(t *testing.T) {
	s := Start(t)
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "deny.example.com", Handler: denyBad,
		ObjectSelector:  &meta.LabelSelector{MatchLabels: map[string]string{"team": "a"}, MatchExpressions: []meta.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"web", "db"}}}},
		MatchConditions: []admissionregistration.MatchCondition{{Name: "not-kube-system", Expression: `request.namespace != "kube-system"`}}})
	postConfigMap(t, s, `{"metadata":{"name":"bad","labels":{"team":"a","tier":"web"}}}`)
	postConfigMap(t, s, `{"metadata":{"name":"good","labels":{"team":"a","tier":"db"}}}`)
	code, got := getText(t, s, admission.DebugWebhooksPath+"/deny.example.com", "")
	want := `ValidatingWebhookConfiguration: deny.example.com
Webhook: deny.example.com
  Matches:      CREATE, UPDATE of configmaps in groups ["" (core)], versions [v1], scope *
  Namespaces:   all (no namespaceSelector)
  Objects:      team=a,tier in (web,db)
  Conditions:   not-kube-system: request.namespace != "kube-system"
  Policies:     matchPolicy Equivalent, failurePolicy Fail, sideEffects None, timeout 10s
  Calls:        POST https://deny-example-com.webhooks.svc:443/ (AdmissionReview v1)
  Service:      webhooks/deny-example-com:443
  Resolved:     127.0.0.1:PORT
  TLS:          ServerName deny-example-com.webhooks.svc, caBundle [CN=aggsim-backend-ca]
  Presented:    [0] CN=deny-example-com.webhooks.svc, SANs [deny-example-com.webhooks.svc, deny-example-com.webhooks.svc.cluster.local, localhost, 127.0.0.1, ::1], issued by CN=aggsim-backend-ca
  Verification: ok
  Reachable:    yes
  Advice:       none: the webhook answers TLS and its serving certificate verifies against clientConfig.caBundle for deny-example-com.webhooks.svc
  Last calls (newest first):
    TIME  CREATE configmaps default/good by aggsim-admin: allowed in N ms
    TIME  CREATE configmaps default/bad by aggsim-admin: denied in N ms
      admission webhook "deny.example.com" denied the request: bad is not allowed
`
	if code != http.StatusOK || normaliseExplain(got) != want {
		t.Fatalf("%d\n%s\nwant\n%s", code, normaliseExplain(got), want)
	}
}

// setCABundle replaces the caBundle of every webhook of the
// ValidatingWebhookConfiguration name.
func setCABundle(t *testing.T, s *Server, name string, pem []byte) {
	t.Helper()
	ctx := context.Background()
	store := s.Aggregator().API().Store(meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: "validatingwebhookconfigurations"})
	obj, err := store.Get(ctx, "", name)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(obj)
	var c admissionregistration.ValidatingWebhookConfiguration
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for i := range c.Webhooks {
		c.Webhooks[i].ClientConfig.CABundle = pem
	}
	raw, _ = json.Marshal(&c)
	o := store.Strategy().New()
	if err := json.Unmarshal(raw, o); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Update(ctx, o); err != nil {
		t.Fatal(err)
	}
}

func TestExplainWebhookWrongCABundle(t *testing.T) {
	s := Start(t)
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "deny.example.com", Handler: denyBad, TimeoutSeconds: 5, NamespaceSelector: onlyDefault,
		Rules: []admissionregistration.RuleWithOperations{{Operations: []string{"CREATE"}, Rule: admissionregistration.Rule{
			APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: ptrTo("Namespaced")}}}})
	ca, err := certs.NewCA("wrong-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	setCABundle(t, s, "deny.example.com", ca.CertPEM)
	code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"good"}}`)
	if code != http.StatusInternalServerError {
		t.Fatalf("create with a wrong caBundle: %d %s", code, body)
	}
	code, got := getText(t, s, admission.DebugWebhooksPath+"/deny.example.com/deny.example.com", "")
	want := `ValidatingWebhookConfiguration: deny.example.com
Webhook: deny.example.com
  Matches:      CREATE of configmaps in groups ["" (core)], versions [v1], scope Namespaced
  Namespaces:   kubernetes.io/metadata.name=default
  Objects:      all (no objectSelector)
  Conditions:   none
  Policies:     matchPolicy Equivalent, failurePolicy Fail, sideEffects None, timeout 5s
  Calls:        POST https://deny-example-com.webhooks.svc:443/ (AdmissionReview v1)
  Service:      webhooks/deny-example-com:443
  Resolved:     127.0.0.1:PORT
  TLS:          ServerName deny-example-com.webhooks.svc, caBundle [CN=wrong-ca]
  Presented:    [0] CN=deny-example-com.webhooks.svc, SANs [deny-example-com.webhooks.svc, deny-example-com.webhooks.svc.cluster.local, localhost, 127.0.0.1, ::1], issued by CN=aggsim-backend-ca
  Verification: the serving certificate is issued by "CN=aggsim-backend-ca", which is not in the caBundle
  Reachable:    no: the serving certificate does not verify; every call fails and failurePolicy Fail refuses the request with 500 InternalError: failed calling webhook "deny.example.com": failed to call webhook: Post "https://deny-example-com.webhooks.svc:443/?timeout=5s": tls: failed to verify certificate: ...
  Advice:       the serving certificate is issued by "CN=aggsim-backend-ca", which is not in the caBundle; put the PEM of the CA that signed it in clientConfig.caBundle
  Last calls (newest first):
    TIME  CREATE configmaps default/good by aggsim-admin: error in N ms
      request refused (failurePolicy Fail): failed calling webhook "deny.example.com": failed to call webhook: Post "https://deny-example-com.webhooks.svc:443/?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority
`
	if code != http.StatusOK || normaliseExplain(got) != want {
		t.Fatalf("%d\n%s\nwant\n%s", code, normaliseExplain(got), want)
	}
}

// onlyDefault keeps a webhook to the default namespace, away from
// aggsim's own writes in kube-system.
var onlyDefault = &meta.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "default"}}

func ptrTo[T any](v T) *T { return &v }

func TestExplainWebhookMissingService(t *testing.T) {
	s := Start(t)
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "deny.example.com", Handler: denyBad, FailurePolicy: "Ignore", NamespaceSelector: onlyDefault})
	if _, err := s.Aggregator().API().Store(meta.GroupResource{Resource: "services"}).Delete(context.Background(), "webhooks", "deny-example-com", nil); err != nil {
		t.Fatal(err)
	}
	// the resolver learns of the deletion from its watch
	for i := 0; ; i++ {
		es, err := s.Aggregator().ExplainWebhookConfiguration(context.Background(), "deny.example.com", "")
		if err != nil {
			t.Fatal(err)
		}
		if es[0].Webhooks[0].Address == "" {
			break
		}
		if i == 500 {
			t.Fatal("the Service still resolves 5 s after its deletion")
		}
		time.Sleep(10 * time.Millisecond)
	}
	code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"bad"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create under Ignore with no Service: %d %s", code, body)
	}
	code, got := getText(t, s, admission.DebugWebhooksPath+"/deny.example.com", "")
	want := `ValidatingWebhookConfiguration: deny.example.com
Webhook: deny.example.com
  Matches:      CREATE, UPDATE of configmaps in groups ["" (core)], versions [v1], scope *
  Namespaces:   kubernetes.io/metadata.name=default
  Objects:      all (no objectSelector)
  Conditions:   none
  Policies:     matchPolicy Equivalent, failurePolicy Ignore, sideEffects None, timeout 10s
  Calls:        POST https://deny-example-com.webhooks.svc:443/ (AdmissionReview v1)
  Service:      webhooks/deny-example-com:443
  TLS:          ServerName deny-example-com.webhooks.svc, caBundle [CN=aggsim-backend-ca]
  Reachable:    no: service "deny-example-com" not found in namespace "webhooks"; every call fails and failurePolicy Ignore lets the request through unchecked: failed calling webhook "deny.example.com": failed to call webhook: Post "https://deny-example-com.webhooks.svc:443/?timeout=10s": service "deny-example-com" not found
  Advice:       create Service webhooks/deny-example-com with port 443 and its Endpoints (aggsim runs no endpoints controller), or point clientConfig.service at an existing Service
  Last calls (newest first):
    TIME  CREATE configmaps default/bad by aggsim-admin: error in N ms
      request let through (failurePolicy Ignore): failed calling webhook "deny.example.com": failed to call webhook: Post "https://deny-example-com.webhooks.svc:443/?timeout=10s": service "deny-example-com" not found
`
	if code != http.StatusOK || normaliseExplain(got) != want {
		t.Fatalf("%d\n%s\nwant\n%s", code, normaliseExplain(got), want)
	}
	code, got = getText(t, s, admission.DebugWebhooksPath+"/nope.example.com", "")
	if code != http.StatusNotFound || !strings.Contains(got, `validatingwebhookconfigurations.admissionregistration.k8s.io \"nope.example.com\" not found`) {
		t.Fatalf("unknown configuration: %d %s", code, got)
	}
}

// postJSON POSTs body to path as the admin and returns the status code
// and the body.
func postJSON(t *testing.T, s *Server, path, body string) (int, string) {
	t.Helper()
	resp, err := s.Client().Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestExplainLastDenied(t *testing.T) {
	s := Start(t)
	code, got := getText(t, s, "/debug/aggsim/admission/refusals", "")
	if code != http.StatusOK || got != "No request was refused by an admission webhook or a ValidatingAdmissionPolicy since aggsim started.\n" {
		t.Fatalf("no refusals: %d %q", code, got)
	}
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "deny.example.com", Handler: denyBad, NamespaceSelector: onlyDefault})
	const vap = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	if code, body := postJSON(t, s, vap, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"no-taken-names"},
		"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
		"validations":[{"expression":"object.metadata.name != 'taken'","message":"the name taken is taken"}]}}`); code != http.StatusCreated {
		t.Fatalf("create policy: %d %s", code, body)
	}
	if code, body := postJSON(t, s, "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"no-taken-names-binding"},
		"spec":{"policyName":"no-taken-names","validationActions":["Deny"]}}`); code != http.StatusCreated {
		t.Fatalf("create binding: %d %s", code, body)
	}
	if code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"bad"}}`); code != http.StatusForbidden {
		t.Fatalf("webhook denial: %d %s", code, body)
	}
	if code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"taken"}}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("policy denial: %d %s", code, body)
	}
	if code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"fine"}}`); code != http.StatusCreated {
		t.Fatalf("allowed: %d %s", code, body)
	}
	code, got = getText(t, s, "/debug/aggsim/admission/refusals", "")
	want := `TIME  refused by ValidatingAdmissionPolicy no-taken-names (binding no-taken-names-binding)
  Request:  CREATE configmaps default/taken by aggsim-admin
  Answer:   422 configmaps "taken" is forbidden: ValidatingAdmissionPolicy 'no-taken-names' with binding 'no-taken-names-binding' denied request: the name taken is taken

TIME  refused by webhook deny.example.com (ValidatingWebhookConfiguration deny.example.com; denied)
  Request:  CREATE configmaps default/bad by aggsim-admin
  Answer:   403 admission webhook "deny.example.com" denied the request: bad is not allowed
  Explain:  aggsim explain webhook deny.example.com/deny.example.com
`
	if code != http.StatusOK || normaliseExplain(got) != want {
		t.Fatalf("%d\n%s\nwant\n%s", code, normaliseExplain(got), want)
	}
	code, got = getText(t, s, aggregator.DebugAdmissionPath, "")
	want = `KIND        CONFIGURATION     WEBHOOK           FAILUREPOLICY  CALLS  LAST CALL
Validating  deny.example.com  deny.example.com  Fail           2      allowed CREATE configmaps at TIME

POLICY          FAILUREPOLICY  BINDINGS                       REFUSALS
no-taken-names  Fail           no-taken-names-binding (Deny)  1

Refusals kept: 2 (aggsim explain webhook --last-denied); one webhook: aggsim explain webhook CONFIGURATION[/WEBHOOK]
`
	if code != http.StatusOK || normaliseExplain(got) != want {
		t.Fatalf("overview: %d\n%s\nwant\n%s", code, normaliseExplain(got), want)
	}
	code, got = getText(t, s, "/debug/aggsim/admission/refusals", "application/json")
	var page struct {
		Refusals []admission.Refusal `json:"refusals"`
	}
	if err := json.Unmarshal([]byte(got), &page); err != nil || code != http.StatusOK || len(page.Refusals) != 2 ||
		page.Refusals[1].By != "webhook" || page.Refusals[1].Code != 403 || page.Refusals[0].Policy != "no-taken-names" || page.Refusals[0].Name != "taken" {
		t.Fatalf("json: %d %v %s", code, err, got)
	}
}

func TestExplainWebhookMutatingPatched(t *testing.T) {
	s := Start(t)
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "label.example.com", Mutating: true, NamespaceSelector: onlyDefault, ByURL: true,
		Handler: func(r *AdmissionRequest) AdmissionResponse {
			return AdmissionResponse{Allowed: true, Patch: []byte(`[{"op":"add","path":"/data","value":{"k":"v"}}]`)}
		}})
	if code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"p"}}`); code != http.StatusCreated || !strings.Contains(body, `"data":{"k":"v"}`) {
		t.Fatalf("create: %d %s", code, body)
	}
	code, got := getText(t, s, admission.DebugWebhooksPath+"/label.example.com", "")
	want := `MutatingWebhookConfiguration: label.example.com
Webhook: label.example.com
  Matches:      CREATE, UPDATE of configmaps in groups ["" (core)], versions [v1], scope *
  Namespaces:   kubernetes.io/metadata.name=default
  Objects:      all (no objectSelector)
  Conditions:   none
  Policies:     matchPolicy Equivalent, failurePolicy Fail, sideEffects None, timeout 10s, reinvocationPolicy Never
  Calls:        POST https://127.0.0.1:PORT/ (AdmissionReview v1)
  Resolved:     127.0.0.1:PORT
  TLS:          ServerName 127.0.0.1, caBundle [CN=aggsim-backend-ca]
  Presented:    [0] CN=label-example-com.webhooks.svc, SANs [label-example-com.webhooks.svc, label-example-com.webhooks.svc.cluster.local, localhost, 127.0.0.1, ::1], issued by CN=aggsim-backend-ca
  Verification: ok
  Reachable:    yes
  Advice:       none: the webhook answers TLS and its serving certificate verifies against clientConfig.caBundle for 127.0.0.1
  Last calls (newest first):
    TIME  CREATE configmaps default/p by aggsim-admin: patched in N ms
`
	if code != http.StatusOK || normaliseExplain(got) != want {
		t.Fatalf("%d\n%s\nwant\n%s", code, normaliseExplain(got), want)
	}
}

// TestExplainWebhookAuthorized: with RBAC, a user without rights on the
// non-resource path gets upstream's 403, as for every /debug/aggsim path.
func TestExplainWebhookAuthorized(t *testing.T) {
	s := Start(t, WithAggregatorOptions(func(o *aggregator.Options) { o.AuthorizationMode = "RBAC" }))
	for _, path := range []string{admission.DebugWebhooksPath + "/x.example.com", "/debug/aggsim/admission/refusals", "/debug/aggsim/admission"} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("Impersonate-User", "jane")
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"jane\" cannot get path \"` + path + `\"","reason":"Forbidden","details":{},"code":403}` + "\n"
		if resp.StatusCode != http.StatusForbidden || string(b) != want {
			t.Errorf("%s as jane: %d %s", path, resp.StatusCode, b)
		}
	}
}
