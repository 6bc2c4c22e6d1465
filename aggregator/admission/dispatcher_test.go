package admission

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

type fakeSource struct {
	mutating   []*admissionregistration.MutatingWebhookConfiguration
	validating []*admissionregistration.ValidatingWebhookConfiguration
	namespaces map[string]map[string]string
}

func (f *fakeSource) MutatingWebhookConfigurations(context.Context) ([]*admissionregistration.MutatingWebhookConfiguration, error) {
	return append([]*admissionregistration.MutatingWebhookConfiguration(nil), f.mutating...), nil
}

func (f *fakeSource) ValidatingWebhookConfigurations(context.Context) ([]*admissionregistration.ValidatingWebhookConfiguration, error) {
	return append([]*admissionregistration.ValidatingWebhookConfiguration(nil), f.validating...), nil
}

func (f *fakeSource) NamespaceLabels(_ context.Context, name string) (map[string]string, bool, error) {
	l, ok := f.namespaces[name]
	return l, ok, nil
}

var configMapInfo = registry.ResourceInfo{Version: "v1", Kind: "ConfigMap", Resource: "configmaps", Namespaced: true}

func ptr[T any](v T) *T { return &v }

func rule(ops []string, resources ...string) admissionregistration.RuleWithOperations {
	return admissionregistration.RuleWithOperations{Operations: ops,
		Rule: admissionregistration.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: resources}}
}

func TestRuleMatches(t *testing.T) {
	svcInfo := registry.ResourceInfo{Version: "v1", Kind: "Service", Resource: "services", Namespaced: true}
	nsInfo := registry.ResourceInfo{Version: "v1", Kind: "Namespace", Resource: "namespaces"}
	apisvc := registry.ResourceInfo{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService", Resource: "apiservices"}
	cases := []struct {
		name string
		r    admissionregistration.RuleWithOperations
		a    registry.AdmissionAttributes
		want bool
	}{
		{"exact", rule([]string{"CREATE"}, "services"), registry.AdmissionAttributes{Info: svcInfo, Operation: "CREATE", Namespace: "a"}, true},
		{"other operation", rule([]string{"CREATE"}, "services"), registry.AdmissionAttributes{Info: svcInfo, Operation: "DELETE", Namespace: "a"}, false},
		{"star operation", rule([]string{"*"}, "services"), registry.AdmissionAttributes{Info: svcInfo, Operation: "DELETE", Namespace: "a"}, true},
		{"resource does not match its subresource", rule([]string{"*"}, "services"), registry.AdmissionAttributes{Info: svcInfo, Operation: "UPDATE", Subresource: "status", Namespace: "a"}, false},
		{"*/status", rule([]string{"*"}, "*/status"), registry.AdmissionAttributes{Info: svcInfo, Operation: "UPDATE", Subresource: "status", Namespace: "a"}, true},
		{"*/status not main", rule([]string{"*"}, "*/status"), registry.AdmissionAttributes{Info: svcInfo, Operation: "UPDATE", Namespace: "a"}, false},
		{"services/*", rule([]string{"*"}, "services/*"), registry.AdmissionAttributes{Info: svcInfo, Operation: "UPDATE", Subresource: "status", Namespace: "a"}, true},
		{"*/*", rule([]string{"*"}, "*/*"), registry.AdmissionAttributes{Info: svcInfo, Operation: "UPDATE", Subresource: "status", Namespace: "a"}, true},
		{"* not subresource", rule([]string{"*"}, "*"), registry.AdmissionAttributes{Info: svcInfo, Operation: "UPDATE", Subresource: "status", Namespace: "a"}, false},
		{"Namespaced scope excludes namespace objects", withScope(rule([]string{"*"}, "*"), "Namespaced"), registry.AdmissionAttributes{Info: nsInfo, Operation: "CREATE", Namespace: "x", Name: "x"}, false},
		{"Cluster scope includes namespace objects", withScope(rule([]string{"*"}, "*"), "Cluster"), registry.AdmissionAttributes{Info: nsInfo, Operation: "CREATE", Namespace: "x", Name: "x"}, true},
		{"Cluster scope", withScope(rule([]string{"*"}, "*"), "Cluster"), registry.AdmissionAttributes{Info: apisvc, Operation: "CREATE"}, true},
		{"Cluster scope excludes namespaced", withScope(rule([]string{"*"}, "*"), "Cluster"), registry.AdmissionAttributes{Info: svcInfo, Operation: "CREATE", Namespace: "a"}, false},
		{"group mismatch", admissionregistration.RuleWithOperations{Operations: []string{"*"}, Rule: admissionregistration.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"*"}}}, registry.AdmissionAttributes{Info: apisvc, Operation: "CREATE"}, false},
	}
	for _, c := range cases {
		if got := ruleMatches(c.r, &c.a); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func withScope(r admissionregistration.RuleWithOperations, s string) admissionregistration.RuleWithOperations {
	r.Scope = &s
	return r
}

func TestExemptConfigurationResources(t *testing.T) {
	for _, r := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations", "validatingadmissionpolicies", "validatingadmissionpolicybindings"} {
		if !exempt(registry.ResourceInfo{Group: registry.GroupAdmissionRegistration, Resource: r}) {
			t.Errorf("%s not exempt", r)
		}
	}
	if exempt(configMapInfo) {
		t.Error("configmaps exempt")
	}
}

