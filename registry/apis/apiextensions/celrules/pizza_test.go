package celrules

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

func yamlObject(t *testing.T, file string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// kubectlMessage prints causes as kubectl prints an Invalid Status.
func kubectlMessage(kind, name string, errs []string) string {
	if len(errs) == 1 {
		return "The " + kind + " \"" + name + "\" is invalid: " + errs[0]
	}
	return "The " + kind + " \"" + name + "\" is invalid: \n* " + strings.Join(errs, "\n* ")
}

// TestPizzaMatchesReference runs the Pizza CRD's rules (the shared CRD
// captures of a real 1.33.13, copied into testdata/pizza, see SOURCES.md)
// after defaulting, as upstream does: bad-06 (message), bad-07
// (messageExpression, reason FieldValueRequired, fieldPath) and ok-02 as
// `kubectl apply` answered them, and the crust transition rule on update.
func TestPizzaMatchesReference(t *testing.T) {
	crd := yamlObject(t, "testdata/pizza/restaurant.example.com_pizzas.yaml")
	versions := crd["spec"].(map[string]any)["versions"].([]any)
	var schemaJSON []byte
	for _, v := range versions {
		v := v.(map[string]any)
		if v["name"] == "v1beta1" {
			schemaJSON, _ = json.Marshal(v["schema"].(map[string]any)["openAPIV3Schema"])
		}
	}
	s, errs := structural.New(schemaJSON, "spec.validation.openAPIV3Schema")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	v, errs := Compile(s, "spec.validation.openAPIV3Schema")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct{ obj, capture string }{
		{"bad-06-cel-small-too-many-toppings.yaml", "bad-06-cel-small-too-many-toppings.apply.txt"},
		{"bad-07-cel-message-expression.yaml", "bad-07-cel-message-expression.apply.txt"},
		{"ok-02-full.yaml", "ok-02-full.apply.txt"},
	} {
		obj := yamlObject(t, "testdata/pizza/"+tc.obj)
		s.Default(obj)
		if errs := s.Validate(obj); len(errs) != 0 {
			t.Fatalf("%s: schema errors %v", tc.obj, errs)
		}
		raw, err := os.ReadFile("testdata/pizza/" + tc.capture)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(string(raw), "\n")[1]
		var lines []string
		for _, e := range v.Validate(obj, nil) {
			lines = append(lines, e.Error())
		}
		name := obj["metadata"].(map[string]any)["name"].(string)
		got := kubectlMessage("Pizza", name, lines)
		if len(lines) == 0 {
			got = "pizza.restaurant.example.com/" + name + " created"
		}
		if got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.obj, got, want)
		}
	}
	old := yamlObject(t, "testdata/pizza/ok-02-full.yaml")
	s.Default(old)
	obj := yamlObject(t, "testdata/pizza/ok-02-full.yaml")
	s.Default(obj)
	obj["spec"].(map[string]any)["crust"] = "deep-pan"
	var lines []string
	for _, e := range v.Validate(obj, old) {
		lines = append(lines, e.Error())
	}
	// status-subresource.txt: kubectl patch ... -p '{"spec":{"crust":"deep-pan"}}'
	if got, want := kubectlMessage("Pizza", "capricciosa", lines), `The Pizza "capricciosa" is invalid: spec.crust: Invalid value: "string": crust is immutable`; got != want {
		t.Errorf("crust update: got\n%s\nwant\n%s", got, want)
	}
}
