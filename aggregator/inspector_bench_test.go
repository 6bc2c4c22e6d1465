package aggregator

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// BenchmarkInspectorRecord measures what the inspector's recording costs
// one proxied GET in the serving goroutine (begin, the notes of the
// chain's steps, finish into a full ring of DefaultInspectorRingSize),
// with the headers a Go client, aggsim's proxy and a backend exchange
// (issue 21). It excludes the request itself (the header map the chain
// gets and the request state).
//
//	go test -run '^$' -bench InspectorRecord -benchmem ./aggregator/
func BenchmarkInspectorRecord(b *testing.B) {
	tc := frontProxyTestCert(b)
	in := NewInspector(DefaultInspectorRingSize, func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &tc, nil })
	u := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"},
		Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"X509SHA256=7b4d03751b02e075b880f617744c05725fae3a3fffc3b44ba0a856f59fae8fdf"}}}
	ri := &request.RequestInfo{Verb: "get", APIGroup: "wardle.example.com", APIVersion: "v1alpha1", IsResourceRequest: true}
	r := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x", nil)
	client := http.Header{"Accept-Encoding": {"gzip"}, "User-Agent": {"Go-http-client/2.0"}, "Audit-Id": {"0b6e4f4e-7a43-4b8e-9a43-5f1e0c3c1d2a"}}
	sent := http.Header{"Accept-Encoding": {"gzip"}, "User-Agent": {"Go-http-client/2.0"}, "Audit-Id": {"0b6e4f4e-7a43-4b8e-9a43-5f1e0c3c1d2a"},
		"X-Remote-User": {"admin"}, "X-Remote-Group": {"system:masters", "system:authenticated"},
		"X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id": {"X509SHA256=7b4d"},
		"X-Forwarded-For": {"127.0.0.1"}, "X-Forwarded-Uri": {"/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x"},
		"X-Forwarded-Host": {"127.0.0.1:8443"}, "X-Forwarded-Proto": {"https"}}
	got := http.Header{"Content-Type": {"application/json"}, "Content-Length": {"1024"}, "Date": {"Tue, 24 Nov 2026 11:00:00 GMT"}}
	r.Header = client // nothing in this exchange deletes from it
	var st requestState
	record := func() {
		st = requestState{Context: r.Context(), start: time.Now(), completed: true}
		in.begin(&st, r, ri, true)
		st.insp.authenticated(r, u)
		st.insp.impersonated(r).Decision = "Allow"
		st.insp.stage = ""
		st.insp.hop = proxy.Hop{APIService: "v1alpha1.wardle.example.com", Available: true, Address: "127.0.0.1:8443",
			ServerName: "api.wardle.svc", RequestHeader: sent, Code: 200, ResponseHeader: got}
		in.finish(&st, r)
	}
	for range DefaultInspectorRingSize { // fill the ring
		record()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		record()
	}
}
