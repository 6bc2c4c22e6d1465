package structural

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestGoldenValues sends each object of testdata/values through Default,
// Prune, PruneNulls and Validate (upstream's create path) and compares
// with a real 1.33's answer to the same object POSTed with
// fieldValidation=Ignore&dryRun=All to a CRD with schema.json (made by
// testdata/values/run.py): the causes when rejected (sorted: upstream
// reports sibling fields in Go map order), else the stored spec.
func TestGoldenValues(t *testing.T) {
	raw, err := os.ReadFile("testdata/values/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, errs := New(raw, "spec.versions[0].schema.openAPIV3Schema")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	files, _ := filepath.Glob("testdata/values/*.object.json")
	if len(files) < 15 {
		t.Fatalf("only %d cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".object.json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			obj := decodeObject(t, b)
			s.Default(obj)
			s.Prune(obj)
			s.PruneNulls(obj)
			var got []string
			for _, e := range s.Validate(obj) {
				got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
			}
			ans := filepath.Join("testdata", "values", name+".status.txt")
			st, isStatus := readAnswer(t, ans)
			if !isStatus {
				if len(got) > 0 {
					t.Fatalf("upstream accepted; we reject:\n%s", strings.Join(got, "\n"))
				}
				a, _ := os.ReadFile(ans)
				body := a[bytes.IndexByte(a, '\n')+1 : bytes.Index(a, []byte("\n[HTTP "))]
				stored := decodeObject(t, body)
				g, _ := json.Marshal(obj["spec"])
				w, _ := json.Marshal(stored["spec"])
				if !bytes.Equal(g, w) {
					t.Errorf("spec\n got %s\nwant %s", g, w)
				}
				return
			}
			var want []string
			for _, c := range st.Details.Causes {
				want = append(want, c.Reason+" "+c.Field+": "+c.Message)
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
