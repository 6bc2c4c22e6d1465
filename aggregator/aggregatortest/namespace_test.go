package aggregatortest_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/demo"
	"github.com/aggsim/aggsim/registry/apis/core"
)

// nsCapture returns the JSON body of a kube-1.33/namespace capture (the
// lines between the "$ curl ..." command and "[exit N]").
func nsCapture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "namespace", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	s = s[strings.Index(s, "\n")+1:]
	s = s[:strings.LastIndex(s, "[exit")]
	return s
}

// nsReq sends one request as the admin and returns code and body.
func nsReq(t *testing.T, srv *aggregatortest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// jsonEqual compares two JSON documents ignoring formatting.
func jsonEqual(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.MarshalIndent(g, "", "  ")
	wb, _ := json.MarshalIndent(w, "", "  ")
	if !bytes.Equal(gb, wb) {
		t.Fatalf("got\n%s\nwant\n%s", gb, wb)
	}
}

func nsGet(t *testing.T, srv *aggregatortest.Server, name string) (*core.Namespace, int) {
	t.Helper()
	code, b := nsReq(t, srv, http.MethodGet, "/api/v1/namespaces/"+name, "")
	if code != http.StatusOK {
		return nil, code
	}
	ns := &core.Namespace{}
	if err := json.Unmarshal(b, ns); err != nil {
		t.Fatal(err)
	}
	return ns, code
}

// TestNamespaceLifecycleWithoutController is a bare kube-apiserver
// (--controllers=-namespace): default, kube-system and kube-public may not
// be deleted (captures 4-delete-ns-*.raw.txt); DELETE marks the namespace Terminating and
// returns it, creates into it are refused with NamespaceLifecycle's 403
// (capture 4-create-cm-in-terminating.raw.txt), creates into a missing
// namespace with 404 (4-create-cm-in-missing.raw.txt), a second DELETE
// answers the same, and the namespace goes once /finalize empties
// spec.finalizers.
func TestNamespaceLifecycleWithoutController(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) {
		o.Controllers = []string{"*", "-namespace"}
	}))
	// default, kube-system and kube-public may not be deleted.
	for _, c := range []struct{ name, capture string }{{"default", "4-delete-ns-default.raw.txt"}, {"kube-system", "4-delete-ns-kube-system.raw.txt"}} {
		code, b := nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/"+c.name, "")
		if code != http.StatusForbidden {
			t.Fatalf("delete %s: %d %s", c.name, code, b)
		}
		jsonEqual(t, b, nsCapture(t, c.capture))
	}
	if code, b := nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/kube-public", ""); code != http.StatusForbidden || !strings.Contains(string(b), `"namespaces \"kube-public\" is forbidden: this namespace may not be deleted"`) {
		t.Fatalf("delete kube-public: %d %s", code, b)
	}
	if ns, _ := nsGet(t, srv, "default"); ns == nil || ns.DeletionTimestamp != nil {
		t.Fatalf("default after the refused delete: %+v", ns)
	}
	if code, b := nsReq(t, srv, http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"hold"}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, b)
	}
	code, b := nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/hold", "")
	var ns core.Namespace
	if err := json.Unmarshal(b, &ns); err != nil || code != http.StatusOK {
		t.Fatalf("delete: %d %s", code, b)
	}
	if ns.DeletionTimestamp == nil || ns.Status.Phase != core.NamespaceTerminating || !slices.Equal(ns.Spec.Finalizers, []string{"kubernetes"}) || ns.DeletionGracePeriodSeconds != nil {
		t.Fatalf("delete answered %s", b)
	}
	code, b = nsReq(t, srv, http.MethodPost, "/api/v1/namespaces/hold/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}`)
	if code != http.StatusForbidden {
		t.Fatalf("create in Terminating: %d %s", code, b)
	}
	jsonEqual(t, b, nsCapture(t, "4-create-cm-in-terminating.raw.txt"))
	// generateName: upstream's admission names the object by its
	// generateName. Reference (kube-apiserver 1.33.13): curl -X POST -d
	// '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"x-"}}'
	// .../api/v1/namespaces/cmp1/configmaps with cmp1 Terminating.
	code, b = nsReq(t, srv, http.MethodPost, "/api/v1/namespaces/hold/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"x-"}}`)
	if code != http.StatusForbidden {
		t.Fatalf("generateName create in Terminating: %d %s", code, b)
	}
	jsonEqual(t, b, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x-\" is forbidden: unable to create new content in namespace hold because it is being terminated","reason":"Forbidden","details":{"name":"x-","kind":"configmaps","causes":[{"reason":"NamespaceTerminating","message":"namespace hold is being terminated","field":"metadata.namespace"}]},"code":403}`)
	code, b = nsReq(t, srv, http.MethodPost, "/api/v1/namespaces/missing/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}`)
	if code != http.StatusNotFound {
		t.Fatalf("create in missing: %d %s", code, b)
	}
	jsonEqual(t, b, nsCapture(t, "4-create-cm-in-missing.raw.txt"))
	// Creating it again while it is Terminating: upstream's generic store
	// prefixes `object is being deleted: ` (kube-apiserver 1.33.13: POST
	// the same Namespace again after its DELETE).
	code, b = nsReq(t, srv, http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"hold"}}`)
	if code != http.StatusConflict {
		t.Fatalf("create again: %d %s", code, b)
	}
	jsonEqual(t, b, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"object is being deleted: namespaces \"hold\" already exists","reason":"AlreadyExists","details":{"name":"hold","kind":"namespaces"},"code":409}`)
	// A status write keeps it (only spec.finalizers decides).
	if code, b := nsReq(t, srv, http.MethodPatch, "/api/v1/namespaces/hold/status", `{"status":{"conditions":[{"type":"X","status":"True"}]}}`); code != http.StatusUnsupportedMediaType && code != http.StatusOK {
		t.Fatalf("status patch: %d %s", code, b)
	}
	again, code := nsGet(t, srv, "hold")
	if code != http.StatusOK || !again.DeletionTimestamp.Equal(ns.DeletionTimestamp.Time) {
		t.Fatalf("after a status write: %d %+v", code, again)
	}
	if code, b := nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/hold", ""); code != http.StatusOK || !strings.Contains(string(b), `"phase":"Terminating"`) {
		t.Fatalf("second delete: %d %s", code, b)
	}
	time.Sleep(200 * time.Millisecond) // no controller: nothing removes it
	if _, code := nsGet(t, srv, "hold"); code != http.StatusOK {
		t.Fatalf("namespace gone without a controller: %d", code)
	}
	if code, b := nsReq(t, srv, http.MethodPut, "/api/v1/namespaces/hold/finalize", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"hold"},"spec":{"finalizers":[]}}`); code != http.StatusOK {
		t.Fatalf("finalize: %d %s", code, b)
	}
	if _, code := nsGet(t, srv, "hold"); code != http.StatusNotFound {
		t.Fatalf("after finalize: %d, want 404", code)
	}
}

// startDemoBackend registers the demo backend (wardle.example.com
// v1alpha1 and v1beta1) with srv and returns it with its request recorder.
func startDemoBackend(t testing.TB, srv *aggregatortest.Server) (*aggregatortest.Backend, *demo.Backend) {
	pool := srv.PKI().FrontProxyCAPool
	d, err := demo.NewBackend(demo.Options{
		GetCertificate:        func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return nil, nil },
		RequestHeaderClientCA: func() *x509.CertPool { return pool },
	})
	if err != nil {
		t.Fatal(err)
	}
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{Handler: d, Group: demo.Group, Versions: []string{"v1alpha1", "v1beta1"}})
	return b, d
}

// waitNS polls namespace name every 10 ms until cond holds (at most
// limit) and returns how long it took.
func waitNS(t testing.TB, limit time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for time.Since(start) < limit {
		if cond() {
			return time.Since(start), true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start), false
}

// TestNamespaceControllerE2EDemoBackend deletes a namespace holding a
// ConfigMap and a flunder on the demo backend: the backend receives a
// deletecollection from the controller's identity and the namespace
// goes. With the backend failing the next namespace stays Terminating with
// upstream's NamespaceDeletionDiscoveryFailure condition, explain names
// the APIService, and it goes once the backend is back.
func TestNamespaceControllerE2EDemoBackend(t *testing.T) {
	srv := aggregatortest.Start(t)
	backend, d := startDemoBackend(t, srv)
	mk := func(ns string) {
		for _, c := range []struct{ path, body string }{
			{"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`},
			{"/api/v1/namespaces/" + ns + "/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"}}`},
			{"/apis/wardle.example.com/v1beta1/namespaces/" + ns + "/flunders", `{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","metadata":{"name":"f1"}}`},
		} {
			if code, b := nsReq(t, srv, http.MethodPost, c.path, c.body); code != http.StatusCreated {
				t.Fatalf("POST %s: %d %s", c.path, code, b)
			}
		}
	}
	mk("ns-ok")
	d.Recorder().Reset()
	nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/ns-ok", "")
	took, ok := waitNS(t, 10*time.Second, func() bool { _, code := nsGet(t, srv, "ns-ok"); return code == http.StatusNotFound })
	if !ok {
		ns, _ := nsGet(t, srv, "ns-ok")
		t.Fatalf("ns-ok still there after %v: %+v", took, ns)
	}
	t.Logf("ns-ok gone %v after the delete", took)
	var got []string
	for _, r := range d.Recorder().Requests() {
		if strings.Contains(r.Path, "/namespaces/ns-ok/") {
			got = append(got, r.Method+" "+r.Path+" "+r.User)
		}
	}
	const user = aggregator.NamespaceControllerUser
	want := []string{
		"DELETE /apis/wardle.example.com/v1beta1/namespaces/ns-ok/flunders " + user,
		"GET /apis/wardle.example.com/v1beta1/namespaces/ns-ok/flunders " + user,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("backend requests:\n got %q\nwant %q", got, want)
	}
	if code, b := nsReq(t, srv, http.MethodGet, "/apis/wardle.example.com/v1beta1/flunders", ""); code != http.StatusOK || strings.Contains(string(b), "ns-ok") {
		t.Fatalf("flunders after: %d %s", code, b)
	}

	mk("ns-stuck")
	backend.FailWith(http.StatusServiceUnavailable)
	backend.WaitUnavailable(t)
	nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/ns-stuck", "")
	const discoveryFailed = "NamespaceDeletionDiscoveryFailure=True DiscoveryFailed: Discovery failed for some groups, 2 failing: unable to retrieve the complete list of server APIs: wardle.example.com/v1alpha1: stale GroupVersion discovery: wardle.example.com/v1alpha1, wardle.example.com/v1beta1: stale GroupVersion discovery: wardle.example.com/v1beta1"
	var conds []string
	if _, ok := waitNS(t, 10*time.Second, func() bool {
		ns, _ := nsGet(t, srv, "ns-stuck")
		conds = nil
		for _, c := range ns.Status.Conditions {
			conds = append(conds, c.Type+"="+c.Status+" "+c.Reason+": "+c.Message)
		}
		// the controller may have read discovery before the rebuild
		// marked wardle stale (then its deletecollection got the 503);
		// its retry reads the failing discovery
		return len(conds) == 5 && conds[0] == discoveryFailed
	}); !ok {
		t.Fatalf("conditions %q, want first %q", conds, discoveryFailed)
	}
	if code, _ := nsReq(t, srv, http.MethodGet, "/api/v1/namespaces/ns-stuck/configmaps/cm1", ""); code != http.StatusNotFound {
		t.Fatalf("ConfigMap not deleted while discovery fails: %d", code)
	}
	time.Sleep(300 * time.Millisecond)
	if ns, code := nsGet(t, srv, "ns-stuck"); code != http.StatusOK || ns.Status.Phase != core.NamespaceTerminating {
		t.Fatalf("ns-stuck: %d %+v", code, ns)
	}
	// explain names both APIServices, why they are unavailable, and what
	// would unblock the namespace.
	code, b := nsReq(t, srv, http.MethodGet, aggregator.DebugNamespacesPath+"/ns-stuck", "")
	text := string(b)
	for _, w := range []string{
		"Phase:        Terminating\n",
		"Controller:   on\n",
		"  " + discoveryFailed + "\n",
		"Blocked by APIService v1alpha1.wardle.example.com (wardle.example.com/v1alpha1):\n",
		"Blocked by APIService v1beta1.wardle.example.com (wardle.example.com/v1beta1):\n",
		"  Available:  False (FailedDiscoveryCheck)\n",
		"Content:      none left in the discoverable resources\n",
		"  - APIService v1alpha1.wardle.example.com is unavailable (False (FailedDiscoveryCheck): ",
		"  - or delete the APIService (kubectl delete apiservice v1beta1.wardle.example.com): the namespace then goes, and its wardle.example.com/v1beta1 objects stay orphaned in the backend's storage\n",
	} {
		if code != http.StatusOK || !strings.Contains(text, w) {
			t.Fatalf("explain namespace: %d, no %q in\n%s", code, w, text)
		}
	}
	if code, _ := nsReq(t, srv, http.MethodGet, aggregator.DebugNamespacesPath+"/nope", ""); code != http.StatusNotFound {
		t.Fatalf("explain of a missing namespace: %d", code)
	}
	backend.Restore()
	took, ok = waitNS(t, 10*time.Second, func() bool { _, code := nsGet(t, srv, "ns-stuck"); return code == http.StatusNotFound })
	if !ok {
		t.Fatalf("ns-stuck still there %v after the backend is back", took)
	}
	t.Logf("ns-stuck gone %v after the backend was restored", took)
}
