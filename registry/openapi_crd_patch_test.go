package registry

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// TestCustomResourceOpenAPIPatchTypes pins the media types of the patch
// operations of a CRD's documents to kube-apiserver 1.33.13's (curl of
// /openapi/v3/apis/restaurant.example.com/v1beta1 and /openapi/v2 with the
// Pizza CRD installed): JSON, merge and apply patches, no strategic merge
// patch, which custom resources answer 415. kubectl apply reads them: with
// strategic-merge-patch+json listed it sent one, and `kubectl apply` of a
// changed pizza failed with UnsupportedMediaType where the reference
// answered "configured".
func TestCustomResourceOpenAPIPatchTypes(t *testing.T) {
	crd := readTestCRD(t, "restaurant.example.com_pizzas.yaml")
	v2, v3, err := CustomResourceOpenAPI("restaurant.example.com", "v1beta1", []*apiextensions.CustomResourceDefinition{crd})
	if err != nil {
		t.Fatal(err)
	}
	var d3 struct {
		Paths map[string]struct {
			Patch *struct {
				RequestBody struct {
					Content map[string]any `json:"content"`
				} `json:"requestBody"`
			} `json:"patch"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(v3, &d3); err != nil {
		t.Fatal(err)
	}
	want3 := []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}
	n := 0
	for p, item := range d3.Paths {
		if item.Patch == nil {
			continue
		}
		n++
		var got []string
		for ct := range item.Patch.RequestBody.Content {
			got = append(got, ct)
		}
		slices.Sort(got)
		if !slices.Equal(got, want3) {
			t.Errorf("v3 PATCH %s consumes %v, want %v", p, got, want3)
		}
	}
	var d2 struct {
		Paths map[string]struct {
			Patch *struct {
				Consumes []string `json:"consumes"`
			} `json:"patch"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(v2, &d2); err != nil {
		t.Fatal(err)
	}
	want2 := []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
	for p, item := range d2.Paths {
		if item.Patch == nil {
			continue
		}
		n++
		if !slices.Equal(item.Patch.Consumes, want2) {
			t.Errorf("v2 PATCH %s consumes %v, want %v", p, item.Patch.Consumes, want2)
		}
	}
	if n < 4 {
		t.Errorf("%d patch operations, want the item and /status in both documents", n)
	}
}
