package demo

// Tests of the demo backend through a real TLS listener, as the aggregator
// reaches it. Invariants checked:
//   - only a front-proxy certificate from the configured CA with an allowed
//     CN and an X-Remote-User authenticates; everything else is 401 Status;
//   - the discovery documents are exact;
//   - both versions share one storage (create in v1alpha1, read in v1beta1);
//   - the Recorder sees the front-proxy headers as sent, with the user.

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
	"github.com/aggsim/aggsim/registry/storage"
)

var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

type fixture struct {
	b      *Backend
	url    string
	proxy  *http.Client // front-proxy-client cert
	wrong  *http.Client // CN=intruder from the front-proxy CA
	other  *http.Client // front-proxy-client from another CA
	noCert *http.Client
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	fpCA, err := certs.NewCA("front-proxy-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := certs.NewCA("other", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: "api", Namespace: "wardle"})
	if err != nil {
		t.Fatal(err)
	}
	serving, err := bc.Serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(Options{
		GetCertificate:        StaticCertificate(serving),
		RequestHeaderClientCA: fpCA.Pool,
		Clock:                 func() time.Time { return testNow },
		RecordLimit:           5,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	client := func(ca *certs.CA, cn string) *http.Client {
		cfg := &tls.Config{RootCAs: bc.CA.Pool(), ServerName: "api.wardle.svc"}
		if ca != nil {
			kp, err := ca.IssueClient(cn, nil)
			if err != nil {
				t.Fatal(err)
			}
			c, err := kp.TLSCertificate()
			if err != nil {
				t.Fatal(err)
			}
			cfg.Certificates = []tls.Certificate{c}
		}
		tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	return &fixture{
		b: b, url: b.URL(),
		proxy: client(fpCA, "front-proxy-client"), wrong: client(fpCA, "intruder"),
		other: client(otherCA, "front-proxy-client"), noCert: client(nil, ""),
	}
}

// do sends a request; hdr are header name/value pairs (repeatable).
func (f *fixture) do(t *testing.T, c *http.Client, method, path, body string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"

func TestAuthentication(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name     string
		client   *http.Client
		hdr      []string
		wantCode int
	}{
		{"front proxy with user", f.proxy, []string{"X-Remote-User", "alice"}, 200},
		{"front proxy without user", f.proxy, nil, 401},
		{"no client certificate", f.noCert, []string{"X-Remote-User", "alice"}, 401},
		{"CN not allowed", f.wrong, []string{"X-Remote-User", "alice"}, 401},
		{"other CA", f.other, []string{"X-Remote-User", "alice"}, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := f.do(t, tc.client, "GET", "/apis/wardle.example.com/v1alpha1", "", tc.hdr...)
			if code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", code, tc.wantCode, body)
			}
			if code == 401 && body != unauthorized {
				t.Errorf("body %q, want %q", body, unauthorized)
			}
		})
	}
	code, _, body := f.do(t, f.noCert, "GET", "/healthz", "")
	if code != 200 || body != "ok" {
		t.Errorf("/healthz without credentials: %d %q", code, body)
	}
}

func TestDiscovery(t *testing.T) {
	f := newFixture(t)
	as := []string{"X-Remote-User", "system:kube-aggregator", "X-Remote-Group", "system:masters"}
	for _, tc := range []struct{ path, want string }{
		{"/apis", `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"wardle.example.com","versions":[{"groupVersion":"wardle.example.com/v1beta1","version":"v1beta1"},{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"wardle.example.com/v1beta1","version":"v1beta1"}}]}` + "\n"},
		{"/apis/wardle.example.com", `{"kind":"APIGroup","apiVersion":"v1","name":"wardle.example.com","versions":[{"groupVersion":"wardle.example.com/v1beta1","version":"v1beta1"},{"groupVersion":"wardle.example.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"wardle.example.com/v1beta1","version":"v1beta1"}}` + "\n"},
		{"/apis/wardle.example.com/v1alpha1", `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1alpha1","resources":[` +
			`{"name":"fischers","singularName":"fischer","namespaced":false,"kind":"Fischer","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"` + meta.StorageVersionHash(Group, V1alpha1, "Fischer") + `"},` +
			`{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["fl"],"categories":["all"],"storageVersionHash":"` + meta.StorageVersionHash(Group, V1alpha1, "Flunder") + `"},` +
			`{"name":"flunders/status","singularName":"","namespaced":true,"kind":"Flunder","verbs":["get","patch","update"]}]}` + "\n"},
		{"/apis/wardle.example.com/v1beta1", `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1beta1","resources":[` +
			`{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["fl"],"categories":["all"],"storageVersionHash":"` + meta.StorageVersionHash(Group, V1beta1, "Flunder") + `"},` +
			`{"name":"flunders/status","singularName":"","namespaced":true,"kind":"Flunder","verbs":["get","patch","update"]}]}` + "\n"},
	} {
		code, h, body := f.do(t, f.proxy, "GET", tc.path, "", as...)
		if code != 200 || body != tc.want || h.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s %s\nwant %s", tc.path, code, h.Get("Content-Type"), body, tc.want)
		}
	}
	if code, _, body := f.do(t, f.proxy, "POST", "/apis", "{}", as...); code != 405 || !strings.Contains(body, `"reason":"MethodNotAllowed"`) {
		t.Errorf("POST /apis: %d %s", code, body)
	}
}

func TestFlunderCRUDAcrossVersions(t *testing.T) {
	f := newFixture(t)
	as := []string{"X-Remote-User", "alice"}
	code, _, body := f.do(t, f.proxy, "POST", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders",
		`{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder","metadata":{"name":"f1"},"spec":{"reference":"x","referenceType":"Fischer"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`, as...)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var created Flunder
	if err := json.Unmarshal([]byte(body), &created); err != nil {
		t.Fatal(err)
	}
	if len(created.Status.Conditions) != 0 || created.Generation != 1 || created.Spec.ReferenceType != FischerReferenceType {
		t.Errorf("created %+v: status must be cleared, generation 1", created)
	}
	code, _, body = f.do(t, f.proxy, "GET", "/apis/wardle.example.com/v1beta1/namespaces/default/flunders/f1", "", as...)
	if code != 200 || !strings.Contains(body, `"kind":"Flunder","apiVersion":"wardle.example.com/v1beta1"`) || !strings.Contains(body, `"spec":{"reference":"x","referenceType":"Fischer"}`) {
		t.Errorf("get through v1beta1: %d %s", code, body)
	}
	code, _, body = f.do(t, f.proxy, "GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", "", append(as, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")...)
	if code != 200 || !strings.Contains(body, `"columnDefinitions":[{"name":"Name","type":"string","format":"name"`) || !strings.Contains(body, `"cells":["f1","0s"]`) {
		t.Errorf("table: %d %s", code, body)
	}
	code, _, body = f.do(t, f.proxy, "POST", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders",
		`{"apiVersion":"wardle.example.com/v1alpha1","kind":"Flunder","metadata":{"name":"f2"},"spec":{"referenceType":"Bogus"}}`, as...)
	if code != 422 || !strings.Contains(body, `spec.referenceType: Unsupported value: \"Bogus\": supported values: \"Fischer\", \"Flunder\"`) {
		t.Errorf("invalid create: %d %s", code, body)
	}
	code, _, body = f.do(t, f.proxy, "DELETE", "/apis/wardle.example.com/v1beta1/namespaces/default/flunders/f1", "", as...)
	if code != 200 {
		t.Errorf("delete: %d %s", code, body)
	}
	if code, _, _ = f.do(t, f.proxy, "GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/f1", "", as...); code != 404 {
		t.Errorf("get after delete: %d", code)
	}
}

func TestRecorder(t *testing.T) {
	f := newFixture(t)
	f.do(t, f.noCert, "GET", "/apis", "")
	f.do(t, f.proxy, "GET", "/apis/wardle.example.com/v1alpha1/fischers", "", "X-Remote-User", "jane", "X-Remote-Group", "devs", "X-Remote-Group", "system:authenticated")
	code, _, body := f.do(t, f.proxy, "GET", DebugRequestsPath, "", "X-Remote-User", "inspector")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var list RequestList
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 {
		t.Fatalf("%d records, want 2 (the /debug/requests call is not recorded): %s", len(list.Items), body)
	}
	anon, jane := list.Items[0], list.Items[1]
	if anon.Authenticated || anon.User != "" || anon.Path != "/apis" || anon.ClientCertCN != "" {
		t.Errorf("unauthenticated record %+v", anon)
	}
	if !jane.Authenticated || jane.User != "jane" || strings.Join(jane.Groups, ",") != "devs,system:authenticated" ||
		jane.ClientCertCN != "front-proxy-client" || jane.Method != "GET" || jane.Path != "/apis/wardle.example.com/v1alpha1/fischers" ||
		strings.Join(jane.Header.Values("X-Remote-Group"), ",") != "devs,system:authenticated" || jane.Header.Get("X-Remote-User") != "jane" {
		t.Errorf("jane's record %+v", jane)
	}
	// ?user= filters; the limit keeps the newest.
	for i := 0; i < 6; i++ {
		f.do(t, f.proxy, "GET", "/apis", "", "X-Remote-User", "bob")
	}
	_, _, body = f.do(t, f.proxy, "GET", DebugRequestsPath+"?user=jane", "", "X-Remote-User", "inspector")
	if strings.TrimSpace(body) != "{\n  \"items\": []\n}" {
		t.Errorf("jane's record should have been pushed out by the limit of 5: %s", body)
	}
	if got := len(f.b.Recorder().Requests()); got != 5 {
		t.Errorf("%d records kept, want 5", got)
	}
	if code, _, _ := f.do(t, f.noCert, "GET", DebugRequestsPath, ""); code != 401 {
		t.Errorf("/debug/requests without credentials: %d, want 401", code)
	}
}

func TestValidateFlunder(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec FlunderSpec
		want string
	}{
		{"empty", FlunderSpec{}, ""},
		{"flunder ref", FlunderSpec{Reference: "a", ReferenceType: FlunderReferenceType}, ""},
		{"reference without type", FlunderSpec{Reference: "a"}, `spec.reference: Invalid value: "a": cannot be set if referenceType is empty`},
		{"type without reference", FlunderSpec{ReferenceType: FischerReferenceType}, `spec.reference: Required value: must be set if referenceType is Fischer`},
		{"bad type", FlunderSpec{Reference: "a", ReferenceType: "x"}, `spec.referenceType: Unsupported value: "x": supported values: "Fischer", "Flunder"`},
	} {
		errs := ValidateFlunder(&Flunder{ObjectMeta: meta.ObjectMeta{Name: "ok"}, Spec: tc.spec})
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, strings.Join(got, "; "), tc.want)
		}
	}
	if errs := ValidateFischer(&Fischer{ObjectMeta: meta.ObjectMeta{Name: "Bad_Name"}, DisallowedFlunders: []string{"ok", "NO"}}); len(errs) != 2 ||
		errs[0].Field != "metadata.name" || errs[1].Field != "disallowedFlunders[1]" {
		t.Errorf("ValidateFischer: %v", errs)
	}
}

