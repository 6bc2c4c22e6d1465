package aggregator

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCRDTerminatingSurvivesRestart deletes the Pizza CRD while a pizza
// with a finalizer of its own holds it, restarts the server on the same
// storage, and checks the CRD is still there with Terminating
// True(InstanceDeletionInProgress) and the pizza still served, as
// kube-apiserver 1.33.13 keeps them (kubectl get crd ... -o jsonpath of
// the conditions, kubectl get pizzas -A, after the same steps). aggsim's
// finalizer ran before the first serving pass after the start, found no
// store, so no instances, and removed the CRD, orphaning the pizza.
func TestCRDTerminatingSurvivesRestart(t *testing.T) {
	st := storage.NewMemory()
	admin := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	ctx := context.Background()
	base := "/apis/restaurant.example.com/v1beta1/namespaces/default/pizzas"
	const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pizzas.restaurant.example.com"

	s, stop := runServer(t, Options{Storage: st})
	lb := loopback{api: s.Handler(), user: admin, userAgent: "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0"}
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)
	held := []byte(`{"apiVersion":"restaurant.example.com/v1beta1","kind":"Pizza","metadata":{"name":"held","finalizers":["restaurant.example.com/paid"]},"spec":{"toppings":[{"name":"ham"}]}}`)
	waitForCond(t, "held created", func() bool {
		code, _, _ := lb.send(ctx, http.MethodPost, base, "", "application/json", "application/json", held)
		return code == http.StatusCreated
	})
	if code, out, _ := lb.send(ctx, http.MethodDelete, crdPath, "", "", "application/json", nil); code != http.StatusOK {
		t.Fatalf("delete CRD: %d %s", code, out)
	}
	waitForCond(t, "CRD Terminating InstanceDeletionInProgress", func() bool {
		_, out, _ := lb.send(ctx, http.MethodGet, crdPath, "", "", "application/json", nil)
		return strings.Contains(string(out), `"reason":"InstanceDeletionInProgress"`)
	})
	stop()

	s, _ = runServer(t, Options{Storage: st})
	lb = loopback{api: s.Handler(), user: admin, userAgent: lb.userAgent}
	waitForCond(t, "held pizza served after the restart", func() bool {
		code, out, _ := lb.send(ctx, http.MethodGet, base+"/held", "", "", "application/json", nil)
		return code == http.StatusOK && strings.Contains(string(out), `"deletionTimestamp"`)
	})
	// and still there after the CRD controllers' next periodic pass
	for i := range 2 {
		if i > 0 {
			time.Sleep(crdResyncPeriod + 500*time.Millisecond)
		}
		code, out, _ := lb.send(ctx, http.MethodGet, crdPath, "", "", "application/json", nil)
		if code != http.StatusOK || !strings.Contains(string(out), `{"type":"Terminating","status":"True","lastTransitionTime":`) || !strings.Contains(string(out), `"reason":"InstanceDeletionInProgress","message":"CustomResource deletion is in progress"`) {
			t.Fatalf("CRD after the restart: %d %s", code, out)
		}
	}
}
