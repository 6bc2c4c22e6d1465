package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// Field selectors on a CRD version's selectableFields answer as
// kube-apiserver 1.33.13 did for the same CRD (testdata/crd/shirts-selectable.yaml)
// and objects (a red shirt of size 3, ironed; a shirt with an empty spec):
// `kubectl get shirts --field-selector S -o name` for each S below, and
// `field label not supported: spec.nope` (400) for a field that is not
// selectable.
func TestCustomResourceSelectableFields(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	if code, out := postCRD(t, s, "shirts-selectable.yaml"); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "shirts.stable.example.com", apiextensions.IsEstablished)
	lb := loopback{api: s.api}
	ctx := context.Background()
	path := "/apis/stable.example.com/v1/namespaces/default/shirts"
	for _, body := range []string{
		`{"apiVersion":"stable.example.com/v1","kind":"Shirt","metadata":{"name":"red-shirt"},"spec":{"color":"red","size":3,"ironed":true}}`,
		`{"apiVersion":"stable.example.com/v1","kind":"Shirt","metadata":{"name":"plain"},"spec":{}}`,
	} {
		waitForCond(t, "shirt created", func() bool {
			code, _, _ := lb.send(ctx, http.MethodPost, path, "", "application/json", "application/json", []byte(body))
			return code == http.StatusCreated
		})
	}
	for sel, want := range map[string]string{
		"spec.color=red":             "red-shirt",
		"spec.color=":                "plain",
		"spec.color!=red":            "plain",
		"spec.size=3":                "red-shirt",
		"spec.ironed=true":           "red-shirt",
		"spec.ironed=false":          "",
		"metadata.name=plain":        "plain",
		"spec.color=red,spec.size=4": "",
	} {
		code, out, _ := lb.send(ctx, http.MethodGet, path, "fieldSelector="+url.QueryEscape(sel), "", "application/json", nil)
		var l struct {
			Items []struct{ Metadata struct{ Name string } }
		}
		if err := json.Unmarshal(out, &l); err != nil || code != http.StatusOK {
			t.Fatalf("%s: %d %s", sel, code, out)
		}
		var names []string
		for _, it := range l.Items {
			names = append(names, it.Metadata.Name)
		}
		slices.Sort(names)
		if got := strings.Join(names, ","); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	code, out, _ := lb.send(ctx, http.MethodGet, path, "fieldSelector=spec.nope%3Dx", "", "application/json", nil)
	if code != http.StatusBadRequest || !strings.Contains(string(out), `"message":"field label not supported: spec.nope"`) {
		t.Errorf("spec.nope: %d %s", code, out)
	}
}
