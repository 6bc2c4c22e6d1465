package aggregator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/storage"
)

// discardWriter is a ResponseWriter that keeps only the header map, so the
// benchmark measures the server's work and not a recorder's.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// BenchmarkChainServeAPIs measures what aggsim does for GET /apis (the
// legacy APIGroupList, Accept: application/json) between the HTTP server
// and the bytes: the whole filter chain configured as `aggsim serve`
// configures it (a front-proxy CA tried first, then client-certificate
// authentication, the request metrics, the inspector recording into a ring
// of DefaultInspectorRingSize), the router and the discovery handler,
// without TLS and HTTP/2 (issue 21: /apis should cost what a static file
// costs). Each request is a copy of one parsed request with a fresh header
// map, as an HTTP server hands it over. cpu-µs/op is the process's
// user+system CPU time per request (getrusage), which moves less than
// ns/op with other load on a shared machine.
//
//	go test -run '^$' -bench ChainServeAPIs -benchmem ./aggregator/
func BenchmarkChainServeAPIs(b *testing.B) {
	ca, err := certs.NewCA("bench-ca", certs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	admin, err := ca.IssueClient("admin", []string{"system:masters"})
	if err != nil {
		b.Fatal(err)
	}
	pool := ca.Pool()
	frontCA, err := certs.NewCA("bench-front-proxy-ca", certs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	frontPool := frontCA.Pool()
	s, err := New(Options{Storage: storage.NewMemory(), ClientCA: func() *x509.CertPool { return pool },
		RequestHeader:     &RequestHeaderOptions{ClientCA: func() *x509.CertPool { return frontPool }},
		InspectorRingSize: DefaultInspectorRingSize})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	b.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.Ready():
	case <-time.After(10 * time.Second):
		b.Fatal("not ready")
	}
	h := s.Handler()
	state := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{admin.Cert}, HandshakeComplete: true}
	w := &discardWriter{h: http.Header{}}
	// The connection's context as NewSecureServer gives it.
	tmpl := httptest.NewRequestWithContext(ConnContext(context.Background(), nil), http.MethodGet, "/apis", nil)
	tmpl.Proto, tmpl.ProtoMajor, tmpl.ProtoMinor = "HTTP/2.0", 2, 0
	tmpl.TLS = state
	accept := []string{"application/json"}
	get := func() {
		r := new(http.Request)
		*r = *tmpl
		r.Header = http.Header{"Accept": accept}
		clear(w.h)
		w.code, w.n = 0, 0
		h.ServeHTTP(w, r)
		if w.code != http.StatusOK || w.n == 0 {
			b.Fatalf("GET /apis: %d, %d bytes", w.code, w.n)
		}
	}
	for range 100 { // caches warm
		get()
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for range b.N {
		get()
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
}
