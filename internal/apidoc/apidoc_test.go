package apidoc

import (
	"reflect"
	"testing"
)

func TestParseComment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		doc     string
		markers Markers
	}{
		{"joined", []string{"Time is a wrapper around time.Time which supports correct marshaling to", "YAML and JSON.  Wrappers are provided."}, "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided.", nil},
		{"cut at ---", []string{"Shown.", "---", "Hidden.", "+optional"}, "Shown.", Markers{"optional": {""}}},
		{"--- inside a line is text", []string{"a --- b"}, "a --- b", nil},
		{"markers anywhere", []string{"+listType=map", "Ports.", "  +listMapKey=port", "+listMapKey=protocol"}, "Ports.", Markers{"listType": {"map"}, "listMapKey": {"port", "protocol"}}},
		{"marker value with =", []string{"+default={\"a\":\"b=c\"}"}, "", Markers{"default": {`{"a":"b=c"}`}}},
		{"indented lines", []string{"Object is:", " * If Added: new.", " * If Error: *Status is recommended; other", "   depending on context.", "After."}, "Object is:\n * If Added: new.\n * If Error: *Status is recommended; other\n   depending on context.\nAfter.", nil},
		{"paragraphs", []string{"One", "line.", "", "", "Two."}, "One line.\n\nTwo.", nil},
		{"leading blank and trailing spaces", []string{"", "A.  ", "B."}, "A. B.", nil},
		{"only go notes", []string{"---", "Type is ADDED or DELETED."}, "", nil},
		{"empty", nil, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, m, err := ParseComment(tc.lines)
			if err != nil {
				t.Fatal(err)
			}
			if doc != tc.doc {
				t.Errorf("doc %q, want %q", doc, tc.doc)
			}
			if !reflect.DeepEqual(m, tc.markers) {
				t.Errorf("markers %v, want %v", m, tc.markers)
			}
		})
	}
	if _, _, err := ParseComment([]string{"+"}); err == nil || err.Error() != `marker without a key: "+"` {
		t.Errorf("err = %v", err)
	}
}

func TestMarkers(t *testing.T) {
	m := Markers{"optional": {""}, "listMapKey": {"port", "protocol"}, "empty": nil}
	if v, ok := m.Get("listMapKey"); !ok || v != "port" {
		t.Errorf("Get = %q, %v", v, ok)
	}
	if v, ok := m.Get("optional"); !ok || v != "" {
		t.Errorf("Get bare = %q, %v", v, ok)
	}
	if v, ok := m.Get("empty"); !ok || v != "" {
		t.Errorf("Get no values = %q, %v", v, ok)
	}
	if _, ok := m.Get("required"); ok || m.Has("required") || !m.Has("optional") {
		t.Error("Has/Get of an absent key")
	}
}

type testKind struct {
	Name string `json:"name"`
}

type testKindList struct {
	Items []testKind `json:"items"`
}

type undocumented struct{}

func TestRegisterAndLookup(t *testing.T) {
	// The registry is process-wide: forget this package's registration
	// afterwards, so that -count=N runs register it afresh (the second
	// run panicked "package registered twice").
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		delete(packages, "github.com/aggsim/aggsim/internal/apidoc")
		for typ, ref := range types {
			if ref.pkg.Types[0].Type.PkgPath() == "github.com/aggsim/aggsim/internal/apidoc" {
				delete(types, typ)
			}
		}
	})
	Register(Package{
		Markers: Markers{"upstreamPackage": {"k8s.io/api/test/v1"}},
		Types: []Type{
			{Type: reflect.TypeFor[testKind](), Doc: "A kind.", Fields: []Field{{Name: "Name", Doc: "The name."}}},
			{Type: reflect.TypeFor[testKindList](), Doc: "A list."},
		},
	})
	d, p := Lookup(reflect.TypeFor[testKind]())
	if d == nil || d.Doc != "A kind." || p == nil || p.Markers["upstreamPackage"][0] != "k8s.io/api/test/v1" {
		t.Fatalf("Lookup = %+v, %+v", d, p)
	}
	if d, p := Lookup(reflect.TypeFor[undocumented]()); d != nil || p == nil {
		t.Errorf("undocumented type of a registered package: %+v, %+v", d, p)
	}
	if d, p := Lookup(reflect.TypeFor[string]()); d != nil || p != nil {
		t.Errorf("unregistered package: %+v, %+v", d, p)
	}
	if got := TypeByName(reflect.TypeFor[testKind](), "testKindList"); got != reflect.TypeFor[testKindList]() {
		t.Errorf("TypeByName = %v", got)
	}
	if got := TypeByName(reflect.TypeFor[testKind](), "nope"); got != nil {
		t.Errorf("TypeByName(nope) = %v", got)
	}
	if got := FieldDoc(reflect.TypeFor[testKind](), "Name"); got != "The name." {
		t.Errorf("FieldDoc = %q", got)
	}
	if got := FieldDoc(reflect.TypeFor[testKind](), "Other"); got != "" {
		t.Errorf("FieldDoc(Other) = %q", got)
	}
	defer func() {
		if r := recover(); r != "apidoc: package registered twice: github.com/aggsim/aggsim/internal/apidoc" {
			t.Errorf("second Register: recover() = %v", r)
		}
	}()
	Register(Package{Types: []Type{{Type: reflect.TypeFor[undocumented]()}}})
}
