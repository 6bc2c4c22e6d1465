package latencybench

import (
	"flag"
	"sync/atomic"
	"testing"
	"time"
)

// TestRun: get runs once to warm up plus b.N times, sequentially or in
// parallel, and the percentiles come from the latencies get returned.
func TestRun(t *testing.T) {
	// A fixed iteration count: no timing, and a small latency slice.
	old := flag.Lookup("test.benchtime").Value.String()
	if err := flag.Set("test.benchtime", "100x"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set("test.benchtime", old) })
	for _, clients := range []int{1, 64} {
		var calls atomic.Int64
		var res Result
		br := testing.Benchmark(func(b *testing.B) {
			calls.Store(0)
			res = Run(b, clients, func() time.Duration {
				return time.Duration(calls.Add(1)) * time.Microsecond
			})
		})
		if br.N != 100 {
			t.Fatalf("clients=%d: N = %d, want 100", clients, br.N)
		}
		if got, want := calls.Load(), int64(br.N)+1; got != want {
			t.Errorf("clients=%d: get called %d times, want %d", clients, got, want)
		}
		if _, ok := br.Extra["p50-µs"]; !ok {
			t.Errorf("clients=%d: no p50-µs metric in %v", clients, br.Extra)
		}
		if _, ok := br.Extra["p99-µs"]; !ok {
			t.Errorf("clients=%d: no p99-µs metric in %v", clients, br.Extra)
		}
		// The latencies are 1..101 µs, one each; the warm-up call's is
		// dropped, so 2..101 µs are kept.
		if clients == 1 && (res.P50 != 52*time.Microsecond || res.P99 != 101*time.Microsecond) {
			t.Errorf("clients=1: P50 %v, P99 %v, want 52µs, 101µs", res.P50, res.P99)
		}
		if res.P50 <= 0 || res.P99 < res.P50 {
			t.Errorf("clients=%d: P50 %v, P99 %v", clients, res.P50, res.P99)
		}
	}
}
