package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceManagedFieldsAsUpstream pins a custom resource's
// managedFields after a create with a finalizer and an owner reference, a
// merge patch adding a finalizer and changing spec.replicas, and a /scale
// patch, to kube-apiserver 1.33.13's answer to the same requests
// (testdata/crd/pizzas/managedfields-capture.sh, its output with times
// replaced in managedfields.json):
//   - metadata.finalizers is a set (`v:"<finalizer>"`) and
//     metadata.ownerReferences a map keyed by uid, as for every kind;
//     aggsim owned each as one atomic field;
//   - the /scale writer's entry has no time (upstream's ScaleHandler keeps
//     the parent's times only), so it sorts first.
func TestCustomResourceManagedFieldsAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	ctx := context.Background()
	admin := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	lb := loopback{api: s.Handler(), user: admin, userAgent: "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0"}
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)

	code, out, _ := lb.send(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", "", "application/json", "application/json", []byte(`{"metadata":{"name":"owner"}}`))
	if code != http.StatusCreated {
		t.Fatalf("create owner: %d %s", code, out)
	}
	var owner struct {
		Metadata struct{ UID string } `json:"metadata"`
	}
	if err := json.Unmarshal(out, &owner); err != nil || owner.Metadata.UID == "" {
		t.Fatalf("owner uid: %v %s", err, out)
	}
	base := "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas"
	waitForCond(t, "pizzas served", func() bool {
		code, _, _ := lb.send(ctx, http.MethodGet, base, "", "", "application/json", nil)
		return code == http.StatusOK
	})
	steps := []struct{ method, path, query, contentType, body string }{
		{http.MethodPost, base, "", "application/json", `{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"held","finalizers":["restaurant.example.com/paid"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"` + owner.Metadata.UID + `"}]},"spec":{"replicas":1,"toppings":[{"name":"ham"}]}}`},
		{http.MethodPatch, base + "/held", "fieldManager=patcher", "application/merge-patch+json", `{"metadata":{"finalizers":["restaurant.example.com/paid","x.example.com/y"]},"spec":{"replicas":2}}`},
		{http.MethodPatch, base + "/held/scale", "fieldManager=scaler", "application/merge-patch+json", `{"spec":{"replicas":3}}`},
	}
	for _, st := range steps {
		if code, out, _ := lb.send(ctx, st.method, st.path, st.query, st.contentType, "application/json", []byte(st.body)); code/100 != 2 {
			t.Fatalf("%s %s: %d %s", st.method, st.path, code, out)
		}
	}
	code, out, _ = lb.send(ctx, http.MethodGet, base+"/held", "", "", "application/json", nil)
	if code != http.StatusOK {
		t.Fatalf("get: %d %s", code, out)
	}
	var got struct {
		Metadata struct {
			ManagedFields json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	g := strings.ReplaceAll(string(got.Metadata.ManagedFields), owner.Metadata.UID, "OWNER-UID")
	g = regexp.MustCompile(`"time":"[^"]*"`).ReplaceAllString(g, `"time":"TIME"`)
	var want any
	if err := json.Unmarshal(readCaptured(t, "testdata/crd/pizzas/managedfields.json"), &want); err != nil {
		t.Fatal(err)
	}
	if w := mustJSON(want); g != w {
		t.Errorf("managedFields:\ngot  %s\nwant %s", g, w)
	}
}
