package registry

import (
	"fmt"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// The GC finalizers a DELETE leaves, as upstream's
// deletionFinalizersForGarbageCollection (generic store) and the namespace
// REST's shouldHaveOrphanFinalizer/shouldHaveDeleteDependentsFinalizer:
// other finalizers keep their place, orphan and foregroundDeletion are
// appended, Unsupported (events) ignores the options, OrphanDependents
// (upstream: replicationcontrollers in core/v1) orphans by default.
func TestDeletionFinalizers(t *testing.T) {
	str := func(s string) *string { return &s }
	yes, no := true, false
	for _, c := range []struct {
		policy GarbageCollectionPolicy
		fins   []string
		opts   *meta.DeleteOptions
		want   string
	}{
		{DeleteDependents, nil, nil, "[] false"},
		{DeleteDependents, nil, &meta.DeleteOptions{PropagationPolicy: str("Orphan")}, "[orphan] true"},
		{DeleteDependents, []string{"a", "orphan", "b"}, &meta.DeleteOptions{PropagationPolicy: str("Foreground")}, "[a b foregroundDeletion] true"},
		{DeleteDependents, []string{"foregroundDeletion", "a"}, nil, "[foregroundDeletion a] false"},
		{DeleteDependents, []string{"orphan"}, &meta.DeleteOptions{OrphanDependents: &no}, "[] true"},
		{DeleteDependents, nil, &meta.DeleteOptions{OrphanDependents: &yes}, "[orphan] true"},
		{OrphanDependents, nil, nil, "[orphan] true"},
		{OrphanDependents, nil, &meta.DeleteOptions{PropagationPolicy: str("Background")}, "[] false"},
		{Unsupported, []string{"a"}, &meta.DeleteOptions{PropagationPolicy: str("Orphan")}, "[a] false"},
		{Unsupported, []string{"orphan"}, nil, "[] true"},
	} {
		fins, changed := deletionFinalizers(c.policy, c.fins, c.opts)
		if got := fmt.Sprint(fins, changed); got != c.want {
			t.Errorf("%s %v %+v: %s, want %s", c.policy, c.fins, c.opts, got, c.want)
		}
	}
	for _, c := range []struct {
		fins []string
		opts *meta.DeleteOptions
		want string
	}{
		{nil, nil, "[]"},
		{[]string{"x"}, &meta.DeleteOptions{PropagationPolicy: str("Orphan")}, "[x orphan]"},
		{[]string{"orphan", "x"}, &meta.DeleteOptions{PropagationPolicy: str("Foreground")}, "[x foregroundDeletion]"},
		{[]string{"orphan"}, nil, "[orphan]"},
		{nil, &meta.DeleteOptions{OrphanDependents: &no}, "[foregroundDeletion]"},
		{[]string{"foregroundDeletion"}, &meta.DeleteOptions{PropagationPolicy: str("Background")}, "[]"},
	} {
		if got := fmt.Sprint(namespaceDeletionFinalizers(c.fins, c.opts)); got != c.want {
			t.Errorf("namespace %v %+v: %s, want %s", c.fins, c.opts, got, c.want)
		}
	}
}
