package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/internal/apidoc"
)

// OutputFile is the name of the generated file in each API package.
const OutputFile = "zz_generated.docs.go"

// Marker keys by where they may appear.
var (
	packageMarkers = map[string]bool{"upstreamPackage": true}
	typeMarkers    = map[string]bool{"upstreamPackage": true, "structType": true, "union": true, "openapi:type": true, "openapi:format": true, "openapi:v3OneOf": true}
	fieldMarkers   = map[string]bool{
		"optional": true, "required": true, "default": true,
		"listType": true, "listMapKey": true, "mapType": true,
		"unionDiscriminator": true, "openapi:skip": true, "openapi:noDefault": true, "openapi:enum": true, "protobuf:emit": true,
	}
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	src, err := Generate(dir)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, OutputFile), src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apigen:", err)
		os.Exit(1)
	}
}

// docType is one documented type as read from the source.
type docType struct {
	name    string
	doc     string
	markers apidoc.Markers
	fields  []docField
}

type docField struct {
	name    string
	doc     string
	markers apidoc.Markers
}

// Generate returns the gofmt'ed source of dir's zz_generated.docs.go.
// Errors: the directory does not parse as one Go package, or a comment
// holds an unknown or misplaced marker.
func Generate(dir string) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var names []string
	pkgName := ""
	for _, e := range entries { // sorted by name
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == OutputFile {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if pkgName != "" && f.Name.Name != pkgName {
			return nil, fmt.Errorf("%s: packages %s and %s", dir, pkgName, f.Name.Name)
		}
		pkgName = f.Name.Name
		files = append(files, f)
		names = append(names, n)
	}
	if pkgName == "" {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}

	var pkgMarkers apidoc.Markers
	var typesOut []docType
	for i, f := range files {
		name := names[i]
		if f.Doc != nil {
			_, m, err := parseGroup(f.Doc, packageMarkers)
			if err != nil {
				return nil, fmt.Errorf("%s: package comment: %w", name, err)
			}
			for k, v := range m {
				if pkgMarkers == nil {
					pkgMarkers = apidoc.Markers{}
				}
				pkgMarkers[k] = append(pkgMarkers[k], v...)
			}
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Name.IsExported() {
					continue
				}
				cg := ts.Doc
				if cg == nil && len(gd.Specs) == 1 {
					cg = gd.Doc
				}
				t, keep, err := readType(ts, cg)
				if err != nil {
					return nil, fmt.Errorf("%s: type %s: %w", name, ts.Name.Name, err)
				}
				if keep {
					typesOut = append(typesOut, t)
				}
			}
		}
	}
	if len(typesOut) == 0 {
		return nil, errors.New(dir + ": no documented types")
	}
	return render(pkgName, pkgMarkers, typesOut)
}

// readType reads the doc of one type and of its fields; keep says whether
// the type is documented at all.
func readType(ts *ast.TypeSpec, cg *ast.CommentGroup) (docType, bool, error) {
	t := docType{name: ts.Name.Name}
	var err error
	if t.doc, t.markers, err = parseGroup(cg, typeMarkers); err != nil {
		return t, false, err
	}
	st, isStruct := ts.Type.(*ast.StructType)
	tagged := false
	if isStruct {
		for _, f := range st.Fields.List {
			if f.Tag != nil {
				tag, _ := strconv.Unquote(f.Tag.Value)
				if strings.Contains(tag, `json:"`) || strings.Contains(tag, `protobuf:"`) {
					tagged = true
				}
			}
			doc, m, err := parseGroup(f.Doc, fieldMarkers)
			if err != nil {
				return t, false, fmt.Errorf("field %s: %w", fieldName(f), err)
			}
			if doc == "" && len(m) == 0 {
				continue
			}
			for _, n := range fieldNames(f) {
				if ast.IsExported(n) {
					t.fields = append(t.fields, docField{name: n, doc: doc, markers: m})
				}
			}
		}
	}
	empty := isStruct && len(st.Fields.List) == 0
	return t, tagged || empty || len(t.markers) > 0, nil
}

