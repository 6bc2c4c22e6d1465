package admission

import (
	"slices"
	"testing"
)

// TestRecent pins the bounded history's order: oldest first, the oldest
// dropped once full, nil while empty.
func TestRecent(t *testing.T) {
	r := NewRecent[int](3)
	if got := r.All(); got != nil {
		t.Fatalf("empty: %v, want nil", got)
	}
	for i, want := range [][]int{{1}, {1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 5}, {4, 5, 6}, {5, 6, 7}} {
		r.Add(i + 1)
		if got := r.All(); !slices.Equal(got, want) {
			t.Errorf("after adding %d: %v, want %v", i+1, got, want)
		}
	}
	got := r.All()
	got[0] = 99
	if r.All()[0] != 5 {
		t.Error("All returned the ring's own storage")
	}
}
