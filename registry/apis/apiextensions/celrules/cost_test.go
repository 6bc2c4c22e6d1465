package celrules

import (
	"os"
	"strings"
	"testing"
)

// TestCompileCostMatchesReference: testdata/crd-costly.yaml (the rules of
// crd-rules.yaml without maxItems/maxProperties/maxLength and with
// string(int) in a messageExpression) as a real 1.33.13 refused it
// (testdata/crd-costly.txt, `kubectl create -f crd-costly.yaml`): the
// messageExpression limit, the four most expensive contributors and the
// total. crd-rules.yaml, the bounded variant, was accepted.
func TestCompileCostMatchesReference(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{"testdata/crd-costly.schema.json", "testdata/crd-costly.txt"},
		{"testdata/crd-libcost.schema.json", "testdata/crd-libcost.txt"},
		{"testdata/crd-libcost-bounded.schema.json", "testdata/crd-libcost-bounded.txt"},
		{"testdata/crd-libcost-tight.schema.json", "testdata/crd-libcost-tight.txt"},
		{"testdata/crd-budget-over.schema.json", "testdata/crd-budget-over.txt"},
		{"testdata/crd-keys.schema.json", "testdata/crd-keys.txt"},
		{"testdata/crd-keys-bounded.schema.json", "testdata/crd-keys-bounded.txt"},
	} {
		lines := compileErrorLines(t, tc.schema)
		want, err := os.ReadFile(tc.want)
		if err != nil {
			t.Fatal(err)
		}
		first, rest, _ := strings.Cut(string(want), "\n")
		name, _, _ := strings.Cut(strings.TrimPrefix(rest, "The CustomResourceDefinition \""), "\"")
		got := first + "\n" + crdErrorText(name, lines) + "[exit 1]\n"
		if got != string(want) {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	}
	if lines := compileErrorLines(t, "testdata/crd-rules.schema.json"); len(lines) != 0 {
		t.Errorf("crd-rules.yaml was accepted by the reference; got %v", lines)
	}
}

// TestRuntimeCostMatchesReference: the per-call limit and the per-request
// budget as a real 1.33.13 enforced them (testdata/objects/percall-*.txt
// against crd-percall.yaml, runtime-*.txt against crd-runtime.yaml,
// budget.txt against crd-budget.yaml; commands in each capture): a rule over the per-call limit stops all further rules
// ("'operation cancelled: actual cost limit exceeded': no further
// validation rules will be run ..."), and three full-cost rules on ten list
// items run out of the 10M budget at the fourth item.
func TestRuntimeCostMatchesReference(t *testing.T) {
	// find() costs ceil((1+len)*0.1)*ceil(len(regex)*0.25): 1,000,100 for
	// 100000 characters, over the 1M per-call limit; 990,100 for 99000
	// (crd-percall.yaml).
	_, pc := loadValidator(t, "testdata/crd-percall.schema.json")
	check(t, pc, "percall-1.json", "", "percall-1.txt")
	check(t, pc, "percall-2.json", "", "percall-2.txt")
	if raceEnabled {
		// cel-go's cost tracker is quadratic in the depth of nested
		// comprehensions (upstream's too): these take 5 s without the race
		// detector and ten times that with it.
		t.Skip("the per-request budget cases are too slow under -race")
	}
	_, rt := loadValidator(t, "testdata/crd-runtime.schema.json")
	check(t, rt, "runtime-percall.json", "", "runtime-percall.txt")
	check(t, rt, "runtime-small.json", "", "runtime-small.txt")
	_, b := loadValidator(t, "testdata/crd-budget.schema.json")
	check(t, b, "budget.json", "", "budget.txt")
}
