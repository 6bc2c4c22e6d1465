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
// and the bytes: the whole filter chain with client-certificate
// authentication, the router and the discovery handler, without TLS and
// HTTP/2 (issue 21: /apis should cost what a static file costs).
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
	s, err := New(Options{Storage: storage.NewMemory(), ClientCA: func() *x509.CertPool { return pool }})
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
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := httptest.NewRequest(http.MethodGet, "/apis", nil)
		r.Header.Set("Accept", "application/json")
		r.TLS = state
		clear(w.h)
		w.code, w.n = 0, 0
		h.ServeHTTP(w, r)
		if w.code != http.StatusOK || w.n == 0 {
			b.Fatalf("GET /apis: %d, %d bytes", w.code, w.n)
		}
	}
}
