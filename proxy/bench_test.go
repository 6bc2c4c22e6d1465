package proxy

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/internal/latencybench"
)

// BenchmarkProxy measures, in one run against the same TLS backend serving
// a 1 KiB JSON object, a client talking to the backend directly, through a
// bare httputil.ReverseProxy with the same TLS on both legs, and through
// Handler (behind a TLS front server that puts a user in the context, as
// the authentication filter does), each with 1 and 64 concurrent clients.
// Every sub-benchmark reports ns/op, allocs/op (process-wide, so they
// include the client and the servers) and p50/p99 latency; the run ends by
// logging Handler's throughput as a share of the bare ReverseProxy's.
//
//	go test -run x -bench . -benchtime 3000x ./proxy/
func BenchmarkProxy(b *testing.B) {
	p := testPKI(b)
	payload := `{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"bench"},"spec":{"reference":"` +
		strings.Repeat("x", 1024-113) + `"}}`
	if len(payload) != 1024 {
		b.Fatalf("payload is %d bytes", len(payload))
	}
	backend := newBackendQuiet(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1024")
		io.WriteString(w, payload)
	})
	backendURL, _ := url.Parse(backend.URL)

	// Bare ReverseProxy: same backend TLS (CA, SNI, client cert, HTTP/2).
	bareTransport := &http.Transport{
		TLSClientConfig: &tls.Config{
			RootCAs: p.servingCA.pool(), ServerName: "api.wardle.svc",
			Certificates: []tls.Certificate{*p.client}, MinVersion: tls.VersionTLS12,
		},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: defaultMaxIdleConnsPerHost,
	}
	bare := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backendURL)
			pr.SetXForwarded()
		},
		Transport: bareTransport,
	}
	bareFront := quietTLSServer(b, bare)

	h := NewHandler(Options{
		Resolver:             staticResolver("127.0.0.1", backendURL.Port()),
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return p.client, nil },
	})
	h.Update(target(withCABundle(p.servingCA.pem)))
	b.Cleanup(h.Close)
	user := testUser()
	handlerFront := quietTLSServer(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), user)))
	}))

	path := "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench"
	targets := []struct {
		name string
		srv  *httptest.Server
	}{{"direct", backend.Server}, {"reverseproxy", bareFront}, {"handler", handlerFront}}

	var mu sync.Mutex // guards nsPerOp
	nsPerOp := map[string]float64{}
	for _, tg := range targets {
		for _, clients := range []int{1, 64} {
			name := fmt.Sprintf("%s/clients=%d", tg.name, clients)
			b.Run(name, func(b *testing.B) {
				client := benchClient(tg.srv, p)
				url := tg.srv.URL + path
				get := func() time.Duration {
					start := time.Now()
					resp, err := client.Get(url)
					if err != nil {
						b.Error(err)
						return 0
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || n != 1024 {
						b.Errorf("status %d, %d bytes", resp.StatusCode, n)
					}
					return time.Since(start)
				}
				res := latencybench.Run(b, clients, get)
				mu.Lock()
				nsPerOp[name] = res.NsPerOp
				mu.Unlock()
			})
		}
	}
	for _, c := range []int{1, 64} {
		bareNs, hNs := nsPerOp[fmt.Sprintf("reverseproxy/clients=%d", c)], nsPerOp[fmt.Sprintf("handler/clients=%d", c)]
		if bareNs > 0 && hNs > 0 {
			// Printed (not b.Logf) so the ratio shows without -v.
			fmt.Printf("BenchmarkProxy clients=%d: Handler throughput = %.1f%% of bare httputil.ReverseProxy\n", c, 100*bareNs/hNs)
		}
	}
}

// benchClient returns an HTTP/2 client for srv that also presents the
// front-proxy client certificate (needed by the backend when hit directly).
func benchClient(srv *httptest.Server, p *pki) *http.Client {
	roots := p.servingCA.pool()
	roots.AddCert(srv.Certificate())
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{
			RootCAs: roots, ServerName: "localhost",
			Certificates: []tls.Certificate{*p.client}, MinVersion: tls.VersionTLS12,
		},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
	}}
}

// newBackendQuiet is newBackend without request recording (which would
// dominate a benchmark).
func newBackendQuiet(b *testing.B, h http.HandlerFunc) *testBackend {
	s := unstartedBackend(b, h)
	s.StartTLS()
	b.Cleanup(s.Close)
	return &testBackend{Server: s}
}

// quietTLSServer serves h over TLS (the api.wardle.svc/localhost serving
// certificate) with HTTP/2 enabled.
func quietTLSServer(b *testing.B, h http.Handler) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{*testPKI(b).serving}}
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	b.Cleanup(s.Close)
	return s
}
