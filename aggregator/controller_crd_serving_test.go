package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// readCaptured returns a captured answer without its "$ command" first
// line and "[exit N]" last line.
func readCaptured(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(strings.Join(lines[1:len(lines)-1], "\n"))
}

// waitForCond polls cond (every 5 ms, backing off to 100 ms) until it
// holds, for at most 10 s of wall-clock time and of this process's CPU
// (loadBound; a bound, not a timing goal).
func waitForCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	bound := newLoadBound(10 * time.Second)
	var pause time.Duration
	for !cond() {
		if bound.exceeded() {
			t.Fatalf("%s: not within %v", what, bound)
		}
		pause = pollBackoff(pause)
		time.Sleep(pause)
	}
}

// TestCustomResourcesServed creates the Pizza CRD and checks what
// kube-apiserver 1.33.13 answered for it (captures in
// testdata/crd/pizzas): the automanaged APIService, the group/version's
// APIResourceList (verbs in upstream's order, status before scale, scale
// as autoscaling/v1), a pizza created through v1beta1 and read through
// v1alpha1 (None conversion: only apiVersion changes), the table's
// column definitions and priority-1 columns, the status subresource
// (generation unchanged) and a spec change (generation 2); deleting the
// CRD deletes the pizzas, stops serving the group/version and removes the
// APIServices and the OpenAPI documents. OpenAPI v2 and v3 document the
// pizzas (paths and schema) once the CRD is established.
func TestCustomResourcesServed(t *testing.T) {
	st := storage.NewMemory()
	s, _ := runServer(t, Options{Storage: st})
	ctx := context.Background()
	admin := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	lb := loopback{api: s.Handler(), user: admin, userAgent: "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0"}
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)
	var list []byte
	waitForCond(t, "/apis/restaurant.example.com/v1beta1 lists pizzas", func() bool {
		code, out, _ := lb.send(ctx, http.MethodGet, "/apis/restaurant.example.com/v1beta1", "", "", "application/json", nil)
		list = out
		return code == http.StatusOK && strings.Contains(string(out), `"pizzas"`)
	})
	var got, want any
	_ = json.Unmarshal(list, &got)
	_ = json.Unmarshal(readCaptured(t, "testdata/crd/pizzas/apis.restaurant.example.com.v1beta1.json"), &want)
	if g, w := mustJSON(got), mustJSON(want); g != w {
		t.Errorf("APIResourceList:\ngot  %s\nwant %s", g, w)
	}
	o, ok := s.apiServices.Get("", "v1beta1.restaurant.example.com")
	if !ok {
		t.Fatal("no APIService v1beta1.restaurant.example.com")
	}
	a := o.(*apiregistration.APIService)
	var wantAPIService apiregistration.APIService
	if err := yaml.Unmarshal(readCaptured(t, "testdata/crd/pizzas/apiservice.v1beta1.restaurant.example.com.yaml"), &wantAPIService); err != nil {
		t.Fatal(err)
	}
	if mustJSON(a.Spec) != mustJSON(wantAPIService.Spec) || mustJSON(a.Labels) != mustJSON(wantAPIService.Labels) {
		t.Errorf("APIService spec %s labels %v, want %s %v", mustJSON(a.Spec), a.Labels, mustJSON(wantAPIService.Spec), wantAPIService.Labels)
	}

	// aggsim explain apiservice says whose it is
	e, err := s.ExplainAPIService(ctx, "v1beta1.restaurant.example.com")
	if err != nil || e.Advice != "none: a Local APIService managed for CustomResourceDefinition pizzas.restaurant.example.com (label kube-aggregator.kubernetes.io/automanaged=true); it goes away with the CRD" {
		t.Errorf("explain: %v %+v", err, e)
	}

	// OpenAPI: the index lists the group/version, whose document defines
	// the kind (kubectl explain pizzas.spec answers as upstream's)
	waitForCond(t, "/openapi/v3 lists apis/restaurant.example.com/v1beta1", func() bool {
		_, out, _ := lb.send(ctx, http.MethodGet, "/openapi/v3", "", "", "application/json", nil)
		return strings.Contains(string(out), `"apis/restaurant.example.com/v1beta1"`)
	})
	if code, out, _ := lb.send(ctx, http.MethodGet, "/openapi/v3/apis/restaurant.example.com/v1beta1", "", "", "application/json", nil); code != http.StatusOK || !strings.Contains(string(out), `"com.example.restaurant.v1beta1.Pizza":{`) {
		t.Errorf("v3 document: %d %.300s", code, out)
	}
	if _, out, _ := lb.send(ctx, http.MethodGet, "/openapi/v2", "", "", "application/json", nil); !strings.Contains(string(out), `"/apis/restaurant.example.com/v1beta1/namespaces/{namespace}/pizzas/{name}/status":{`) {
		t.Error("v2 lacks the pizzas paths")
	}

	y, err := os.ReadFile("testdata/crd/pizzas/ok-02-full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := yaml.YAMLToJSON(y)
	base := "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas"
	if code, out, _ := lb.send(ctx, http.MethodPost, base, "", "application/json", "application/json", body); code != http.StatusCreated {
		t.Fatalf("create pizza: %d %s", code, out)
	}
	code, out, _ := lb.send(ctx, http.MethodGet, "/apis/restaurant.example.com/v1alpha1/namespaces/default/pizzas/capricciosa", "", "", "application/json", nil)
	if code != http.StatusOK || !strings.HasPrefix(string(out), `{"apiVersion":"restaurant.example.com/v1alpha1","kind":"Pizza","metadata":{"creationTimestamp":`) {
		t.Errorf("GET v1alpha1: %d %s", code, out)
	}

	// the table: column definitions as upstream's, cells of capricciosa
	code, out, _ = lb.send(ctx, http.MethodGet, base, "", "", "application/json;as=Table;v=v1;g=meta.k8s.io", nil)
	if code != http.StatusOK {
		t.Fatalf("table: %d %s", code, out)
	}
	type table struct {
		ColumnDefinitions any `json:"columnDefinitions"`
		Rows              []struct {
			Cells []any `json:"cells"`
		} `json:"rows"`
	}
	var gotT, wantT table
	_ = json.Unmarshal(out, &gotT)
	_ = json.Unmarshal(readCaptured(t, "testdata/crd/pizzas/get.table.json"), &wantT)
	if g, w := mustJSON(gotT.ColumnDefinitions), mustJSON(wantT.ColumnDefinitions); g != w {
		t.Errorf("columns:\ngot  %s\nwant %s", g, w)
	}
	if len(gotT.Rows) != 1 || len(wantT.Rows) == 0 {
		t.Fatalf("rows %v", gotT.Rows)
	}
	g, w := gotT.Rows[0].Cells, wantT.Rows[0].Cells // capricciosa, the first row of both
	if mustJSON(g[:len(g)-1]) != mustJSON(w[:len(w)-1]) {
		t.Errorf("cells %s, want %s (age aside)", mustJSON(g), mustJSON(w))
	}

	// status through /status keeps generation; a spec change bumps it
	code, out, _ = lb.send(ctx, http.MethodPatch, base+"/capricciosa/status", "", "application/merge-patch+json", "application/json", []byte(`{"status":{"phase":"Baking"},"spec":{"size":"small"}}`))
	if code != http.StatusOK || !strings.Contains(string(out), `"generation":1,`) || !strings.Contains(string(out), `"phase":"Baking"`) || !strings.Contains(string(out), `"size":"large"`) {
		t.Errorf("status patch: %d %s", code, out)
	}
	code, out, _ = lb.send(ctx, http.MethodPatch, base+"/capricciosa", "", "application/merge-patch+json", "application/json", []byte(`{"status":{"phase":"Delivered"},"spec":{"size":"medium"}}`))
	if code != http.StatusOK || !strings.Contains(string(out), `"generation":2,`) || !strings.Contains(string(out), `"phase":"Baking"`) || !strings.Contains(string(out), `"size":"medium"`) {
		t.Errorf("spec patch: %d %s", code, out)
	}

	// a strategic merge patch is 415 for custom resources: kube-apiserver
	// 1.33.13's answer to curl -X PATCH -H 'Content-Type:
	// application/strategic-merge-patch+json' on a pizza
	code, out, _ = lb.send(ctx, http.MethodPatch, base+"/capricciosa", "", "application/strategic-merge-patch+json", "application/json", []byte(`{"spec":{"size":"large"}}`))
	if code != http.StatusUnsupportedMediaType || string(out) != `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415}`+"\n" {
		t.Errorf("strategic merge patch: %d %s", code, out)
	}

	// /scale: autoscaling/v1 Scale from the scale paths (shaped as the
	// captured scale-subresource.txt); kubectl scale's merge patch sets
	// spec.replicas through the main resource (generation 3)
	scaleVolatile := regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp)":"[^"]*"`)
	code, out, _ = lb.send(ctx, http.MethodGet, base+"/capricciosa/scale", "", "", "application/json", nil)
	if g := scaleVolatile.ReplaceAllString(string(out), `"$1":"X"`); code != http.StatusOK || g != `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"capricciosa","namespace":"default","uid":"X","resourceVersion":"X","creationTimestamp":"X"},"spec":{"replicas":3},"status":{"replicas":0}}`+"\n" {
		t.Errorf("GET scale: %d %s", code, out)
	}
	code, out, _ = lb.send(ctx, http.MethodPatch, base+"/capricciosa/scale", "", "application/merge-patch+json", "application/json", []byte(`{"spec":{"replicas":5}}`))
	if code != http.StatusOK || !strings.Contains(string(out), `"spec":{"replicas":5}`) {
		t.Errorf("PATCH scale: %d %s", code, out)
	}
	if _, out, _ = lb.send(ctx, http.MethodGet, base+"/capricciosa", "", "", "application/json", nil); !strings.Contains(string(out), `"generation":3,`) || !strings.Contains(string(out), `"replicas":5`) {
		t.Errorf("after scale: %s", out)
	}

	// a pizza with a finalizer of its own keeps the CRD Terminating, and
	// creates are refused meanwhile: kube-apiserver 1.33.13 answered
	// exactly this Status (curl -X POST .../namespaces/default/pizzas
	// after kubectl delete crd pizzas.restaurant.example.com --wait=false,
	// with such a pizza left)
	held := []byte(`{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"held","finalizers":["restaurant.example.com/paid"]},"spec":{"toppings":[{"name":"ham"}]}}`)
	if code, out, _ := lb.send(ctx, http.MethodPost, base, "", "application/json", "application/json", held); code != http.StatusCreated {
		t.Fatalf("create held: %d %s", code, out)
	}
	if code, out, _ := lb.send(ctx, http.MethodDelete, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pizzas.restaurant.example.com", "", "", "application/json", nil); code != http.StatusOK {
		t.Fatalf("delete CRD: %d %s", code, out)
	}
	waitForCond(t, "create refused while terminating", func() bool {
		code, out, _ := lb.send(ctx, http.MethodPost, base, "", "application/json", "application/json", body)
		return code == http.StatusMethodNotAllowed && string(out) == `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"create not allowed while custom resource definition is terminating","reason":"MethodNotAllowed","details":{"group":"restaurant.example.com","kind":"pizzas"},"code":405}`+"\n"
	})
	waitForCond(t, "capricciosa deleted, held terminating", func() bool {
		c1, _, _ := lb.send(ctx, http.MethodGet, base+"/capricciosa", "", "", "application/json", nil)
		_, out, _ := lb.send(ctx, http.MethodGet, base+"/held", "", "", "application/json", nil)
		return c1 == http.StatusNotFound && strings.Contains(string(out), `"deletionTimestamp"`)
	})
	if code, out, _ := lb.send(ctx, http.MethodPatch, base+"/held", "", "application/merge-patch+json", "application/json", []byte(`{"metadata":{"finalizers":null}}`)); code != http.StatusOK {
		t.Fatalf("remove finalizer: %d %s", code, out)
	}

	// then the CRD, its serving and its APIServices go
	waitForCond(t, "CRD, pizzas and APIServices gone", func() bool {
		c1, _, _ := lb.send(ctx, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pizzas.restaurant.example.com", "", "", "application/json", nil)
		c2, _, _ := lb.send(ctx, http.MethodGet, "/apis/restaurant.example.com/v1beta1", "", "", "application/json", nil)
		_, a1 := s.apiServices.Get("", "v1beta1.restaurant.example.com")
		_, a2 := s.apiServices.Get("", "v1alpha1.restaurant.example.com")
		_, index, _ := lb.send(ctx, http.MethodGet, "/openapi/v3", "", "", "application/json", nil)
		return c1 == http.StatusNotFound && c2 == http.StatusNotFound && !a1 && !a2 && !strings.Contains(string(index), "restaurant.example.com")
	})
	n, _ := s.API().Store(crdResource).Names(ctx, "")
	kvs, _, err := st.List(ctx, "/registry/restaurant.example.com/pizzas/")
	if len(n) != 0 || len(kvs) != 0 || err != nil {
		t.Errorf("left: CRDs %v, %d pizzas (%v)", n, len(kvs), err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCRDAPIServiceOverlap follows the captured APIService overlap
// (../shared/testdata/kube-1.33/crd/extra/apiservice-overlap.txt): a
// change to the automanaged APIService that keeps its label (kubectl
// apply) is undone; one without the label (kubectl replace) takes over,
// routing the group/version to its service (503: the Service does not
// exist); deleting it brings the Local APIService back.
func TestCRDAPIServiceOverlap(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	ctx := context.Background()
	admin := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	lb := loopback{api: s.Handler(), user: admin}
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)
	const name = "v1beta1.restaurant.example.com"
	waitForCond(t, "automanaged APIService", func() bool { _, ok := s.apiServices.Get("", name); return ok })
	apis := s.api.Store(apiServicesResource)
	get := func() *apiregistration.APIService {
		o, err := apis.Get(ctx, "", name)
		if err != nil {
			return nil
		}
		return o.(*apiregistration.APIService)
	}
	port := int32(443)
	remote := &apiregistration.ServiceReference{Namespace: "wardle", Name: "api", Port: &port}
	// update retries on a conflict: the availability controller writes the
	// APIService's status meanwhile (one loaded -race run had a conflict).
	update := func(change func(*apiregistration.APIService)) {
		t.Helper()
		for i := 0; ; i++ {
			a := get()
			change(a)
			_, err := apis.Update(ctx, a)
			if err == nil {
				return
			}
			if !errors.Is(err, meta.ErrConflict) || i == 50 {
				t.Fatal(err)
			}
		}
	}
	update(func(a *apiregistration.APIService) {
		a.Spec.Service, a.Spec.GroupPriorityMinimum, a.Spec.VersionPriority = remote, 1000, 15
	})
	waitForCond(t, "labelled change undone", func() bool { a := get(); return a != nil && a.Spec.Service == nil && a.Spec.VersionPriority == 100 })

	update(func(a *apiregistration.APIService) {
		a.Labels = nil
		a.Spec.Service, a.Spec.VersionPriority = remote, 15
	})
	waitForCond(t, "the user's APIService serves v1beta1 (503)", func() bool {
		code, _, _ := lb.send(ctx, http.MethodGet, "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas", "", "", "application/json", nil)
		return code == http.StatusServiceUnavailable
	})
	if a := get(); a.Spec.Service == nil || a.Labels[automanagedLabel] != "" {
		t.Errorf("the user's APIService was changed: %+v", a)
	}
	if _, err := apis.Delete(ctx, "", name, nil); err != nil {
		t.Fatal(err)
	}
	waitForCond(t, "Local APIService back and serving", func() bool {
		a := get()
		code, _, _ := lb.send(ctx, http.MethodGet, "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas", "", "", "application/json", nil)
		return a != nil && a.Spec.Service == nil && a.Labels[automanagedLabel] == "true" && code == http.StatusOK
	})
}
