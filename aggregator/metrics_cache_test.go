package aggregator

import (
	"sync"
	"testing"
)

// TestSeriesCache checks that every series put is found again under
// concurrent use, and that nothing is cached past maxCachedSeries.
func TestSeriesCache(t *testing.T) {
	var c seriesCache[[2]string, int]
	const n = maxCachedSeries
	key := func(i int) [2]string { return [2]string{"s", string(rune('a'+i%26)) + string(rune(i))} }
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				k := key(i)
				c.put(k, i)
				if v, ok := c.get(k); !ok || v != i {
					t.Errorf("get(%q) right after put = %d, %v; want %d, true", k, v, ok, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if v, ok := c.get(key(i)); !ok || v != i {
			t.Fatalf("series %d: %d, %v", i, v, ok)
		}
	}
	c.put(key(n), n)
	if _, ok := c.get(key(n)); ok {
		t.Fatalf("a series past the bound %d was cached", maxCachedSeries)
	}
}
