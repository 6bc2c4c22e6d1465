package registry

import (
	"maps"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
)

// MergeKeysOf answers the walk's keys on every call, from the second on
// out of its memo, each time in a map of the caller's own: changing one
// answer changes neither the memo nor the next answer.
func TestMergeKeysOfMemo(t *testing.T) {
	typ := reflect.TypeOf(&core.Service{})
	want := mergeKeysWalk(typ)
	if len(want) == 0 {
		t.Fatal("no merge keys for Service")
	}
	first := MergeKeysOf(typ)
	if !maps.Equal(first, want) {
		t.Fatalf("first call %v, walk %v", first, want)
	}
	first["spec.ports"] = "changed"
	first["added"] = "x"
	if second := MergeKeysOf(typ); !maps.Equal(second, want) {
		t.Errorf("after a caller changed its answer: %v, want %v", second, want)
	}
}
