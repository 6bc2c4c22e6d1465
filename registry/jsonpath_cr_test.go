package registry

import (
	"encoding/json"
	"testing"
)

// TestColumnPathOddInputs: paths a CRD may carry parse or fail without a
// panic, and evaluate without one on values of every JSON type; the ones
// kube-apiserver 1.33.13 refused to parse (`.metadata["labels"].app`,
// testdata of aggregator's TestCRDPrinterColumnsJSONPathAsUpstream) fail.
func TestColumnPathOddInputs(t *testing.T) {
	var obj map[string]any
	_ = json.Unmarshal([]byte(`{"a":[1,"x",null,{"b":[]},[2]],"s":"str","n":1.5,"t":true,"z":null,"m":{"k":{"k":"v"}}}`), &obj)
	for _, p := range []string{
		"", ".", "..", "...", "$", "$.a", "@", "[", "]", "[]", "[:]", "[::]", "[::-1]", "[0:0]", "[-]", "[a]",
		"[?(", "[?()]", "[?(@)]", "[?(@.b)]", "[?(@ == )]", "[?(@ === 1)]", "[?(@ == 'x')]", "[?(@ < true)]",
		".a[*]", ".a[?(@ > 0)]", ".a[?(@.b)]", ".a[9]", ".a[-9]", ".a[1:0]", ".a[0,9]", ".s[0]", ".s.x", ".s..",
		"..k", "..[0]", "..*", ".m.*.k", ".m['k']['k']", `.m\.k`, `.a\`, "{.a}", "['a'", "[\"a\"]", ".a[?(@ == -)]",
	} {
		cp, err := parseColumnPath(p)
		if err != nil {
			continue
		}
		cp.first(obj)
		cp.first(nil)
		cp.first([]any{"x"})
	}
	if _, err := parseColumnPath(`.metadata["labels"].app`); err == nil {
		t.Error(`.metadata["labels"].app parsed; upstream's parser refuses it`)
	}
	for path, want := range map[string]string{
		".a[?(@.b)].b": `[]`, ".m..k": `{"k":"v"}`, ".a[-1][0]": `2`, `.m['k'].k`: `"v"`, ".a[1:3]": `"x"`,
	} {
		cp, err := parseColumnPath(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		v, ok := cp.first(obj)
		if b, _ := json.Marshal(v); !ok || string(b) != want {
			t.Errorf("%s: got %s %v, want %s", path, b, ok, want)
		}
	}
}
