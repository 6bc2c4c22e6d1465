package registry

import (
	_ "embed" // openAPIBlob
)

// aggsim's own OpenAPI documents are built at build time, not at start:
// building them from the Go types (buildOpenAPIDocs) cost about 14 ms of
// CPU per process, a fifth of a fresh `aggsim serve` start. `go generate
// ./registry` (TestOpenAPIGeneratedUpToDate -update-openapi) writes every
// document, one a line, into zz_generated.openapi.jsonl and the key,
// offset, length and hash of each into zz_generated.openapi.go;
// TestOpenAPIGeneratedUpToDate fails when either differs from what
// buildOpenAPIDocs builds now. The embedded bytes are served as they are:
// nothing is copied, parsed or hashed at run time.
//
//go:generate go test -run ^TestOpenAPIGeneratedUpToDate$ . -update-openapi

// openAPIBlob holds the generated documents, one a line.
//
//go:embed zz_generated.openapi.jsonl
var openAPIBlob []byte

// openAPIGeneratedDoc places one generated document in openAPIBlob.
type openAPIGeneratedDoc struct {
	// set is openAPISetOwn or openAPISetAlpha.
	set string
	// key is "" for the v2 document, else the v3 document's key
	// ("api/v1", "apis/<group>/<version>").
	key string
	// off and n are the document's offset and length in openAPIBlob, in
	// bytes.
	off, n int
	// hash is OpenAPIHash of the document.
	hash string
}

// The generated document sets: aggsim's own (Strategies), and the alpha
// group-versions (Strategies plus MutatingAdmissionPolicyStrategies, only
// the keys OpenAPIV3AlphaGroupVersions lists).
const (
	openAPISetOwn   = "own"
	openAPISetAlpha = "alpha"
)

// generatedOpenAPIDocs returns the generated documents of set, slices of
// openAPIBlob.
func generatedOpenAPIDocs(set string) *openAPIDocSet {
	d := &openAPIDocSet{v3: map[string][]byte{}, v3hash: map[string]string{}}
	for _, g := range openAPIGenerated {
		if g.set != set {
			continue
		}
		b := openAPIBlob[g.off : g.off+g.n : g.off+g.n]
		if g.key == "" {
			d.v2, d.v2hash = b, g.hash
			continue
		}
		d.v3[g.key], d.v3hash[g.key] = b, g.hash
	}
	return d
}
