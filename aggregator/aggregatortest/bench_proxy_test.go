package aggregatortest_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/internal/latencybench"
)

// BenchmarkAggregatorProxy measures, in one run against the same TLS
// backend serving a 1 KiB JSON object, GET through three paths with 1 and
// 64 concurrent clients:
//
//   - direct: the client talks to the backend (presenting the front-proxy
//     certificate, which the backend requires);
//   - reverseproxy: a bare net/http/httputil.ReverseProxy with the same TLS
//     on both legs (a TLS front server, and CA + ServerName + client
//     certificate + HTTP/2 to the backend): the floor any Go proxy pays;
//   - aggsim: the whole aggregator — filter chain (client-certificate
//     authentication, request info, authorization, timeout, metrics), the
//     router, Service/Endpoints resolution and the proxy handler.
//
// Each sub-benchmark reports ns/op, allocs/op (process-wide: client,
// proxy and backend together) and p50/p99 latency; the run prints
// aggsim's throughput as a share of the bare ReverseProxy's and the p50 and
// p99 latency aggsim adds over a direct call.
//
//	go test -run x -bench AggregatorProxy -benchtime 5000x ./aggregator/aggregatortest/
func BenchmarkAggregatorProxy(b *testing.B) {
	payload := `{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"bench"},"spec":{"reference":"` +
		strings.Repeat("x", 1024-113) + `"}}`
	srv := aggregatortest.Start(b, aggregatortest.WithAvailabilityCheckInterval(time.Hour))
	backendHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1024")
		io.WriteString(w, payload)
	})
	be := srv.RegisterBackend(b, aggregatortest.BackendOptions{
		Group:    "wardle.example.com",
		Versions: []string{"v1alpha1"},
		Handler:  srv.RequireFrontProxy(backendHandler),
	})
	backendURL, _ := url.Parse(be.URL)

	frontProxyCert, err := tls.X509KeyPair(srv.FrontProxyClientCertPEM(), srv.FrontProxyClientKeyPEM())
	if err != nil {
		b.Fatal(err)
	}
	backendRoots := x509.NewCertPool()
	backendRoots.AppendCertsFromPEM(be.CAPEM)
	backendTLS := &tls.Config{RootCAs: backendRoots, ServerName: be.ServerName, Certificates: []tls.Certificate{frontProxyCert}}

	bare := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backendURL)
			pr.SetXForwarded()
			pr.Out.Header.Set("X-Remote-User", "bench")
		},
		Transport: &http.Transport{TLSClientConfig: backendTLS, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 100},
	}
	bareFront := httptest.NewUnstartedServer(bare)
	bareFront.EnableHTTP2 = true
	bareFront.Config.ErrorLog = nil
	bareFront.StartTLS()
	b.Cleanup(bareFront.Close)

	path := "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench"
	h2 := func(cfg *tls.Config) *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 100}}
	}
	directClient := h2(&tls.Config{RootCAs: backendRoots, ServerName: be.ServerName, Certificates: []tls.Certificate{frontProxyCert}})
	bareClient := bareFront.Client()
	aggClient := srv.Client()
	targets := []struct {
		name   string
		url    string
		client *http.Client
		header http.Header
	}{
		{"direct", be.URL + path, directClient, http.Header{"X-Remote-User": {"bench"}}},
		{"reverseproxy", bareFront.URL + path, bareClient, nil},
		{"aggsim", srv.URL + path, aggClient, nil},
	}

	var mu sync.Mutex // guards nsPerOp and lat
	nsPerOp := map[string]float64{}
	lat := map[string]latencybench.Result{}
	for _, tg := range targets {
		for _, clients := range []int{1, 64} {
			name := fmt.Sprintf("%s/clients=%d", tg.name, clients)
			b.Run(name, func(b *testing.B) {
				get := func() time.Duration {
					start := time.Now()
					req, _ := http.NewRequest(http.MethodGet, tg.url, nil)
					for k, v := range tg.header {
						req.Header[k] = v
					}
					resp, err := tg.client.Do(req)
					if err != nil {
						b.Error(err)
						return 0
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK || n != 1024 {
						b.Errorf("%s: status %d, %d bytes", tg.name, resp.StatusCode, n)
					}
					return time.Since(start)
				}
				res := latencybench.Run(b, clients, get)
				mu.Lock()
				nsPerOp[name] = res.NsPerOp
				lat[name] = res
				mu.Unlock()
			})
		}
	}
	// interleaved/clients=64 measures the throughput ratio with the two legs
	// taking turns: each op is one burst of 64 concurrent requests through
	// the bare ReverseProxy and one through aggsim, in alternating order, so
	// load from outside the benchmark falls on both alike. Reported as
	// aggsim-%-of-bare (wall time of the bare bursts / aggsim bursts).
	b.Run("interleaved/clients=64", func(b *testing.B) {
		burst := func(url string, c *http.Client) time.Duration {
			var wg sync.WaitGroup
			start := time.Now()
			for range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := c.Get(url)
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
			return time.Since(start)
		}
		burst(bareFront.URL+path, bareClient)
		burst(srv.URL+path, aggClient)
		var bareTotal, aggTotal time.Duration
		b.ResetTimer()
		for i := range b.N {
			if i%2 == 0 {
				bareTotal += burst(bareFront.URL+path, bareClient)
				aggTotal += burst(srv.URL+path, aggClient)
			} else {
				aggTotal += burst(srv.URL+path, aggClient)
				bareTotal += burst(bareFront.URL+path, bareClient)
			}
		}
		b.ReportMetric(100*float64(bareTotal)/float64(aggTotal), "aggsim-%-of-bare")
		if b.N < 10 {
			return // the framework's probe run
		}
		fmt.Printf("BenchmarkAggregatorProxy interleaved clients=64: aggsim throughput = %.1f%% of bare httputil.ReverseProxy (%d bursts of 64 each)\n",
			100*float64(bareTotal)/float64(aggTotal), b.N)
	})
	for _, c := range []int{1, 64} {
		key := func(n string) string { return fmt.Sprintf("%s/clients=%d", n, c) }
		bareNs, aggNs := nsPerOp[key("reverseproxy")], nsPerOp[key("aggsim")]
		if _, ok := lat[key("direct")]; bareNs > 0 && aggNs > 0 && ok {
			// Printed (not b.Logf) so the figures show without -v.
			agg, direct := lat[key("aggsim")], lat[key("direct")]
			// The legs ran one after the other, so drift in outside load
			// moves this ratio; interleaved/clients=64 is the steady one.
			fmt.Printf("BenchmarkAggregatorProxy clients=%d (legs one after the other): aggsim throughput = %.1f%% of bare httputil.ReverseProxy (%.0f vs %.0f ops/s); added over direct: p50 %v, p99 %v\n",
				c, 100*bareNs/aggNs, 1e9/aggNs, 1e9/bareNs, agg.P50-direct.P50, agg.P99-direct.P99)
		}
	}
}
