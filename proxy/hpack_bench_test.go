package proxy

import (
	"bytes"
	"testing"

	"github.com/aggsim/aggsim/internal/uuid4"
	"golang.org/x/net/http2/hpack"
)

// hpackRequestFields are the fields aggsim sends a backend for a proxied
// GET (lower-case, as HTTP/2 writes them), Audit-Id first after the
// pseudo-fields; the value of audit-id is replaced per request.
var hpackRequestFields = []hpack.HeaderField{
	{Name: ":authority", Value: "127.0.0.1:44321"},
	{Name: ":method", Value: "GET"},
	{Name: ":path", Value: "/apis/perf.example.com/v1/namespaces/default/flunders/fl-1"},
	{Name: ":scheme", Value: "https"},
	{Name: "accept", Value: "application/json"},
	{Name: "audit-id", Value: ""},
	{Name: "x-forwarded-for", Value: "127.0.0.1"},
	{Name: "x-forwarded-host", Value: "127.0.0.1:44321"},
	{Name: "x-forwarded-proto", Value: "https"},
	{Name: "x-forwarded-uri", Value: "/apis/perf.example.com/v1/namespaces/default/flunders/fl-1"},
	{Name: "x-remote-extra-authentication.kubernetes.io%2fcredential-id", Value: "X509SHA256=7b4d03751b02e075b880f617744c05725fae3a3fffc3b44ba0a856f59fae8fdf"},
	{Name: "x-remote-group", Value: "system:masters"},
	{Name: "x-remote-group", Value: "system:authenticated"},
	{Name: "x-remote-user", Value: "kubernetes-admin"},
	{Name: "accept-encoding", Value: "gzip"},
}

// BenchmarkHPACKAuditID measures what one request's header block costs
// HPACK's encoder and decoder (both with the default 4 KiB dynamic
// table) when Audit-Id is a new value per request and indexed (what Go's
// HTTP/2 transport and server do), the same value every time, or a new
// value written never-indexed (Sensitive), which neither side adds to its
// table. It is issue 21's question whether the per-request id churning the
// tables is a cost worth a transport of aggsim's own.
//
//	go test -run '^$' -bench HPACKAuditID -benchmem ./proxy/
func BenchmarkHPACKAuditID(b *testing.B) {
	for _, mode := range []string{"fresh-indexed", "constant", "fresh-never-indexed"} {
		b.Run(mode, func(b *testing.B) {
			var buf bytes.Buffer
			enc := hpack.NewEncoder(&buf)
			n := 0
			dec := hpack.NewDecoder(4096, func(hpack.HeaderField) { n++ })
			fields := append([]hpack.HeaderField(nil), hpackRequestFields...)
			ids := make([]string, 1024)
			for i := range ids {
				ids[i] = uuid4.New()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				buf.Reset()
				for _, f := range fields {
					if f.Name == "audit-id" {
						switch mode {
						case "fresh-indexed":
							f.Value = ids[i%len(ids)]
						case "constant":
							f.Value = ids[0]
						case "fresh-never-indexed":
							f.Value, f.Sensitive = ids[i%len(ids)], true
						}
					}
					if err := enc.WriteField(f); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := dec.Write(buf.Bytes()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "block-bytes")
		})
	}
}
