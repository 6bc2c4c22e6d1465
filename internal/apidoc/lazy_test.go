package apidoc

import (
	"reflect"
	"testing"
)

// forgetThisPackage drops what the tests of this package registered
// under its own import path, so that tests and -count=N runs start afresh.
func forgetThisPackage() {
	const path = "github.com/aggsim/aggsim/internal/apidoc"
	mu.Lock()
	defer mu.Unlock()
	delete(packages, path)
	delete(pending, path)
	for typ := range types {
		if typ.PkgPath() == path {
			delete(types, typ)
		}
	}
}

// TestRegisterFuncBuildsOnFirstLookup pins RegisterFunc's contract (issue
// 21): the builder does not run at registration, runs once on the first
// lookup of any type of its package, and what it returns answers Lookup,
// TypeByName and FieldDoc as Register's argument would.
func TestRegisterFuncBuildsOnFirstLookup(t *testing.T) {
	forgetThisPackage()
	t.Cleanup(forgetThisPackage)
	builds := 0
	RegisterFunc(reflect.TypeFor[testKind](), func() Package {
		builds++
		return Package{
			Markers: Markers{"upstreamPackage": {"k8s.io/api/test/v1"}},
			Types: []Type{
				{Type: reflect.TypeFor[testKind](), Doc: "A kind.", Fields: []Field{{Name: "Name", Doc: "The name."}}},
				{Type: reflect.TypeFor[testKindList](), Doc: "A list."},
			},
		}
	})
	if builds != 0 {
		t.Fatalf("builder ran %d times at RegisterFunc, want 0", builds)
	}
	if d, p := Lookup(reflect.TypeFor[string]()); d != nil || p != nil || builds != 0 {
		t.Fatalf("Lookup(string) = %+v, %+v; builds %d, want nil, nil, 0", d, p, builds)
	}
	if d, p := Lookup(reflect.TypeFor[undocumented]()); d != nil || p == nil || p.Markers["upstreamPackage"][0] != "k8s.io/api/test/v1" {
		t.Fatalf("Lookup(undocumented) = %+v, %+v", d, p)
	}
	if builds != 1 {
		t.Fatalf("builder ran %d times after the first Lookup, want 1", builds)
	}
	if d, _ := Lookup(reflect.TypeFor[testKind]()); d == nil || d.Doc != "A kind." {
		t.Errorf("Lookup(testKind) = %+v", d)
	}
	if got := TypeByName(reflect.TypeFor[testKind](), "testKindList"); got != reflect.TypeFor[testKindList]() {
		t.Errorf("TypeByName = %v", got)
	}
	if got := FieldDoc(reflect.TypeFor[testKind](), "Name"); got != "The name." {
		t.Errorf("FieldDoc = %q", got)
	}
	if builds != 1 {
		t.Errorf("builder ran %d times, want 1", builds)
	}
	for _, tc := range []struct {
		name string
		reg  func()
	}{
		{"RegisterFunc after build", func() { RegisterFunc(reflect.TypeFor[testKind](), func() Package { return Package{} }) }},
		{"Register after build", func() { Register(Package{Types: []Type{{Type: reflect.TypeFor[undocumented]()}}}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r != "apidoc: package registered twice: github.com/aggsim/aggsim/internal/apidoc" {
					t.Errorf("%s: recover() = %v", tc.name, r)
				}
			}()
			tc.reg()
		}()
	}
}

// TestRegisterFuncTwiceBeforeBuild: a second registration of a pending
// package panics as Register's does, and so does a builder whose types are
// of another package (found on first lookup).
func TestRegisterFuncTwiceBeforeBuild(t *testing.T) {
	forgetThisPackage()
	t.Cleanup(forgetThisPackage)
	RegisterFunc(reflect.TypeFor[testKind](), func() Package {
		return Package{Types: []Type{{Type: reflect.TypeFor[Markers]()}, {Type: reflect.TypeFor[reflect.Method]()}}}
	})
	func() {
		defer func() {
			if r := recover(); r != "apidoc: package registered twice: github.com/aggsim/aggsim/internal/apidoc" {
				t.Errorf("second RegisterFunc: recover() = %v", r)
			}
		}()
		Register(Package{Types: []Type{{Type: reflect.TypeFor[undocumented]()}}})
	}()
	defer func() {
		if r := recover(); r != "apidoc: package of reflect.Method is not github.com/aggsim/aggsim/internal/apidoc" {
			t.Errorf("builder of mixed packages: recover() = %v", r)
		}
	}()
	Lookup(reflect.TypeFor[testKind]())
}
