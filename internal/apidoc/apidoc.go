package apidoc

import (
	"fmt"
	"reflect"
	"sync"
)

// Markers are the markers of one doc comment: the values of each key in
// the order written ("" for a bare "+key").
type Markers map[string][]string

// Has reports whether the marker key is present.
func (m Markers) Has(key string) bool {
	_, ok := m[key]
	return ok
}

// Get returns the first value of key and whether key is present.
func (m Markers) Get(key string) (string, bool) {
	v, ok := m[key]
	if !ok || len(v) == 0 {
		return "", ok
	}
	return v[0], true
}

// Field is the generated documentation of one struct field.
type Field struct {
	// Name is the Go field name (the type name for an embedded field).
	Name string
	// Doc is the field's description (see the package comment).
	Doc string
	// Markers are the field's markers.
	Markers Markers
}

// Type is the generated documentation of one named type.
type Type struct {
	// Type is the documented Go type.
	Type reflect.Type
	// Doc is the type's description.
	Doc string
	// Markers are the type's markers.
	Markers Markers
	// Fields are the documented fields (those with a description or a
	// marker), in declaration order.
	Fields []Field
}

// Field returns the documentation of the Go field name, or nil.
func (t *Type) Field(name string) *Field {
	if t == nil {
		return nil
	}
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}

// Package is the generated documentation of one API package.
type Package struct {
	// Markers are the package's markers (from its package doc comment).
	Markers Markers
	// Types are the documented types, in declaration order.
	Types []Type
}

var (
	mu       sync.RWMutex
	packages = map[string]*Package{}       // by import path
	types    = map[reflect.Type]*typeRef{} // every registered type
	// pending are the packages registered with RegisterFunc and not yet
	// looked up, by import path: their builders.
	pending = map[string]func() Package{}
)

type typeRef struct {
	t   *Type
	pkg *Package
}

// Register records the documentation of one package now (the generated
// files use RegisterFunc; tests register their own packages with this).
// It panics when the types are not all from one package, or when that
// package or a type is registered twice (a programming error).
func Register(p Package) {
	mu.Lock()
	defer mu.Unlock()
	register(p, "")
}

// RegisterFunc records build as the documentation of the package that
// sibling belongs to; build runs on the first Lookup, TypeByName or
// FieldDoc of a type of that package, once. The generated
// zz_generated.docs.go of each API package calls it from init, so that a
// process builds only the documentation it reads (issue 21: an idle
// `aggsim serve` reads that of three packages of twelve; building all at
// init allocated about 250 kB and ran 130 kB of init code). It panics when
// the package is registered twice; build's result panics as Register's
// argument does, and when its types are not sibling's package.
func RegisterFunc(sibling reflect.Type, build func() Package) {
	mu.Lock()
	defer mu.Unlock()
	path := sibling.PkgPath()
	if _, dup := pending[path]; dup || packages[path] != nil {
		panic("apidoc: package registered twice: " + path)
	}
	pending[path] = build
}

// load builds the package at path if it was registered with RegisterFunc
// and not yet built.
func load(path string) {
	mu.RLock()
	build := pending[path]
	mu.RUnlock()
	if build == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if build = pending[path]; build == nil {
		return // built meanwhile
	}
	delete(pending, path)
	register(build(), path)
}

// register records p (the lock held); want, when not "", is the import
// path p's types must have.
func register(p Package, want string) {
	path := ""
	for _, t := range p.Types {
		if path == "" {
			path = t.Type.PkgPath()
		}
		if t.Type.PkgPath() != path {
			panic(fmt.Sprintf("apidoc: package of %v is not %s", t.Type, path))
		}
	}
	if path == "" {
		panic("apidoc: Register without types")
	}
	if want != "" && path != want {
		panic(fmt.Sprintf("apidoc: package of %v is not %s", p.Types[0].Type, want))
	}
	if _, dup := packages[path]; dup || pending[path] != nil {
		panic("apidoc: package registered twice: " + path)
	}
	pkg := &p
	packages[path] = pkg
	for i := range pkg.Types {
		t := &pkg.Types[i]
		if _, dup := types[t.Type]; dup {
			panic(fmt.Sprintf("apidoc: type registered twice: %v", t.Type))
		}
		types[t.Type] = &typeRef{t: t, pkg: pkg}
	}
}

// Lookup returns the documentation of t and of its package; both are nil
// when t's package registered none, and the Type is nil when the package
// did not document t. The results must not be modified.
func Lookup(t reflect.Type) (*Type, *Package) {
	load(t.PkgPath())
	mu.RLock()
	defer mu.RUnlock()
	if r, ok := types[t]; ok {
		return r.t, r.pkg
	}
	return nil, packages[t.PkgPath()]
}

// TypeByName returns the documented type called name in the package of
// sibling (e.g. the list type "NamespaceList" next to Namespace), or nil.
func TypeByName(sibling reflect.Type, name string) reflect.Type {
	load(sibling.PkgPath())
	mu.RLock()
	defer mu.RUnlock()
	p := packages[sibling.PkgPath()]
	if p == nil {
		return nil
	}
	for i := range p.Types {
		if p.Types[i].Type.Name() == name {
			return p.Types[i].Type
		}
	}
	return nil
}

// FieldDoc returns the description of field name of t ("" when either
// is undocumented), e.g. for table column descriptions, which upstream
// takes from the same documentation.
func FieldDoc(t reflect.Type, name string) string {
	d, _ := Lookup(t)
	if f := d.Field(name); f != nil {
		return f.Doc
	}
	return ""
}
