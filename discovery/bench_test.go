package discovery

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchManager returns a Manager with n APIServices: n/2 groups with two
// versions each, all Local with the wardle backend's resource list, so
// every version has resources in aggregated discovery.
func benchManager(b *testing.B, n int) *Manager {
	b.Helper()
	res := readFile(b, "a-discovery", "apis.wardle.example.com.v1alpha1.json")
	m, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	svcs := make([]APIService, 0, n)
	for i := 0; i < n; i++ {
		g := fmt.Sprintf("g%05d.example.com", i/2)
		v := []string{"v1", "v1beta1"}[i%2]
		svcs = append(svcs, APIService{Name: v + "." + g, Group: g, Version: v, GroupPriorityMinimum: int32(1000 + i%50), VersionPriority: int32(10 + i%2), Available: true, Resources: res})
	}
	m.Set(svcs)
	return m
}

// discardWriter is a ResponseWriter that keeps nothing but reuses its
// header map, so the benchmark measures the handler.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(code int)        { d.code = code }
func (d *discardWriter) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

func BenchmarkServeAPIs(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		m := benchManager(b, n)
		for _, mode := range []struct{ name, accept string }{
			{"legacy", "application/json"},
			{"aggregated", aggAccept + ",application/json"},
		} {
			b.Run(fmt.Sprintf("%s/%d", mode.name, n), func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, "/apis", nil)
				req.Header.Set("Accept", mode.accept)
				w := &discardWriter{h: http.Header{}}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					clear(w.h)
					m.ServeAPIs(w, req)
				}
				b.SetBytes(int64(w.n / max(b.N, 1)))
				if w.code != http.StatusOK {
					b.Fatalf("code %d", w.code)
				}
			})
		}
	}
}

// BenchmarkRebuildAfterUpdate measures one Update (one APIService changes
// its versionPriority) with 10,000 APIServices present: every document is
// rebuilt and the ETag recomputed.
func BenchmarkRebuildAfterUpdate(b *testing.B) {
	m := benchManager(b, 10000)
	svc := m.services["v1.g00042.example.com"]
	s := *svc
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		s.VersionPriority = int32(10 + i%3)
		m.Update(s)
	}
}