func fieldName(f *ast.Field) string { return strings.Join(fieldNames(f), ", ") }

// fieldNames returns the names of a field declaration; an embedded field
// is named by its type.
func fieldNames(f *ast.Field) []string {
	if len(f.Names) > 0 {
		out := make([]string, len(f.Names))
		for i, n := range f.Names {
			out[i] = n.Name
		}
		return out
	}
	x := f.Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if sel, ok := x.(*ast.SelectorExpr); ok {
		return []string{sel.Sel.Name}
	}
	if id, ok := x.(*ast.Ident); ok {
		return []string{id.Name}
	}
	return nil
}

// parseGroup parses a comment group and checks its marker keys against
// allowed.
func parseGroup(cg *ast.CommentGroup, allowed map[string]bool) (string, apidoc.Markers, error) {
	if cg == nil {
		return "", nil, nil
	}
	var lines []string
	for _, c := range cg.List {
		text := c.Text
		if !strings.HasPrefix(text, "//") {
			return "", nil, fmt.Errorf("block comments are not supported: %.20q", text)
		}
		if strings.HasPrefix(text, "//go:") {
			continue // a directive, not documentation
		}
		text = strings.TrimPrefix(text, "//")
		text = strings.TrimPrefix(text, " ")
		lines = append(lines, text)
	}
	doc, m, err := apidoc.ParseComment(lines)
	if err != nil {
		return "", nil, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !allowed[k] {
			return "", nil, fmt.Errorf("marker +%s is not allowed here", k)
		}
	}
	return doc, m, nil
}

// render writes the generated file: an init that registers
// generatedDocs, which builds the package's documentation when it is
// first looked up.
func render(pkgName string, pkgMarkers apidoc.Markers, ts []docType) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/apigen from the doc comments of this package. DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n\n", pkgName)
	b.WriteString("import (\n\t\"reflect\"\n\n\t\"github.com/aggsim/aggsim/internal/apidoc\"\n)\n\n")
	if len(ts) == 0 {
		return nil, fmt.Errorf("package %s: no documented types", pkgName)
	}
	fmt.Fprintf(&b, "func init() {\n\tapidoc.RegisterFunc(reflect.TypeFor[%s](), generatedDocs)\n}\n\n", ts[0].name)
	b.WriteString("// generatedDocs returns the documentation of this package's types;\n// internal/apidoc calls it on the package's first lookup.\n")
	b.WriteString("func generatedDocs() apidoc.Package {\n\treturn apidoc.Package{\n")
	if len(pkgMarkers) > 0 {
		fmt.Fprintf(&b, "Markers: %s,\n", markersLiteral(pkgMarkers))
	}
	b.WriteString("Types: []apidoc.Type{\n")
	for _, t := range ts {
		fmt.Fprintf(&b, "{\nType: reflect.TypeFor[%s](),\n", t.name)
		if t.doc != "" {
			fmt.Fprintf(&b, "Doc: %s,\n", strconv.Quote(t.doc))
		}
		if len(t.markers) > 0 {
			fmt.Fprintf(&b, "Markers: %s,\n", markersLiteral(t.markers))
		}
		if len(t.fields) > 0 {
			b.WriteString("Fields: []apidoc.Field{\n")
			for _, f := range t.fields {
				fmt.Fprintf(&b, "{Name: %q", f.name)
				if f.doc != "" {
					fmt.Fprintf(&b, ", Doc: %s", strconv.Quote(f.doc))
				}
				if len(f.markers) > 0 {
					fmt.Fprintf(&b, ", Markers: %s", markersLiteral(f.markers))
				}
				b.WriteString("},\n")
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
	}
	b.WriteString("},\n}\n}\n")
	return format.Source(b.Bytes())
}

// markersLiteral writes m as a Go composite literal, keys sorted.
func markersLiteral(m apidoc.Markers) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("apidoc.Markers{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: {", k)
		for j, v := range m[k] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(v))
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	return b.String()
}
