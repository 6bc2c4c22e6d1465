package aggregatortest_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// proxyDiscardWriter is a ResponseWriter that keeps the header map and
// counts the body, so the benchmark measures aggsim's work and not a
// recorder's. It flushes (the proxy's copy loop asks to) by doing nothing.
type proxyDiscardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *proxyDiscardWriter) Header() http.Header         { return w.h }
func (w *proxyDiscardWriter) WriteHeader(code int)        { w.code = code }
func (w *proxyDiscardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
func (w *proxyDiscardWriter) Flush()                      {}

// BenchmarkChainProxyGET measures what aggsim does for a proxied GET of one
// 1 KiB object between its HTTP server and the backend's TLS connection:
// the whole filter chain (client-certificate authentication as the admin,
// RequestInfo, authorization, the timeout, the request metrics and the
// inspector recording into a ring of 500, as `aggsim serve` does), the
// router, Service/Endpoints resolution and the proxy handler, sending over
// the shared HTTP/2 transport to a real loopback TLS backend. There is no
// front TLS or HTTP/2 server: requests are handed to the chain in-process,
// one at a time, all in one connection's context (aggregator.ConnContext). allocs/op and B/op count the whole process, so they
// include the backend server's share (the same before and after a change
// to aggsim's side), and so does cpu-µs/op, the process's user+system
// CPU time per request (getrusage), which unlike ns/op does not move with
// other load on a shared machine.
//
//	go test -run '^$' -bench ChainProxyGET -benchmem -benchtime 5000x ./aggregator/aggregatortest/
func BenchmarkChainProxyGET(b *testing.B) {
	payload := `{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"bench"},"spec":{"reference":"` +
		strings.Repeat("x", 1024-113) + `"}}`
	srv := aggregatortest.Start(b, aggregatortest.WithAvailabilityCheckInterval(time.Hour),
		aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.InspectorRingSize = 500 }))
	be := srv.RegisterBackend(b, aggregatortest.BackendOptions{
		Group:    "wardle.example.com",
		Versions: []string{"v1alpha1"},
		Handler: srv.RequireFrontProxy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1024")
			io.WriteString(w, payload)
		})),
	})
	be.WaitAvailable(b)
	blk, _ := pem.Decode(srv.AdminCertPEM())
	admin, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		b.Fatal(err)
	}
	state := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{admin}, HandshakeComplete: true,
		Version: tls.VersionTLS13, NegotiatedProtocol: "h2"}
	h := srv.Aggregator().Handler()
	w := &proxyDiscardWriter{h: http.Header{}}
	const path = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench"
	connCtx := aggregator.ConnContext(context.Background(), nil) // one connection, as NewSecureServer gives it
	get := func() {
		r := httptest.NewRequestWithContext(connCtx, http.MethodGet, path, nil)
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
		r.Header["Accept"] = []string{"application/json"}
		r.Header["Accept-Encoding"] = []string{"gzip"}
		r.Header["User-Agent"] = []string{"kubectl/v1.33.0 (linux/amd64) kubernetes/abcdef"}
		r.TLS = state
		clear(w.h)
		w.code, w.n = 0, 0
		h.ServeHTTP(w, r)
		if w.code != http.StatusOK || w.n != 1024 {
			b.Fatalf("GET %s: %d, %d bytes", path, w.code, w.n)
		}
	}
	for range 100 { // connections up, caches warm
		get()
	}
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	for range b.N {
		get()
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b)-cpu0)/1e3/float64(b.N), "cpu-µs/op")
}

// processCPU returns the user+system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
