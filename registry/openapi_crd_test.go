package registry

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// TestCustomResourceOpenAPI builds the documents of the Pizza CRD's
// v1beta1: the v3 document has upstream's paths for pizzas and the
// schema of com.example.restaurant.v1beta1.Pizza with spec's properties,
// metadata an ObjectMeta; v2 defines the kind too. The path list is
// kube-apiserver 1.33.13's (captured: openapi-v3.v1beta1.txt, scale
// aside).
func TestCustomResourceOpenAPI(t *testing.T) {
	crd := readTestCRD(t, "restaurant.example.com_pizzas.yaml")
	v2, v3, err := CustomResourceOpenAPI("restaurant.example.com", "v1beta1", []*apiextensions.CustomResourceDefinition{crd})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Ref        string         `json:"$ref"`
					AllOf      []any          `json:"allOf"`
					Properties map[string]any `json:"properties"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(v3, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // path -> operations, upstream's (scale aside)
		"/apis/restaurant.example.com/v1beta1/namespaces/{namespace}/pizzas":               "delete get post",
		"/apis/restaurant.example.com/v1beta1/namespaces/{namespace}/pizzas/{name}":        "delete get patch put",
		"/apis/restaurant.example.com/v1beta1/namespaces/{namespace}/pizzas/{name}/status": "get patch put",
		"/apis/restaurant.example.com/v1beta1/pizzas":                                      "get",
	}
	for p, ops := range doc.Paths {
		var got []string
		for op := range ops {
			if op != "parameters" {
				got = append(got, op)
			}
		}
		sort.Strings(got)
		if want[p] != strings.Join(got, " ") {
			t.Errorf("path %s: %v, want %q", p, got, want[p])
		}
		delete(want, p)
	}
	if len(want) > 0 {
		t.Errorf("missing paths %v", want)
	}
	pizza, ok := doc.Components.Schemas["com.example.restaurant.v1beta1.Pizza"]
	if !ok {
		t.Fatalf("no Pizza schema")
	}
	if len(pizza.Properties["spec"].Properties) != 8 || pizza.Properties["metadata"].Ref == "" && len(pizza.Properties["metadata"].AllOf) == 0 {
		t.Errorf("Pizza %+v", pizza.Properties)
	}
	var d2 struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(v2, &d2); err != nil || d2.Definitions["com.example.restaurant.v1beta1.Pizza"] == nil {
		t.Errorf("v2 definitions: %v", err)
	}
}

// TestCustomResourceListMapKeys: server-side apply learns the lists of a
// CRD's schema: spec.toppings is a map list keyed by name and
// status.conditions by type (the Pizza CRD's x-kubernetes-list-type);
// kube-apiserver 1.33.13 records kubectl apply's toppings as
// k:{"name":"tomato"} entries.
func TestCustomResourceListMapKeys(t *testing.T) {
	crd := readTestCRD(t, "restaurant.example.com_pizzas.yaml")
	s, err := NewCustomResourceStrategy(crd, "v1beta1", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.ListMapKeys())
	if string(got) != `{"spec.toppings":["name"],"status.conditions":["type"]}` {
		t.Errorf("ListMapKeys = %s", got)
	}
}
