package structural

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// The golden files under testdata/answers are a real kube-apiserver
// 1.33.13's answers, copied from ../shared/testdata/kube-1.33/crd (see
// testdata/SOURCES.md for the commands that produced them).

var crdFiles = map[string]string{
	"foos.samplecontroller.k8s.io":          "crd-status-subresource.yaml",
	"pizzas.restaurant.example.com":         "restaurant.example.com_pizzas.yaml",
	"servicemonitors.monitoring.coreos.com": "monitoring.coreos.com_servicemonitors.yaml",
}

// crdSchemas returns each version's openAPIV3Schema JSON of a CRD file.
func crdSchemas(t testing.TB, file string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, v := range crd.Spec.Versions {
		out[v.Name] = v.Schema.OpenAPIV3Schema
	}
	return out
}

func decodeObject(t testing.TB, j []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// yamlObject reads the first YAML document of a fixture as kubectl does
// (sigs.k8s.io/yaml, YAML 1.1 booleans).
func yamlObject(t testing.TB, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := bytes.Cut(b, []byte("\n---"))
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	return decodeObject(t, j)
}

type statusAnswer struct {
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
	Details struct {
		Causes []struct {
			Reason  string `json:"reason"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"causes"`
	} `json:"details"`
}

// readAnswer parses a captured "$ command / JSON / [HTTP n]" file.
func readAnswer(t *testing.T, path string) (statusAnswer, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body := b[bytes.IndexByte(b, '\n')+1:]
	body = body[:bytes.Index(body, []byte("\n[HTTP "))]
	var st statusAnswer
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	return st, st.Reason != ""
}

func loadSchemas(t testing.TB) map[string]map[string]*Schema {
	out := map[string]map[string]*Schema{}
	for crd, file := range crdFiles {
		out[crd] = map[string]*Schema{}
		for v, raw := range crdSchemas(t, file) {
			s, errs := New(raw, "spec.versions[0].schema.openAPIV3Schema")
			if len(errs) > 0 {
				t.Fatalf("%s %s: %v", crd, v, errs)
			}
			out[crd][v] = s
		}
	}
	return out
}

// celOnly are the fixtures whose captured errors come from CEL rules,
// which this package does not evaluate (the caller does).
var celOnly = map[string]bool{
	"bad-06-cel-small-too-many-toppings": true,
	"bad-07-cel-message-expression":      true,
}

// TestGoldenInvalidObjects runs each captured invalid object through
// Default, Prune and Validate (upstream's create order) and compares the
// causes with the real 1.33's answer: exact reasons, fields and texts, in
// order. Causes this package does not own are dropped from the expected
// list: metadata (ObjectMeta validation) and the CEL summary cause.
func TestGoldenInvalidObjects(t *testing.T) {
	schemas := loadSchemas(t)
	for crd := range crdFiles {
		files, _ := filepath.Glob(filepath.Join("testdata", "objects", crd, "bad-*.yaml"))
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".yaml")
			if celOnly[name] || name == "bad-11-yaml-1.1-boolean" {
				continue
			}
			t.Run(crd+"/"+name, func(t *testing.T) {
				st, isStatus := readAnswer(t, filepath.Join("testdata", "answers", crd, name+".status.client.txt"))
				if !isStatus {
					t.Fatal("answer is not a Status")
				}
				obj := yamlObject(t, f)
				version := obj["apiVersion"].(string)
				version = version[strings.LastIndexByte(version, '/')+1:]
				s := schemas[crd][version]
				s.Default(obj)
				unknown := s.Prune(obj)
				if st.Code == 400 {
					// Strict field validation: the message lists every pruned field
					var want []string
					for _, p := range strings.Split(st.Message[strings.Index(st.Message, "strict decoding error: ")+len("strict decoding error: "):], ", ") {
						want = append(want, strings.Trim(strings.TrimPrefix(p, "unknown field "), `"`))
					}
					if !reflect.DeepEqual(unknown, want) {
						t.Errorf("pruned %q, upstream reported %q", unknown, want)
					}
					return
				}
				var want []string
				for _, c := range st.Details.Causes {
					if strings.HasPrefix(c.Field, "metadata") || strings.Contains(c.Message, "some validation rules were not checked") {
						continue
					}
					want = append(want, c.Reason+" "+c.Field+": "+c.Message)
				}
				var got []string
				for _, e := range s.Validate(obj) {
					got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

// TestGoldenYAML11Boolean: kubectl reads `replacement: y` as the boolean
// true; upstream then answers with a type error (apply.txt).
func TestGoldenYAML11Boolean(t *testing.T) {
	s := loadSchemas(t)["servicemonitors.monitoring.coreos.com"]["v1"]
	obj := yamlObject(t, "testdata/objects/servicemonitors.monitoring.coreos.com/bad-11-yaml-1.1-boolean.yaml")
	s.Default(obj)
	s.Prune(obj)
	errs := s.Validate(obj)
	b, _ := os.ReadFile("testdata/answers/servicemonitors.monitoring.coreos.com/bad-11-yaml-1.1-boolean.apply.txt")
	want := strings.Split(string(b), "\n")[1]
	got := meta.NewInvalid("monitoring.coreos.com", "ServiceMonitor", "yaml-bool", errs).Status.Message
	// kubectl prints `The ServiceMonitor "yaml-bool" is invalid: ...`
	got = "The ServiceMonitor" + strings.TrimPrefix(got, "ServiceMonitor.monitoring.coreos.com")
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestGoldenStoredObjects: each valid object, defaulted and pruned, has
// the spec upstream stored.
func TestGoldenStoredObjects(t *testing.T) {
	schemas := loadSchemas(t)
	for crd := range crdFiles {
		files, _ := filepath.Glob(filepath.Join("testdata", "objects", crd, "ok-*.yaml"))
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".yaml")
			t.Run(crd+"/"+name, func(t *testing.T) {
				obj := yamlObject(t, f)
				version := obj["apiVersion"].(string)
				version = version[strings.LastIndexByte(version, '/')+1:]
				s := schemas[crd][version]
				s.Default(obj)
				s.Prune(obj)
				s.PruneNulls(obj)
				if errs := s.Validate(obj); len(errs) > 0 {
					t.Fatalf("valid object rejected: %v", errs)
				}
				b, err := os.ReadFile(filepath.Join("testdata", "answers", crd, name+".stored.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				_, doc, _ := bytes.Cut(b, []byte("\n"))
				doc = doc[:bytes.LastIndex(doc, []byte("[exit"))]
				j, err := yaml.YAMLToJSON(doc)
				if err != nil {
					t.Fatal(err)
				}
				stored := decodeObject(t, j)
				if stored["apiVersion"] != obj["apiVersion"] {
					t.Skipf("stored object read in another version (%v)", stored["apiVersion"])
				}
				got, _ := json.Marshal(obj["spec"])
				want, _ := json.Marshal(stored["spec"])
				if !bytes.Equal(got, want) {
					t.Errorf("spec\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

// TestGoldenNonStructural: the two non-structural v1 CRDs upstream
// rejects, with their causes in upstream's order (the CRD has one
// version, so upstream reports the schema under spec.validation).
func TestGoldenNonStructural(t *testing.T) {
	for _, name := range []string{"nonstructural-anyof-type", "nonstructural-missing-type"} {
		t.Run(name, func(t *testing.T) {
			schemas := crdSchemas(t, "../extra/"+name+".yaml")
			var raw []byte
			for _, r := range schemas {
				raw = r
			}
			_, errs := New(raw, "spec.validation.openAPIV3Schema")
			st, _ := readAnswer(t, filepath.Join("testdata", "extra", name+".status.client.txt"))
			var want, got []string
			for _, c := range st.Details.Causes {
				want = append(want, c.Reason+" "+c.Field+": "+c.Message)
			}
			for _, e := range errs {
				got = append(got, string(e.Type)+" "+e.Field+": "+e.ErrorBody())
			}
			sort.Strings(nil)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
