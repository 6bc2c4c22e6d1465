package aggregatortest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// BenchmarkStartToFirstDiscovery measures the time from Start to the first
// successful discovery request (GET /apis, aggregated, through the
// network with the admin client): certificate generation, the aggregator's
// initial sync, the listener and one TLS handshake. Close is not timed.
// Reported as ms/op; cpu-ms/op is the process's user+system CPU time per
// start (getrusage, Close included), which moves less with the machine's
// load than the wall time.
func BenchmarkStartToFirstDiscovery(b *testing.B) {
	var total time.Duration
	cpu0 := processCPU(b)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		srv, err := aggregatortest.NewServer()
		if err != nil {
			b.Fatal(err)
		}
		r := get(b, srv.Client(), srv.URL+"/apis", "Accept", aggregatortest.AggregatedDiscoveryAccept)
		total += time.Since(start)
		if r.code != http.StatusOK {
			b.Fatalf("GET /apis: %d %s", r.code, r.body)
		}
		b.StopTimer()
		srv.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkRegisterBackendToAvailable measures RegisterBackend on a
// running Server: backend certificates, the TLS listener, five objects,
// the availability probe writing Available=True and the discovery fetch
// that makes the group show in aggregated /apis. Reported as ms/op.
func BenchmarkRegisterBackendToAvailable(b *testing.B) {
	srv := aggregatortest.Start(b)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		be := srv.RegisterBackend(b, aggregatortest.BackendOptions{
			Group:    fmt.Sprintf("bench%d.example.com", i),
			Versions: []string{"v1"},
		})
		total += time.Since(start)
		b.StopTimer()
		be.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/op")
}
