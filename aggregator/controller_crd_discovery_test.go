package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceDiscoveryAsUpstream compares discovery with the
// two-version Pizza CRD installed with kube-apiserver 1.33.13's answers
// (testdata/crd/pizzas/*.json, the command on each first line):
//   - every served version's storageVersionHash names the storage
//     version (v1alpha1's is v1beta1's), and customresourcedefinitions'
//     names apiextensions.k8s.io/v1beta1, where aggsim hashed the served
//     version;
//   - aggregated discovery's responseKinds of pizzas and pizzas/status
//     name the group and version, where aggsim left them empty as for
//     kube-apiserver's own groups.
func TestCustomResourceDiscoveryAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	ctx := context.Background()
	admin := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	lb := loopback{api: s.Handler(), user: admin, userAgent: "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0"}
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)

	const aggAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	var group any
	waitForCond(t, "aggregated discovery lists both pizza versions", func() bool {
		code, out, _ := lb.send(ctx, http.MethodGet, "/apis", "", "", aggAccept, nil)
		if code != http.StatusOK {
			return false
		}
		var l struct {
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(out, &l) != nil {
			return false
		}
		for _, g := range l.Items {
			if strings.Contains(string(g), `"name":"restaurant.example.com"`) && strings.Contains(string(g), `"version":"v1alpha1"`) && strings.Contains(string(g), `"version":"v1beta1"`) {
				return json.Unmarshal(g, &group) == nil
			}
		}
		return false
	})
	var want any
	if err := json.Unmarshal(readCaptured(t, "testdata/crd/pizzas/aggregated.restaurant.example.com.json"), &want); err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(group), mustJSON(want); g != w {
		t.Errorf("aggregated restaurant.example.com:\ngot  %s\nwant %s", g, w)
	}

	for path, file := range map[string]string{
		"/apis/restaurant.example.com/v1alpha1": "apis.restaurant.example.com.v1alpha1.json",
		"/apis/apiextensions.k8s.io/v1":         "apis.apiextensions.k8s.io.v1.json",
	} {
		code, out, _ := lb.send(ctx, http.MethodGet, path, "", "", "application/json", nil)
		var got, want any
		_ = json.Unmarshal(out, &got)
		if err := json.Unmarshal(readCaptured(t, "testdata/crd/pizzas/"+file), &want); err != nil {
			t.Fatal(err)
		}
		if g, w := mustJSON(got), mustJSON(want); code != http.StatusOK || g != w {
			t.Errorf("GET %s: %d\ngot  %s\nwant %s", path, code, g, w)
		}
	}
}