// The texts are kube-apiserver 1.33.13's (testdata/admission/webhooks:
// create-deny, create-denybare, create-denyreason).
func TestToStatusErr(t *testing.T) {
	cases := []struct {
		in   *meta.Status
		code int32
		msg  string
	}{
		{&meta.Status{Message: "nope, not today", Code: 403}, 403, `admission webhook "x.example.com" denied the request: nope, not today`},
		{nil, 400, `admission webhook "x.example.com" denied the request without explanation`},
		{&meta.Status{Reason: "NotAllowedHere", Code: 422}, 422, `admission webhook "x.example.com" denied the request: NotAllowedHere`},
		{&meta.Status{Message: "m", Code: 200, Status: "Success"}, 400, `admission webhook "x.example.com" denied the request: m`},
	}
	for _, c := range cases {
		e := toStatusErr("x.example.com", c.in)
		if e.Status.Code != c.code || e.Status.Message != c.msg || e.Status.Status != "Failure" {
			t.Errorf("%+v: got %d %q %q", c.in, e.Status.Code, e.Status.Message, e.Status.Status)
		}
	}
}

// webhookServer answers AdmissionReviews with f and counts the calls.
type webhookServer struct {
	*httptest.Server
	mu    sync.Mutex
	calls []string // request paths
	f     func(path string, req map[string]any) map[string]any
}

func newWebhookServer(t *testing.T, f func(path string, req map[string]any) map[string]any) *webhookServer {
	w := &webhookServer{f: f}
	w.Server = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var rev struct {
			APIVersion string         `json:"apiVersion"`
			Request    map[string]any `json:"request"`
		}
		_ = json.Unmarshal(b, &rev)
		w.mu.Lock()
		w.calls = append(w.calls, r.URL.Path)
		w.mu.Unlock()
		resp := w.f(r.URL.Path, rev.Request)
		resp["uid"] = rev.Request["uid"]
		_ = json.NewEncoder(rw).Encode(map[string]any{"apiVersion": rev.APIVersion, "kind": "AdmissionReview", "response": resp})
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *webhookServer) paths() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.calls, ",")
}

// sortedPaths is paths for validating webhooks, called in parallel.
func (w *webhookServer) sortedPaths() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := slices.Clone(w.calls)
	slices.Sort(c)
	return strings.Join(c, ",")
}

func (w *webhookServer) clientConfig(path string) admissionregistration.WebhookClientConfig {
	u := w.URL + path
	return admissionregistration.WebhookClientConfig{URL: &u, CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.Certificate().Raw})}
}

func mutatingHook(name string, cc admissionregistration.WebhookClientConfig, reinvoke string) admissionregistration.MutatingWebhook {
	w := admissionregistration.MutatingWebhook{Name: name, ClientConfig: cc, Rules: []admissionregistration.RuleWithOperations{rule([]string{"*"}, "*")},
		SideEffects: ptr("None"), AdmissionReviewVersions: []string{"v1"}}
	if reinvoke != "" {
		w.ReinvocationPolicy = &reinvoke
	}
	return w
}

