package structural

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenSelectableAndFieldPaths compares SelectableFieldErrors and the
// x-kubernetes-validations fieldPath check with a real 1.33's answers to
// the CRDs of testdata/selectable (made by testdata/selectable/run.py; one
// version, so upstream reports under spec.selectableFields and
// spec.validation).
func TestGoldenSelectableAndFieldPaths(t *testing.T) {
	files, _ := filepath.Glob("testdata/selectable/*.crd.json")
	if len(files) != 4 {
		t.Fatalf("%d cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".crd.json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var crd struct {
				Spec struct {
					Versions []struct {
						Schema struct {
							OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
						} `json:"schema"`
						SelectableFields []struct {
							JSONPath string `json:"jsonPath"`
						} `json:"selectableFields"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(b, &crd); err != nil {
				t.Fatal(err)
			}
			v := crd.Spec.Versions[0]
			s, errs := New(v.Schema.OpenAPIV3Schema, "spec.validation.openAPIV3Schema")
			if s == nil {
				t.Fatal(errs)
			}
			var paths []string
			for _, sf := range v.SelectableFields {
				paths = append(paths, sf.JSONPath)
			}
			errs = append(errs, s.SelectableFieldErrors(paths, "spec.selectableFields")...)
			st, isStatus := readAnswer(t, filepath.Join("testdata", "selectable", name+".status.txt"))
			var want, got []string
			if isStatus {
				for _, c := range st.Details.Causes {
					want = append(want, c.Reason+" "+c.Field+": "+c.Message)
				}
			}
			for _, e := range errs {
				got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestFieldSchemaType(t *testing.T) {
	s := mustNew(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","format":"int32"},"m":{"type":"object","additionalProperties":{"type":"string"}}}}}}`)
	for path, want := range map[string]string{".spec.replicas": "integer/int32", ".spec": "object/", ".spec.m.any": "string/", ".spec['replicas']": "integer/int32", ".spec.nope": "", "spec": ""} {
		typ, format, ok := s.FieldSchemaType(path)
		got := ""
		if ok {
			got = typ + "/" + format
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", path, got, want)
		}
	}
}
