package proxy

import (
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkOutgoingHeader measures building the backend request's header
// on the proxy's own path (forward): the client's fields without the
// hop-by-hop and forwarding ones, then rewriteRequest's identity and
// X-Forwarded-* fields, for a Go client's GET as the kubectl admin.
//
//	go test -run '^$' -bench OutgoingHeader -benchmem ./proxy/
func BenchmarkOutgoingHeader(b *testing.B) {
	in := &http.Request{Method: http.MethodGet, RemoteAddr: "127.0.0.1:50000",
		URL: &url.URL{Path: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/bench"},
		Header: http.Header{"Accept-Encoding": {"gzip"}, "User-Agent": {"Go-http-client/2.0"},
			"Audit-Id": {"0b6e4f4e-7a43-4b8e-9a43-5f1e0c3c1d2a"}}}
	user := testUser()
	out := *in
	b.ReportAllocs()
	for range b.N {
		out.URL = new(url.URL)
		out.Header = forwardHeader(in.Header)
		rewriteRequestHeader(&out, in, "10.0.0.1:443", user, true, nil)
	}
}
