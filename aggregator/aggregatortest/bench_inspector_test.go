package aggregatortest_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// BenchmarkInspectorOverhead measures what recording costs the proxy
// (issue 18): two aggsims in one process, one recording every request
// into a ring of aggregator.DefaultInspectorRingSize (the ring is full
// before the timer starts) and one not, each in front of its own backend
// serving a 1 KiB JSON object, take turns with bursts of 64 concurrent
// GETs as BenchmarkAggregatorProxy's interleaved leg does, so load from
// outside the benchmark falls on both alike. It reports the recording
// aggsim's throughput as a share of the other's (goal: at least 95%) and
// the heap the full ring holds.
//
//	go test -run '^$' -bench InspectorOverhead -benchtime 200x ./aggregator/aggregatortest/
func BenchmarkInspectorOverhead(b *testing.B) {
	payload := `{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"bench"},"spec":{"reference":"` +
		strings.Repeat("x", 1024-113) + `"}}`
	start := func(ring int) *aggregatortest.Server {
		srv := aggregatortest.Start(b, aggregatortest.WithAvailabilityCheckInterval(time.Hour),
			aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.InspectorRingSize = ring }))
		srv.RegisterBackend(b, aggregatortest.BackendOptions{
			Group: "wardle.example.com", Versions: []string{"v1alpha1"},
			Handler: srv.RequireFrontProxy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "1024")
				io.WriteString(w, payload)
			})),
		})
		return srv
	}
	off, on := start(0), start(aggregator.DefaultInspectorRingSize)
	path := "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench"
	burst := func(srv *aggregatortest.Server) time.Duration {
		var wg sync.WaitGroup
		t0 := time.Now()
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := srv.Client().Get(srv.URL + path)
				if err != nil {
					b.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n != 1024 {
					b.Errorf("status %d, %d bytes", resp.StatusCode, n)
				}
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range aggregator.DefaultInspectorRingSize/64 + 1 { // fill the ring
		burst(on)
	}
	burst(off)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	var offTotal, onTotal time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			offTotal += burst(off)
			onTotal += burst(on)
		} else {
			onTotal += burst(on)
			offTotal += burst(off)
		}
	}
	ratio := 100 * float64(offTotal) / float64(onTotal)
	b.ReportMetric(ratio, "recording-%-of-off")
	if b.N < 10 {
		return // the framework's probe run
	}
	fmt.Printf("BenchmarkInspectorOverhead interleaved clients=64: recording throughput = %.1f%% of not recording (%d bursts of 64 each); full ring of %d: heap +%.1f MiB\n",
		ratio, b.N, aggregator.DefaultInspectorRingSize, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20))
}
