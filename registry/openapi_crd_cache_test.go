package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// readTestCRD reads a CRD of ../aggregator/testdata/crd with defaults
// and its requested names accepted.
func readTestCRD(t *testing.T, file string) *apiextensions.CustomResourceDefinition {
	t.Helper()
	y, err := os.ReadFile("../aggregator/testdata/crd/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensions.CustomResourceDefinition
	if err := yaml.Unmarshal(y, &crd); err != nil {
		t.Fatal(err)
	}
	apiextensions.SetDefaults(&crd)
	crd.Status.AcceptedNames = crd.Spec.Names
	return &crd
}

// renamedCRD returns a copy of crd in group restaurant.example.com, its
// only version v1beta1, under names derived from plural.
func renamedCRD(crd *apiextensions.CustomResourceDefinition, version, plural, kind string, rv int) *apiextensions.CustomResourceDefinition {
	c := *crd
	c.Name, c.UID, c.ResourceVersion = plural+".restaurant.example.com", "uid-"+plural, fmt.Sprint(rv)
	c.Spec.Group = "restaurant.example.com"
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			v.Name = "v1beta1"
			c.Spec.Versions = []apiextensions.CustomResourceDefinitionVersion{v}
		}
	}
	c.Spec.Names = apiextensions.CustomResourceDefinitionNames{Plural: plural, Singular: plural + "x", Kind: kind, ListKind: kind + "List", ShortNames: []string{plural[:2] + "z"}}
	c.Status.AcceptedNames = c.Spec.Names
	return &c
}

// TestCustomResourceOpenAPIBuilderAsBuild checks that the builder's
// merged documents are CustomResourceOpenAPI's bytes over the same CRDs
// (Pizza variants, namespaced and cluster-scoped, with and without
// subresources, and ServiceMonitor's large schema, in one group/version),
// after CRDs are added, changed and removed, so the per-CRD cache never
// serves a stale document.
func TestCustomResourceOpenAPIBuilderAsBuild(t *testing.T) {
	pizza := readTestCRD(t, "restaurant.example.com_pizzas.yaml")
	sm := readTestCRD(t, "monitoring.coreos.com_servicemonitors.yaml")
	var b CustomResourceOpenAPIBuilder
	check := func(step string, crds []*apiextensions.CustomResourceDefinition) {
		t.Helper()
		w2, w3, werr := CustomResourceOpenAPI("restaurant.example.com", "v1beta1", crds)
		g2, g3, gerr := b.Build(context.Background(), "restaurant.example.com", "v1beta1", crds)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: error %v, want %v", step, gerr, werr)
		}
		if !bytes.Equal(g2, w2) {
			t.Errorf("%s: v2 differs (%d bytes, want %d)\n%s", step, len(g2), len(w2), firstDiff(g2, w2))
		}
		if !bytes.Equal(g3, w3) {
			t.Errorf("%s: v3 differs (%d bytes, want %d)\n%s", step, len(g3), len(w3), firstDiff(g3, w3))
		}
		if werr != nil {
			return
		}
		// BuildParts: the same v3, and v2's paths, definitions and
		// parameters as splitting the v2 document gives them
		parts, err := b.BuildParts(context.Background(), "restaurant.example.com", "v1beta1", crds)
		if err != nil {
			t.Fatalf("%s: BuildParts: %v", step, err)
		}
		if !bytes.Equal(parts.V3, w3) {
			t.Errorf("%s: BuildParts v3 differs\n%s", step, firstDiff(parts.V3, w3))
		}
		var split struct {
			Paths       map[string]json.RawMessage `json:"paths"`
			Definitions map[string]json.RawMessage `json:"definitions"`
			Parameters  map[string]json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(w2, &split); err != nil {
			t.Fatal(err)
		}
		if split.Parameters == nil {
			split.Parameters = map[string]json.RawMessage{}
		}
		for name, pair := range map[string][2]map[string]json.RawMessage{
			"paths": {parts.V2Paths, split.Paths}, "definitions": {parts.V2Definitions, split.Definitions}, "parameters": {parts.V2Parameters, split.Parameters},
		} {
			if !reflect.DeepEqual(pair[0], pair[1]) {
				t.Errorf("%s: BuildParts v2 %s differ: %d entries, want %d", step, name, len(pair[0]), len(pair[1]))
			}
		}
	}
	crds := []*apiextensions.CustomResourceDefinition{renamedCRD(pizza, "v1beta1", "pizzas", "Pizza", 1)}
	check("one", crds)
	cluster := renamedCRD(pizza, "v1alpha1", "ovens", "Oven", 2)
	cluster.Spec.Scope = apiextensions.ClusterScoped
	cluster.Spec.Versions[0].Subresources = nil
	cluster.Spec.Versions[0].Schema.OpenAPIV3Schema.Description = "An oven <hot> & big"
	crds = append(crds, cluster, renamedCRD(sm, "v1", "servicemonitors", "ServiceMonitor", 3))
	check("three", crds)
	changed := renamedCRD(pizza, "v1beta1", "pizzas", "Pizza", 4)
	changed.Spec.Versions[0].Subresources = nil
	crds[0] = changed
	check("changed", crds)
	check("removed", crds[1:])
	check("other group", []*apiextensions.CustomResourceDefinition{sm})
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-80, 0)
	return fmt.Sprintf("at %d: got …%s…\nwant …%s…", i, a[lo:min(i+80, len(a))], b[lo:min(i+80, len(b))])
}
