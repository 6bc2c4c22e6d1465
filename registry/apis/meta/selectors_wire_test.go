package meta

import (
	"reflect"
	"strings"
	"testing"
)

// TestSelectorFromWire pins the conversion of a wire label selector to
// requirements: matchLabels as equalities in key order, then the
// expressions; an unknown operator matches nothing.
func TestSelectorFromWire(t *testing.T) {
	got := SelectorFromWire(map[string]string{"b": "2", "a": "1"}, []LabelSelectorRequirement{
		{Key: "c", Operator: "In", Values: []string{"x"}},
		{Key: "d", Operator: "NotIn", Values: []string{"y"}},
		{Key: "e", Operator: "Exists"},
		{Key: "f", Operator: "DoesNotExist"},
		{Key: "g", Operator: "Gt", Values: []string{"1"}},
	})
	want := ParsedLabelSelector{
		{Key: "a", Op: OpEquals, Values: []string{"1"}},
		{Key: "b", Op: OpEquals, Values: []string{"2"}},
		{Key: "c", Op: OpIn, Values: []string{"x"}},
		{Key: "d", Op: OpNotIn, Values: []string{"y"}},
		{Key: "e", Op: OpExists},
		{Key: "f", Op: OpDoesNotExist},
		{Key: "g", Op: "", Values: []string{"1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	if got[6].Matches(map[string]string{"g": "2"}) {
		t.Error("an unknown operator matched")
	}
}

// TestValidateLabelSelector pins the order and text of the errors of
// metav1validation.ValidateLabelSelector.
func TestValidateLabelSelector(t *testing.T) {
	if errs := ValidateLabelSelector(nil, "s"); errs != nil {
		t.Fatalf("nil selector: %v", errs)
	}
	errs := ValidateLabelSelector(&LabelSelector{MatchLabels: map[string]string{"a/b/c": "v"}, MatchExpressions: []LabelSelectorRequirement{
		{Key: "k", Operator: "In"},
		{Key: "k", Operator: "Exists", Values: []string{"x"}},
		{Key: "-k", Operator: "Gt", Values: []string{"-"}},
	}}, "s")
	var lines []string
	for _, e := range errs {
		lines = append(lines, e.Error())
	}
	want := []string{
		`s.matchLabels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
		"s.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
		"s.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
		`s.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator`,
		`s.matchExpressions[2].key: Invalid value: "-k": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		`s.matchExpressions[2].values[0]: Invalid value: "-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
	}
	if g, w := strings.Join(lines, "\n"), strings.Join(want, "\n"); g != w {
		t.Fatalf("got\n%s\nwant\n%s", g, w)
	}
}
