package apiextensions

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimpleJSONPathAsUpstream: printer-column and scale paths only have
// to start with a dot, as in upstream's validateSimpleJSONPath. A real
// kube-apiserver 1.33.13 accepted every path below except "spec.x"
// (POST .../customresourcedefinitions?dryRun=All of the CRD below with
// each pair; the "spec.x" answer is the want of that case), and it
// created cert-manager v1.21.1's Certificate CRD, whose Ready column is
// `.status.conditions[?(@.type == "Ready")].status`. aggsim rejected
// every path holding '[', ']' or '*' with "must be a simple json path
// starting with .".
func TestSimpleJSONPathAsUpstream(t *testing.T) {
	for _, tc := range []struct{ spec, column, want string }{
		{".spec.replicas[0]", ".spec.items[*].name", ""},
		{".spec.*.x", ".metadata.x[0]", ""},
		{".spec.replicas", `.status.conditions[?(@.type == "Ready")].status`, ""},
		{".spec.replicas", "spec.x", `spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .`},
	} {
		raw := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"probes.p.example.com"},` +
			`"spec":{"group":"p.example.com","names":{"plural":"probes","kind":"Probe"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,` +
			`"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},` +
			`"subresources":{"scale":{"specReplicasPath":` + quote(tc.spec) + `,"statusReplicasPath":".status.replicas","labelSelectorPath":".status.sel[0]"}},` +
			`"additionalPrinterColumns":[{"name":"c","type":"string","jsonPath":` + quote(tc.column) + `}]}]},"status":{"storedVersions":["v1"]}}`
		var crd CustomResourceDefinition
		if err := json.Unmarshal([]byte(raw), &crd); err != nil {
			t.Fatal(err)
		}
		SetDefaults(&crd) // and status.storedVersions as the create strategy sets it
		var got []string
		for _, e := range ValidateCustomResourceDefinition(&crd, nil) {
			got = append(got, e.Error())
		}
		if g := strings.Join(got, "\n"); g != tc.want {
			t.Errorf("%s | %s:\ngot  %q\nwant %q", tc.spec, tc.column, g, tc.want)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
