package structural

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// mapOrder lists the captures in which upstream reports errors in Go map
// order (it ranges over properties); for them the test compares the
// sorted causes, and our order is the sorted-property order.
var mapOrder = map[string]bool{
	"defaults":              true,
	"list-types":            true,
	"embedded":              true,
	"metadata":              true,
	"type-null-and-unknown": true,
	"int-or-string-combos":  true,
}

// TestGoldenCRDSchemas compares New's errors with a real 1.33's answer to
// a one-version CRD carrying each schema of testdata/crdschemas (made by
// testdata/crdschemas/run.py against the reference server; the CRD has
// one version, so upstream reports under spec.validation.openAPIV3Schema).
func TestGoldenCRDSchemas(t *testing.T) {
	files, _ := filepath.Glob("testdata/crdschemas/*.json")
	if len(files) < 20 {
		t.Fatalf("only %d cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, errs := New(raw, "spec.validation.openAPIV3Schema")
			st, isStatus := readAnswer(t, strings.TrimSuffix(f, ".json")+".status.txt")
			var want, got []string
			if isStatus {
				for _, c := range st.Details.Causes {
					want = append(want, c.Reason+" "+c.Field+": "+c.Message)
				}
			}
			for _, e := range errs {
				got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
			}
			if mapOrder[name] {
				sort.Strings(got)
				sort.Strings(want)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
