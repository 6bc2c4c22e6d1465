package aggregatortest_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptrace"
	"testing"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// TestUnauthenticatedHTTP2ConnectionsClose: as kube-apiserver 1.33
// (UnauthenticatedHTTP2DOSMitigation), an HTTP/2 connection whose request
// was refused (401) or served to system:anonymous is closed after the
// response, so the next request needs a new connection; an authenticated
// client keeps its connection.
func TestUnauthenticatedHTTP2ConnectionsClose(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []aggregatortest.Option
		admin      bool
		wantCode   int
		wantReused bool
	}{
		{name: "401", wantCode: http.StatusUnauthorized, wantReused: false},
		{name: "anonymous", opts: []aggregatortest.Option{aggregatortest.WithAnonymousAuth()}, wantCode: http.StatusOK, wantReused: false},
		{name: "admin", admin: true, wantCode: http.StatusOK, wantReused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := aggregatortest.Start(t, tc.opts...)
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(srv.CAPEM())
			cfg := &tls.Config{RootCAs: pool}
			if tc.admin {
				cfg = srv.AdminTLSConfig()
			}
			tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
			t.Cleanup(tr.CloseIdleConnections)
			client := &http.Client{Transport: tr}
			var reused []bool
			for range 2 {
				req, _ := http.NewRequest("GET", srv.URL+"/api/v1/namespaces", nil)
				req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
					GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) },
				}))
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.ProtoMajor != 2 || resp.StatusCode != tc.wantCode {
					t.Fatalf("HTTP/%d %d, want HTTP/2 %d", resp.ProtoMajor, resp.StatusCode, tc.wantCode)
				}
			}
			if len(reused) != 2 || reused[1] != tc.wantReused {
				t.Errorf("connection reused for the second request: %v, want %v", reused, tc.wantReused)
			}
		})
	}
}
