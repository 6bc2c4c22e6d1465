package refsuite

import (
	"bytes"
	"testing"
)

// TestRenameSharedParameters: v2 shared parameters are named after a hash
// of their JSON with descriptions normalised, so two servers whose
// descriptions differ get the same names; parameters only their
// descriptions told apart merge; unused ones go; references follow.
func TestRenameSharedParameters(t *testing.T) {
	doc := func(desc1, desc2 string) []byte {
		return []byte(`{"paths":{"/a":{"parameters":[{"$ref":"#/parameters/fieldManager-AAAAAAAA"},{"$ref":"#/parameters/fieldManager-BBBBBBBB"}]}},` +
			`"parameters":{"fieldManager-AAAAAAAA":{"type":"string","description":"` + desc1 + `","name":"fieldManager","in":"query"},` +
			`"fieldManager-BBBBBBBB":{"type":"string","description":"` + desc2 + `","name":"fieldManager","in":"query"},` +
			`"unused-CCCCCCCC":{"type":"string","name":"unused","in":"query"}}}`)
	}
	render := func(b []byte) string {
		vals, ok := decodeStream(b)
		if !ok || !filterOpenAPI(vals[0]) {
			t.Fatalf("%s: not changed", b)
		}
		var buf bytes.Buffer
		encodeOrdered(&buf, vals[0])
		return buf.String()
	}
	upstream, aggsim := render(doc("upstream's words", "more of upstream's words")), render(doc("aggsim's", "aggsim's other"))
	const want = `{"paths":{"/a":{"parameters":[{"$ref":"#/parameters/fieldManager-TIi9DJsg"},{"$ref":"#/parameters/fieldManager-TIi9DJsg"}]}},` +
		`"parameters":{"fieldManager-TIi9DJsg":{"type":"string","description":"<description>","name":"fieldManager","in":"query"}}}`
	if upstream != want || aggsim != want {
		t.Errorf("upstream's\n%s\naggsim's\n%s\nwant\n%s", upstream, aggsim, want)
	}
}
