package aggregatortest_test

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/certs"
	"golang.org/x/net/http2"
)

func loadN(b *testing.B, c *http.Client, url string) {
	var wg sync.WaitGroup
	per := b.N / 8
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Accept", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
}

func BenchmarkZZApis(b *testing.B) {
	srv := aggregatortest.Start(b, aggregatortest.WithAvailabilityCheckInterval(time.Hour))
	c := &http.Client{Transport: &http2.Transport{TLSClientConfig: srv.AdminTLSConfig()}}
	resp, _ := c.Get(srv.URL + "/apis")
	body, _ := io.ReadAll(resp.Body)
	static := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	ca, _ := certs.NewCA("x", certs.Options{})
	kp, _ := ca.IssueServing("s", nil, []net.IP{net.ParseIP("127.0.0.1")})
	sc, _ := kp.TLSCertificate()
	mk := func(h http.Handler, secure bool) string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		tc := &tls.Config{Certificates: []tls.Certificate{sc}, ClientAuth: tls.RequestClientCert, NextProtos: []string{"h2", "http/1.1"}}
		var hs *http.Server
		if secure {
			hs, _ = aggregator.NewSecureServer(h, tc, nil)
		} else {
			hs = &http.Server{Handler: h, TLSConfig: tc}
		}
		go hs.ServeTLS(ln, "", "")
		b.Cleanup(func() { hs.Close() })
		return "https://" + ln.Addr().String()
	}
	plain := mk(static, false)
	secure := mk(static, true)
	for _, x := range []struct{ name, url string }{{"aggsim", srv.URL}, {"static-plain", plain}, {"static-secure", secure}} {
		b.Run(x.name, func(b *testing.B) {
			tc := srv.AdminTLSConfig()
			tc.RootCAs.AddCert(ca.Cert)
			cc := &http.Client{Transport: &http2.Transport{TLSClientConfig: tc}}
			loadN(b, cc, x.url+"/apis")
		})
	}
}
