package registry

import (
	"reflect"
	"strings"

	"github.com/aggsim/aggsim/internal/apidoc"
)

// AtomicListElementsOf returns the dotted JSON paths (as MergeKeysOf
// names them) of the keyed lists of wire type t whose element type is
// marked +structType=atomic, such as ServiceAccount.secrets (a list map of
// ObjectReference): structured-merge-diff owns each such element as one
// field (`k:{"name":"a"}: {}`) instead of field by field.
func AtomicListElementsOf(t reflect.Type) []string {
	var out []string
	walkWireFields(t, func(f reflect.StructField, p string) bool {
		if f.Tag.Get("patchMergeKey") != "" && f.Type.Kind() == reflect.Slice {
			elem := f.Type.Elem()
			for elem.Kind() == reflect.Pointer {
				elem = elem.Elem()
			}
			if doc, _ := apidoc.Lookup(elem); doc != nil {
				if v, _ := doc.Markers.Get("structType"); v == "atomic" {
					out = append(out, p)
					return false
				}
			}
		}
		return true
	})
	return out
}

// walkWireFields calls visit for every exported JSON field of wire type t
// and, depth first, of the struct types its fields hold (through
// pointers, slices and maps), with the field's dotted JSON path (an
// embedded field's own fields continue its parent's path); fields tagged
// json:"-" are skipped, and visit returning false skips the field's type.
// A type is walked once per path: recursion stops at a type already on
// the path.
func walkWireFields(t reflect.Type, visit func(f reflect.StructField, path string) bool) {
	var walk func(t reflect.Type, path string, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, path string, seen map[reflect.Type]bool) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			p := path
			if name != "" {
				if p != "" {
					p += "."
				}
				p += name
			}
			if visit(f, p) {
				walk(f.Type, p, seen)
			}
		}
	}
	walk(t, "", map[reflect.Type]bool{})
}
