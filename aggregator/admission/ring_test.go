package admission

import (
	"slices"
	"strconv"
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
	if c := cap(r.items); c > 4 {
		t.Errorf("storage capacity %d for a ring of 3", c)
	}
	got := r.All()
	got[0] = 99
	if r.All()[0] != 5 {
		t.Error("All returned the ring's own storage")
	}
}

// TestRecentGrowsLazily checks that a Recent holds no room for values not
// yet added (issue 21, idle RSS) and keeps the order while it grows.
func TestRecentGrowsLazily(t *testing.T) {
	r := NewRecent[Call](DefaultRingSize)
	if c := cap(r.items); c != 0 {
		t.Fatalf("a new ring of %d has room for %d calls, want 0", DefaultRingSize, c)
	}
	for i := 0; i < DefaultRingSize+2; i++ {
		r.Add(Call{Webhook: strconv.Itoa(i)})
	}
	got := r.All()
	if len(got) != DefaultRingSize || got[0].Webhook != "2" || got[len(got)-1].Webhook != strconv.Itoa(DefaultRingSize+1) {
		t.Fatalf("after %d adds: %d calls from %q to %q, want %d from \"2\" to %q", DefaultRingSize+2, len(got),
			got[0].Webhook, got[len(got)-1].Webhook, DefaultRingSize, strconv.Itoa(DefaultRingSize+1))
	}
}
