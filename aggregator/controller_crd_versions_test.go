package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// pizzaDeprecation is the Warning kube-apiserver 1.33.13 sends on every
// request to the deprecated v1alpha1 of the Pizza CRD (captured:
// ../shared/testdata/kube-1.33/crd/pizzas.restaurant.example.com/versions.margherita.v1alpha1.yaml,
// `kubectl get pizzas.v1alpha1.restaurant.example.com margherita -n default -o yaml`).
const pizzaDeprecation = `299 - "restaurant.example.com/v1alpha1 Pizza is deprecated; use restaurant.example.com/v1beta1 Pizza"`

// crServe sends one request to s's API and returns the recorder.
func crServe(t *testing.T, s *Server, method, path string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, bytes.NewReader(body))
	r.Header.Set("Accept", "application/json")
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
		if method == http.MethodPatch {
			r.Header.Set("Content-Type", "application/merge-patch+json")
		}
	}
	w := httptest.NewRecorder()
	s.api.ServeHTTP(w, r)
	return w
}

// startPizzas starts a server with the two-version Pizza CRD served.
func startPizzas(t *testing.T) (*Server, *storage.Memory) {
	t.Helper()
	mem := storage.NewMemory()
	s, _ := runServer(t, Options{Storage: mem})
	if code, out := postCRD(t, s, crdFixtureFiles["pizzas.restaurant.example.com"]); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)
	for _, v := range []string{"v1alpha1", "v1beta1"} {
		waitForCond(t, v+" served", func() bool {
			return crServe(t, s, http.MethodGet, "/apis/restaurant.example.com/"+v+"/pizzas", nil).Code == http.StatusOK
		})
	}
	return s, mem
}