func testRegistryAPI(t *testing.T) *rest.API {
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	api := rest.NewAPI(st, registry.Strategies(func() time.Time { return testNow }), registry.StoreOptions{})
	t.Cleanup(api.Shutdown)
	return api
}

func TestApplyRegistration(t *testing.T) {
	api := testRegistryAPI(t)
	ctx := context.Background()
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: "api", Namespace: "wardle"})
	if err != nil {
		t.Fatal(err)
	}
	ca := bc.CA.CertPEM
	if err := Apply(ctx, api, Registration(40001, ca)); err != nil {
		t.Fatal(err)
	}
	// A restart: same objects, another port. Apply converges.
	if err := Apply(ctx, api, Registration(40002, ca)); err != nil {
		t.Fatal(err)
	}
	ep, err := api.Store(meta.GroupResource{Resource: "endpoints"}).Get(ctx, Namespace, ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	if p := ep.(*core.Endpoints).Subsets[0].Ports[0]; p.Port != 40002 || p.Name != "https" || ep.(*core.Endpoints).Subsets[0].Addresses[0].IP != "127.0.0.1" {
		t.Errorf("endpoints %+v", ep)
	}
	svc, err := api.Store(meta.GroupResource{Resource: "services"}).Get(ctx, Namespace, ServiceName)
	if err != nil {
		t.Fatal(err)
	}
	if p := svc.(*core.Service).Spec.Ports[0]; p.Port != 443 || p.Name != "https" || p.TargetPort.IntVal != 40002 || svc.(*core.Service).Spec.Type != "ClusterIP" {
		t.Errorf("service %+v", svc)
	}
	apisvcs := api.Store(meta.GroupResource{Group: apiregistration.GroupAPIRegistration, Resource: "apiservices"})
	for i, name := range APIServiceNames() {
		obj, err := apisvcs.Get(ctx, "", name)
		if err != nil {
			t.Fatal(err)
		}
		a := obj.(*apiregistration.APIService)
		wantVP := []int32{15, 10}[i]
		if a.Spec.Service == nil || a.Spec.Service.Name != "api" || a.Spec.Service.Namespace != "wardle" || *a.Spec.Service.Port != 443 ||
			string(a.Spec.CABundle) != string(ca) || a.Spec.InsecureSkipTLSVerify || a.Spec.GroupPriorityMinimum != 1000 || a.Spec.VersionPriority != wantVP {
			t.Errorf("%s: %+v", name, a.Spec)
		}
	}

	// WaitAvailable: a cancelled context reports what is missing at once.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = WaitAvailable(cctx, api, APIServiceNames(), time.Hour, 0)
	if err == nil || !strings.Contains(err.Error(), "v1alpha1.wardle.example.com: no Available condition yet; v1beta1.wardle.example.com: no Available condition yet") {
		t.Errorf("WaitAvailable = %v", err)
	}
	for _, name := range APIServiceNames() {
		obj, _ := apisvcs.Get(ctx, "", name)
		a := obj.(*apiregistration.APIService)
		a.SetCondition(apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionTrue, Reason: "Passed", Message: "all checks passed"})
		if _, err := apisvcs.UpdateStatus(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := WaitAvailable(cctx, api, APIServiceNames(), time.Hour, 0); err != nil {
		t.Errorf("WaitAvailable after Available: %v", err)
	}
}

// TestDebugFail checks the failure switch: POST /debug/fail?status=503
// makes every API request (discovery included) answer 503 Status,
// status=0 restores the backend, bad input is a 400, and callers without
// the front-proxy certificate get 401.
func TestDebugFail(t *testing.T) {
	f := newFixture(t)
	as := []string{"X-Remote-User", "inspector"}
	if code, _, body := f.do(t, f.proxy, "POST", DebugFailPath+"?status=503", "", as...); code != 200 || body != "{\"status\":503}\n" {
		t.Fatalf("fail: %d %q", code, body)
	}
	for _, p := range []string{"/apis/wardle.example.com/v1alpha1", "/apis/wardle.example.com/v1beta1/namespaces/default/flunders"} {
		code, _, body := f.do(t, f.proxy, "GET", p, "", as...)
		if want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected failure: 503 Service Unavailable","reason":"ServiceUnavailable","code":503}`; code != 503 || strings.TrimSpace(body) != want {
			t.Errorf("GET %s while failing: %d %s", p, code, body)
		}
	}
	if code, _, _ := f.do(t, f.proxy, "POST", DebugFailPath+"?status=200", "", as...); code != 400 {
		t.Errorf("status=200: %d, want 400", code)
	}
	if code, _, _ := f.do(t, f.proxy, "GET", DebugFailPath, "", as...); code != 405 {
		t.Errorf("GET: %d, want 405", code)
	}
	if code, _, _ := f.do(t, f.noCert, "POST", DebugFailPath+"?status=0", ""); code != 401 {
		t.Errorf("without credentials: %d, want 401", code)
	}
	if code, _, body := f.do(t, f.proxy, "POST", DebugFailPath+"?status=0", "", as...); code != 200 || body != "{\"status\":0}\n" {
		t.Fatalf("restore: %d %q", code, body)
	}
	if code, _, body := f.do(t, f.proxy, "GET", "/apis/wardle.example.com/v1alpha1", "", as...); code != 200 {
		t.Errorf("after restore: %d %s", code, body)
	}
}
