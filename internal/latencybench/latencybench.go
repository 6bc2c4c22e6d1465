package latencybench

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// Result is what Run measured.
type Result struct {
	// NsPerOp is the wall time of the timed loop divided by b.N, in
	// nanoseconds; with several clients it is the inverse of throughput.
	NsPerOp float64
	// P50 is the median latency of one call.
	P50 time.Duration
	// P99 is the 99th-percentile latency of one call.
	P99 time.Duration
}

// Run calls get once, untimed, to warm the connections, then b.N times:
// one call after another when clients <= 1, else through b.RunParallel
// with the parallelism rounded up so that about clients goroutines call
// at once. get performs one request and returns its latency. Run reports
// allocations (process-wide) and the metrics "p50-µs" and "p99-µs", and
// stops the timer before returning.
func Run(b *testing.B, clients int, get func() time.Duration) Result {
	get()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	if clients <= 1 {
		for i := range b.N {
			lat[i] = get()
		}
	} else {
		b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				d := get()
				if i := next.Add(1) - 1; i < int64(len(lat)) {
					lat[i] = d
				}
			}
		})
	}
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	r := Result{NsPerOp: float64(elapsed.Nanoseconds()) / float64(b.N), P50: lat[len(lat)/2], P99: lat[len(lat)*99/100]}
	b.ReportMetric(float64(r.P50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(r.P99.Microseconds()), "p99-µs")
	return r
}