func pizzaObject(t *testing.T, file string) []byte {
	t.Helper()
	y, err := os.ReadFile("testdata/crd/objects/pizzas.restaurant.example.com/" + file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func specOf(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return mustJSON(m["spec"])
}

// TestCustomResourceVersions: objects are stored in the storage version
// and read, written and listed in every served version, as kube-apiserver
// 1.33.13 (captures ../shared/testdata/kube-1.33/crd/pizzas.restaurant.example.com/
// versions.*.yaml and objects/ok-04-v1alpha1.*): an object written
// through v1alpha1 is stored as v1beta1 (spec.cheese pruned by v1beta1's
// schema), read in v1beta1 with v1beta1's defaults (crust, extra) and in
// v1alpha1 without the fields v1alpha1 does not know (crust, extra,
// status.conditions); every request to v1alpha1 carries the deprecation
// Warning.
func TestCustomResourceVersions(t *testing.T) {
	s, mem := startPizzas(t)
	const alpha, beta = "/apis/restaurant.example.com/v1alpha1/namespaces/default/pizzas", "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas"

	w := crServe(t, s, http.MethodPost, beta, pizzaObject(t, "ok-01-margherita.yaml"))
	if w.Code != http.StatusCreated || w.Header().Get("Warning") != "" {
		t.Fatalf("create margherita: %d %q %s", w.Code, w.Header().Values("Warning"), w.Body)
	}
	w = crServe(t, s, http.MethodPost, alpha, pizzaObject(t, "ok-04-v1alpha1.yaml"))
	if w.Code != http.StatusCreated {
		t.Fatalf("create quattro-formaggi: %d %s", w.Code, w.Body)
	}
	if got := w.Header().Values("Warning"); len(got) != 1 || got[0] != pizzaDeprecation {
		t.Errorf("create warning: %q", got)
	}
	// The answer is the stored object read back in v1alpha1.
	if got, want := specOf(t, w.Body.Bytes()), `{"replicas":2,"size":"medium","toppings":[{"amount":"50","name":"gorgonzola"}]}`; got != want {
		t.Errorf("create answer spec:\ngot  %s\nwant %s", got, want)
	}
	kv, err := mem.Get(context.Background(), "/registry/restaurant.example.com/pizzas/default/quattro-formaggi")
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	_ = json.Unmarshal(kv.Value, &stored)
	if got, want := stored["apiVersion"].(string)+" "+mustJSON(stored["spec"]), `restaurant.example.com/v1beta1 {"replicas":2,"size":"medium","toppings":[{"amount":"50","name":"gorgonzola"}]}`; got != want {
		t.Errorf("stored:\ngot  %s\nwant %s", got, want)
	}

	for _, c := range []struct{ path, apiVersion, spec, warning string }{
		// versions.quattro-formaggi.v1beta1.yaml / objects/ok-04-v1alpha1.stored.yaml
		{beta + "/quattro-formaggi", "restaurant.example.com/v1beta1", `{"crust":"thin","replicas":2,"size":"medium","toppings":[{"amount":"50","extra":false,"name":"gorgonzola"}]}`, ""},
		{alpha + "/quattro-formaggi", "restaurant.example.com/v1alpha1", `{"replicas":2,"size":"medium","toppings":[{"amount":"50","name":"gorgonzola"}]}`, pizzaDeprecation},
		// versions.margherita.v1alpha1.yaml: no crust, no extra
		{alpha + "/margherita", "restaurant.example.com/v1alpha1", `{"replicas":1,"size":"medium","toppings":[{"name":"tomato"},{"amount":125,"name":"mozzarella"}]}`, pizzaDeprecation},
		{beta + "/margherita", "restaurant.example.com/v1beta1", `{"crust":"thin","replicas":1,"size":"medium","toppings":[{"extra":false,"name":"tomato"},{"amount":125,"extra":false,"name":"mozzarella"}]}`, ""},
	} {
		w := crServe(t, s, http.MethodGet, c.path, nil)
		var m map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		if w.Code != http.StatusOK || m["apiVersion"] != c.apiVersion || mustJSON(m["spec"]) != c.spec || w.Header().Get("Warning") != c.warning {
			t.Errorf("GET %s: %d %v %s %q\nwant %s %s %q", c.path, w.Code, m["apiVersion"], mustJSON(m["spec"]), w.Header().Get("Warning"), c.apiVersion, c.spec, c.warning)
		}
	}

	// A list in v1alpha1: every item converted, one Warning.
	w = crServe(t, s, http.MethodGet, alpha, nil)
	var list struct {
		APIVersion string           `json:"apiVersion"`
		Items      []map[string]any `json:"items"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &list)
	if w.Code != http.StatusOK || len(list.Items) != 2 || list.APIVersion != "restaurant.example.com/v1alpha1" || w.Header().Values("Warning")[0] != pizzaDeprecation {
		t.Fatalf("list: %d %s %q", w.Code, w.Body, w.Header().Values("Warning"))
	}
	for _, it := range list.Items {
		if it["apiVersion"] != "restaurant.example.com/v1alpha1" || bytes.Contains([]byte(mustJSON(it["spec"])), []byte("crust")) {
			t.Errorf("list item: %s", mustJSON(it))
		}
	}

	// A merge patch through v1alpha1: the v1alpha1 object (without
	// crust and extra) is converted back to v1beta1 and stored; reading
	// applies v1beta1's defaults again.
	w = crServe(t, s, http.MethodPatch, alpha+"/margherita", []byte(`{"spec":{"size":"large"}}`))
	if w.Code != http.StatusOK {
		t.Fatalf("patch: %d %s", w.Code, w.Body)
	}
	w = crServe(t, s, http.MethodGet, beta+"/margherita", nil)
	if got, want := specOf(t, w.Body.Bytes()), `{"crust":"thin","replicas":1,"size":"large","toppings":[{"extra":false,"name":"tomato"},{"amount":125,"extra":false,"name":"mozzarella"}]}`; got != want {
		t.Errorf("after patch:\ngot  %s\nwant %s", got, want)
	}

	// A 404 in the deprecated version still warns (upstream warns before
	// serving).
	w = crServe(t, s, http.MethodGet, alpha+"/none", nil)
	if w.Code != http.StatusNotFound || w.Header().Get("Warning") != pizzaDeprecation {
		t.Errorf("404: %d %q", w.Code, w.Header().Values("Warning"))
	}
}

// TestStoredVersionMustStayInSpec: a new storage version is appended to
// status.storedVersions, and a former storage version cannot leave
// spec.versions while it is stored, with kube-apiserver 1.33.13's answer
// (testdata/crd/storedversions-drop.reference.json, from
// `testdata/crd/storedversions.sh 18300 /tmp/ref-conv/pki` against the
// reference).
func TestStoredVersionMustStayInSpec(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	const crd = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.sv.example.com"},"spec":{"group":"sv.example.com","scope":"Cluster","names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if w := crServe(t, s, http.MethodPost, path, []byte(crd)); w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	patch := func(body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPatch, path+"/things.sv.example.com", bytes.NewReader([]byte(body)))
		r.Header.Set("Content-Type", "application/json-patch+json")
		r.Header.Set("Accept", "application/json")
		r.Header.Set("User-Agent", "curl/8.5.0") // indented, as curl gets it
		w := httptest.NewRecorder()
		s.api.ServeHTTP(w, r)
		return w
	}
	w := patch(`[{"op":"replace","path":"/spec/versions","value":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}]`)
	var got apiextensions.CustomResourceDefinition
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	if w.Code != http.StatusOK || mustJSON(got.Status.StoredVersions) != `["v1","v2"]` {
		t.Fatalf("add v2: %d %s", w.Code, w.Body)
	}
	w = patch(`[{"op":"replace","path":"/spec/versions","value":[{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}]`)
	want, err := os.ReadFile("testdata/crd/storedversions-drop.reference.json")
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusUnprocessableEntity || strings.TrimSpace(w.Body.String()) != strings.TrimSpace(string(want)) {
		t.Errorf("drop v1: %d\n got %s\nwant %s", w.Code, w.Body, want)
	}
}

// TestCustomResourceApplyInOtherVersion: server-side apply and a JSON
// patch through the deprecated v1alpha1 of the Pizza CRD, read in
// v1beta1, as kube-apiserver 1.33.13 answered
// (testdata/crd/versions-apply.reference.txt, from
// `testdata/crd/versions-apply.sh /tmp/ref-conv/kubeconfig`): managedFields
// keep the request's apiVersion, spec.cheese is pruned in storage,
// v1beta1's defaults appear on read, and generation counts the patch.
func TestCustomResourceApplyInOtherVersion(t *testing.T) {
	s, _ := startPizzas(t)
	const alpha, beta = "/apis/restaurant.example.com/v1alpha1/namespaces/default/pizzas/ssa", "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas/ssa"
	send := func(path, query, ct, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPatch, path+"?"+query, bytes.NewReader([]byte(body)))
		r.Header.Set("Content-Type", ct)
		r.Header.Set("Accept", "application/json")
		w := httptest.NewRecorder()
		s.api.ServeHTTP(w, r)
		return w
	}
	apply := `{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"name":"ssa","namespace":"default"},"spec":{"size":"large","cheese":"blue","replicas":3,"toppings":[{"name":"ham","amount":20}]}}`
	if w := send(alpha, "fieldManager=kubectl&fieldValidation=Strict&force=false", "application/apply-patch+yaml", apply); w.Code != http.StatusCreated || w.Header().Get("Warning") != pizzaDeprecation {
		t.Fatalf("apply: %d %q %s", w.Code, w.Header().Values("Warning"), w.Body)
	}
	read := func() string {
		w := crServe(t, s, http.MethodGet, beta, nil)
		var m struct {
			Metadata struct {
				Generation    int64            `json:"generation"`
				ManagedFields []map[string]any `json:"managedFields"`
			} `json:"metadata"`
			Spec any `json:"spec"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		for _, f := range m.Metadata.ManagedFields {
			delete(f, "time")
		}
		return fmt.Sprintf("%d %s %s", m.Metadata.Generation, mustJSON(m.Metadata.ManagedFields), mustJSON(m.Spec))
	}
	if got, want := read(), `1 [{"apiVersion":"restaurant.example.com/v1alpha1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:cheese":{},"f:replicas":{},"f:size":{},"f:toppings":{}}},"manager":"kubectl","operation":"Apply"}] {"crust":"thin","replicas":3,"size":"large","toppings":[{"amount":20,"extra":false,"name":"ham"}]}`; got != want {
		t.Errorf("after apply:\n got %s\nwant %s", got, want)
	}
	if w := send(alpha, "fieldManager=kubectl-patch", "application/json-patch+json", `[{"op":"replace","path":"/spec/replicas","value":4}]`); w.Code != http.StatusOK {
		t.Fatalf("patch: %d %s", w.Code, w.Body)
	}
	if got, want := read(), `2 [{"apiVersion":"restaurant.example.com/v1alpha1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:cheese":{},"f:size":{},"f:toppings":{}}},"manager":"kubectl","operation":"Apply"},{"apiVersion":"restaurant.example.com/v1alpha1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"manager":"kubectl-patch","operation":"Update"}] {"crust":"thin","replicas":4,"size":"large","toppings":[{"amount":20,"extra":false,"name":"ham"}]}`; got != want {
		t.Errorf("after patch:\n got %s\nwant %s", got, want)
	}
}
