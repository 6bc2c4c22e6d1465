package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/aggsim/aggsim"

// rank orders aggsim's packages from the top (cmd) down to the wire types.
// A package may import only packages of a strictly lower rank: imports
// point down, as ARCHITECTURE.md's cmd → aggregator → discovery/proxy →
// registry → storage.
var rank = map[string]int{
	"cmd/aggsim":                          90,
	"demo":                                80, // a backend: uses the aggregator's filters, never imported by it
	"aggregator/aggregatortest":           75,
	"aggregator/inspectorpage":            72, // the web inspector: a view of aggregator's /debug/aggsim data
	"aggregator":                          70,
	"aggregator/admission":                65, // admission webhooks for what aggsim serves itself
	"aggregator/openapiaggregator":        60,
	"discovery":                           50,
	"proxy":                               50,
	"aggregator/request":                  40,
	"registry/rest":                       35,
	"registry/openapi":                    25, // OpenAPI documents derived from the wire types
	"registry":                            30,
	"registry/storage":                    20,
	"registry/negotiation":                15,
	"registry/apis/apiregistration":       12,
	"registry/apis/admissionregistration": 13, // compiles policies' CEL with celrules' environment
	"registry/apis/flowcontrol":           12,
	"registry/apis/coordination":          12,
	"registry/apis/core":                  12,
	"registry/apis/authorization":         12,
	"registry/apis/rbac":                  12,
	"registry/apis/apiextensions":         12,
	"registry/apis/authentication":        11,
	"registry/apis/version":               10,
	"registry/apis/meta":                  10,
	"certs":                               10,
	"internal/latencybench":               5,
	"internal/etcdtest":                   5,  // runs a real etcd for tests; imported by tests only
	"internal/refsuite":                   2,  // the differential suite: HTTPS and kubectl only, imports no server package
	"internal/refsuite/cmd/refsuite":      3,  // its command, run by make e2e-reference
	"internal/apidoc":                     5,  // the doc model the wire types register
	"internal/apigen":                     95, // go:generate tool, imported by nothing
	"internal/floorbench":                 95, // issue 21 benchmark command, imported by nothing
	"internal/stackstart":                 5,  // issue 21: the goroutine starting-stack ballast `aggsim serve` runs
	"internal/codepages":                  5,  // issue 21: drops the binary's start-up pages from the page tables
	"internal/uuid4":                      5,  // version 4 UUIDs: Audit-Id, metadata.uid
	"internal/archtest":                   1,

	"registry/apis/apiextensions/structural": 11, // the CRD schema engine: pure, imports no wire types
	"registry/apis/apiextensions/celrules":   12, // CEL x-kubernetes-validations rules: pure, over structural
}

// forbidden lists imports that the ranks allow but the design does not:
// the request path (proxy, discovery, request identity) never links the
// store, and wire types never know storage or HTTP handling.
var forbidden = map[string][]string{
	"proxy":              {"registry", "registry/rest", "registry/storage"},
	"discovery":          {"registry", "registry/rest", "registry/storage"},
	"aggregator/request": {"registry", "registry/rest", "registry/storage"},
}

// imports returns the aggsim packages the non-test Go files in dir import,
// relative to the module.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				seen[rel] = true
			}
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// TestImportsPointDown walks every package of the module: each must have a
// rank (a new package is placed consciously), may import only lower-ranked
// packages, and none of the forbidden ones.
func TestImportsPointDown(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		goFiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		hasProd := slices.ContainsFunc(goFiles, func(f string) bool { return !strings.HasSuffix(f, "_test.go") })
		if !hasProd {
			return nil
		}
		r, ok := rank[rel]
		if !ok {
			t.Errorf("package %s has no rank in layering_test.go: place it in the layering", rel)
			return nil
		}
		for _, imp := range imports(t, path) {
			ir, ok := rank[imp]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which has no rank", rel, imp)
			case ir >= r:
				t.Errorf("%s (rank %d) imports %s (rank %d): imports must point down", rel, r, imp, ir)
			case slices.Contains(forbidden[rel], imp):
				t.Errorf("%s imports %s, which the request path must not link", rel, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