func createAttrs(obj *core.ConfigMap) *registry.AdmissionAttributes {
	return &registry.AdmissionAttributes{Info: configMapInfo, Operation: "CREATE", Name: obj.Name, Namespace: obj.Namespace, Object: obj,
		Options: json.RawMessage(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}`),
		Decode: func(b []byte) (meta.Object, error) {
			o := &core.ConfigMap{}
			return o, json.Unmarshal(b, o)
		}}
}

// Upstream reinvokes, once, the IfNeeded webhooks that ran before a later
// webhook changed the object; a webhook whose own patch changed it is not
// reinvoked for that.
func TestMutatingReinvocation(t *testing.T) {
	srv := newWebhookServer(t, func(path string, req map[string]any) map[string]any {
		obj, _ := req["object"].(map[string]any)
		md, _ := obj["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		switch path {
		case "/a": // adds a=1 when missing
			if labels["a"] == nil {
				return map[string]any{"allowed": true, "patchType": "JSONPatch", "patch": []byte(`[{"op":"add","path":"/metadata/labels/a","value":"1"}]`)}
			}
		case "/b": // adds b=1 when missing
			if labels["b"] == nil {
				return map[string]any{"allowed": true, "patchType": "JSONPatch", "patch": []byte(`[{"op":"add","path":"/metadata/labels/b","value":"1"}]`)}
			}
		}
		return map[string]any{"allowed": true}
	})
	src := &fakeSource{mutating: []*admissionregistration.MutatingWebhookConfiguration{{
		ObjectMeta: meta.ObjectMeta{Name: "m"},
		Webhooks: []admissionregistration.MutatingWebhook{
			mutatingHook("first.example.com", srv.clientConfig("/first"), "IfNeeded"),
			mutatingHook("a.example.com", srv.clientConfig("/a"), "IfNeeded"),
			mutatingHook("never.example.com", srv.clientConfig("/never"), "Never"),
			mutatingHook("b.example.com", srv.clientConfig("/b"), ""),
		},
	}}}
	d := New(Options{Source: src})
	a := createAttrs(&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x", Namespace: "default", Labels: map[string]string{"z": "1"}}})
	if err := d.Mutate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	// first pass: first, a (changes: first → reinvoke), never, b (changes:
	// a → reinvoke); second pass: first, a.
	if got := srv.paths(); got != "/first,/a,/never,/b,/first,/a" {
		t.Fatalf("calls %s", got)
	}
	if l := a.Object.GetObjectMeta().Labels; l["a"] != "1" || l["b"] != "1" || l["z"] != "1" {
		t.Fatalf("labels %v", l)
	}
}

func TestValidatingSelectorsConditionsAndPolicies(t *testing.T) {
	srv := newWebhookServer(t, func(path string, _ map[string]any) map[string]any {
		if path == "/deny" {
			return map[string]any{"allowed": false, "status": map[string]any{"message": "no", "code": 403}}
		}
		return map[string]any{"allowed": true, "warnings": []string{"w" + path}}
	})
	hook := func(name, path string, mod func(*admissionregistration.ValidatingWebhook)) admissionregistration.ValidatingWebhook {
		w := admissionregistration.ValidatingWebhook{Name: name, ClientConfig: srv.clientConfig(path), Rules: []admissionregistration.RuleWithOperations{rule([]string{"CREATE"}, "configmaps")},
			SideEffects: ptr("None"), AdmissionReviewVersions: []string{"v1"}}
		mod(&w)
		return w
	}
	refusedURL := "https://127.0.0.1:1/"
	src := &fakeSource{namespaces: map[string]map[string]string{"default": {"kubernetes.io/metadata.name": "default"}, "other": {"kubernetes.io/metadata.name": "other"}}}
	src.validating = []*admissionregistration.ValidatingWebhookConfiguration{{ObjectMeta: meta.ObjectMeta{Name: "v"}, Webhooks: []admissionregistration.ValidatingWebhook{
		hook("ns.example.com", "/ns", func(w *admissionregistration.ValidatingWebhook) {
			w.NamespaceSelector = &meta.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "other"}}
		}),
		hook("obj.example.com", "/obj", func(w *admissionregistration.ValidatingWebhook) {
			w.ObjectSelector = &meta.LabelSelector{MatchLabels: map[string]string{"check": "yes"}}
		}),
		hook("cond.example.com", "/cond", func(w *admissionregistration.ValidatingWebhook) {
			w.MatchConditions = []admissionregistration.MatchCondition{{Name: "user", Expression: `request.userInfo.username != "" || object.metadata.name.startsWith("c-")`}}
		}),
		hook("ignored.example.com", "/ignored", func(w *admissionregistration.ValidatingWebhook) {
			w.ClientConfig.URL = &refusedURL
			w.FailurePolicy = ptr("Ignore")
		}),
		hook("condfail.example.com", "/condfail", func(w *admissionregistration.ValidatingWebhook) {
			w.MatchConditions = []admissionregistration.MatchCondition{{Name: "bad", Expression: `object.data.nokey == 'x'`}}
			w.FailurePolicy = ptr("Ignore")
		}),
	}}}
	d := New(Options{Source: src})
	var (
		wmu      sync.Mutex
		warnings []string
	)
	ctx := registry.WithWarningSink(context.Background(), func(s string) { wmu.Lock(); warnings = append(warnings, s); wmu.Unlock() })
	obj := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c-1", Namespace: "other", Labels: map[string]string{"check": "yes"}}}
	if err := d.Validate(ctx, createAttrs(obj)); err != nil {
		t.Fatal(err)
	}
	if got := srv.sortedPaths(); got != "/cond,/ns,/obj" {
		t.Fatalf("calls %s", got)
	}
	slices.Sort(warnings)
	if strings.Join(warnings, ",") != "w/cond,w/ns,w/obj" {
		t.Fatalf("warnings %q", warnings)
	}
	srv.mu.Lock()
	srv.calls = nil
	srv.mu.Unlock()
	obj = &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "d-1", Namespace: "default"}}
	if err := d.Validate(context.Background(), createAttrs(obj)); err != nil {
		t.Fatal(err)
	}
	if got := srv.paths(); got != "" {
		t.Fatalf("calls %s", got)
	}
	// a dry run reaches only webhooks without side effects
	src.validating[0].Webhooks[0].SideEffects = ptr("Some")
	a := createAttrs(&core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "c-2", Namespace: "other"}})
	a.DryRun = true
	err := d.Validate(context.Background(), a)
	var se *meta.StatusError
	if !errors.As(err, &se) || se.Status.Code != 400 || se.Status.Message != `admission webhook "ns.example.com" does not support dry run` {
		t.Fatalf("dry run: %v", err)
	}
}

func TestVerifyResponse(t *testing.T) {
	for _, c := range []struct {
		version  string
		mutating bool
		resp     string
		want     string
	}{
		{reviewV1, false, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, "webhook response was absent"},
		{reviewV1, false, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u2"}}`, `expected response.uid="u", got "u2"`},
		{reviewV1, false, `{"apiVersion":"v1","kind":"Status","response":{"uid":"u"}}`, "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /v1, Kind=Status"},
		{reviewV1, true, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patch":"W10="}}`, "webhook returned response.patch but not response.patchType"},
		{reviewV1, true, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patch":"W10=","patchType":"Merge"}}`, ""}, // refused when applied
		{reviewV1, true, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patch":"W10=","patchType":""}}`, `webhook returned invalid response.patchType of ""`},
		{reviewV1, true, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patchType":"JSONPatch"}}`, "webhook returned response.patchType but not response.patch"},
		{reviewV1beta1, false, `{"response":{"uid":"other","patch":"W10=","patchType":"JSONPatch"}}`, ""},
		{reviewV1, false, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patch":"W10=","patchType":"JSONPatch"}}`, "validating webhook may not return response.patch"},
		{reviewV1beta1, true, `{"response":{"uid":"u","patch":"W10="}}`, ""},
	} {
		var r admissionReviewResponse
		if err := json.Unmarshal([]byte(c.resp), &r); err != nil {
			t.Fatal(err)
		}
		err := verifyResponse(c.version, "u", c.mutating, &r)
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("%s: got %v, want %q", c.resp, err, c.want)
		}
	}
}

// TestDecodeJSONPatch: a webhook's JSONPatch is read and applied with
// json-patch v4's texts, as kube-apiserver 1.33.13 does (the first four
// as captured in testdata/admission/webhooks/faults: m-patch-not-json,
// m-patch-object, m-patch-bad-op, m-patch-no-op; the others are v4's).
func TestDecodeJSONPatch(t *testing.T) {
	for _, c := range []struct{ patch, want string }{
		{`not json`, "invalid character 'o' in literal null (expecting 'u')"},
		{`{"op":"add"}`, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
		{`[{"op":"frob","path":"/data"}]`, "Unexpected kind: frob"},
		{`[{"path":"/data","value":{"x":"y"}}]`, "Unexpected kind: unknown"},
		{` [1]`, "json: cannot unmarshal number into Go value of type jsonpatch.Operation"},
		{`[{"op":"remove","path":"/nope"},{"op":"frob"}]`, "error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value"},
		{`[{"op":"add","path":"/b","value":2},{"op":"frob"}]`, "Unexpected kind: frob"},
	} {
		p, err := decodeJSONPatch([]byte(c.patch))
		if err == nil {
			_, err = p.Apply([]byte(`{"a":1}`))
		}
		if fmt.Sprint(err) != c.want {
			t.Errorf("%s: got %v, want %q", c.patch, err, c.want)
		}
	}
	p, err := decodeJSONPatch([]byte(`[{"op":"add","path":"/b","value":2}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Apply([]byte(`{"a":1}`)); err != nil || string(got) != `{"a":1,"b":2}` {
		t.Fatalf("apply: %s, %v", got, err)
	}
}
