package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/storage"
)

// benchCRD returns a small namespaced CRD named <plural>.bench.example.com.
func benchCRD(plural string) []byte {
	return []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.bench.example.com"},` +
		`"spec":{"group":"bench.example.com","scope":"Namespaced","names":{"plural":"` + plural + `","kind":"K` + plural + `"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"type":"integer"}}}}}}}]}}`)
}

// BenchmarkCRDCreateToServed measures, per CRD, the time from the POST
// to Established, to the resource listed in aggregated discovery, to its
// kind in the group/version's /openapi/v3 document and to its path in
// /openapi/v2 (reported as ms-established, ms-discovery, ms-openapi,
// ms-openapi-v2; upstream took 12-112 ms to Established for small CRDs
// and 0.14-1.1 s more for OpenAPI v3). Each is polled by a goroutine of
// its own, 100 µs between polls (/openapi/v2, megabytes, asked for with
// the last ETag in If-None-Match, as kubectl's cache does): one loop
// polling all in turn measured the poll round (fetching the
// group/version's growing OpenAPI document) more than the server.
func BenchmarkCRDCreateToServed(b *testing.B) {
	s, _ := runServer(&testing.T{}, Options{Storage: storage.NewMemory()})
	ctx := context.Background()
	lb := loopback{api: s.Handler(), user: benchAdmin()}
	var est, disc, oa, oa2 time.Duration
	for i := 0; b.Loop(); i++ {
		plural := fmt.Sprintf("things%d", i)
		polls := []struct {
			path, accept, want string
			every              time.Duration
		}{
			{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + plural + ".bench.example.com", "application/json", `"reason":"InitialNamesAccepted"`, 100 * time.Microsecond},
			{"/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", `"resource":"` + plural + `"`, 100 * time.Microsecond},
			{"/openapi/v3/apis/bench.example.com/v1", "application/json", `"K` + plural + `"`, 100 * time.Microsecond},
			{"/openapi/v2", "application/json", `"/apis/bench.example.com/v1/namespaces/{namespace}/` + plural + `"`, 100 * time.Microsecond},
		}
		var took [4]time.Duration
		var errs [4]error
		start := time.Now()
		if code, out, _ := lb.send(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "application/json", benchCRD(plural)); code != http.StatusCreated {
			b.Fatalf("create: %d %s", code, out)
		}
		var wg sync.WaitGroup
		for j, p := range polls {
			wg.Go(func() {
				etag := ""
				for {
					out := getIfNoneMatch(ctx, s.Handler(), p.path, p.accept, &etag)
					if bytes.Contains(out, []byte(p.want)) {
						took[j] = time.Since(start)
						return
					}
					if time.Since(start) > 10*time.Second {
						errs[j] = fmt.Errorf("%s: %s not seen within 10 s", p.path, p.want)
						return
					}
					time.Sleep(p.every)
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs[:]...); err != nil {
			b.Fatal(err)
		}
		est, disc, oa, oa2 = est+took[0], disc+took[1], oa+took[2], oa2+took[3]
	}
	n := float64(b.N)
	b.ReportMetric(float64(est.Microseconds())/1000/n, "ms-established")
	b.ReportMetric(float64(disc.Microseconds())/1000/n, "ms-discovery")
	b.ReportMetric(float64(oa.Microseconds())/1000/n, "ms-openapi")
	b.ReportMetric(float64(oa2.Microseconds())/1000/n, "ms-openapi-v2")
}

// BenchmarkStartWith200CRDs measures a start (New, Run, ready) over a
// store that holds 200 established CRDs, until all 200 are served (the
// shutdown that follows is not timed).
func BenchmarkStartWith200CRDs(b *testing.B) {
	st := storage.NewMemory()
	s, stop := runServer(&testing.T{}, Options{Storage: st})
	ctx := context.Background()
	lb := loopback{api: s.Handler(), user: benchAdmin()}
	for i := range 200 {
		if code, out, _ := lb.send(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "application/json", benchCRD(fmt.Sprintf("kinds%d", i))); code != http.StatusCreated {
			b.Fatalf("create: %d %s", code, out)
		}
	}
	// every CRD Established and served before the stop: otherwise the
	// first timed start finishes the setup's status writes
	for deadline := time.Now().Add(30 * time.Second); len(s.crdServing.servedResources()) < 200; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("200 CRDs not served within 30 s")
		}
	}
	stop()
	for b.Loop() {
		srv, err := New(Options{Storage: st})
		if err != nil {
			b.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { srv.Run(runCtx); close(done) }()
		<-srv.Ready()
		deadline := time.Now().Add(30 * time.Second)
		for srv.api.GroupVersionStore("bench.example.com", "v1", "kinds199") == nil || len(srv.crdServing.servedResources()) < 200 {
			if time.Now().After(deadline) {
				b.Fatal("200 CRDs not served within 30 s")
			}
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		cancel()
		<-done
		b.StartTimer()
	}
}

// BenchmarkCustomResourceCreateLargeSchema measures creating
// ServiceMonitors (a 75 KB schema, prometheus-operator v0.93.0) one after
// another.
func BenchmarkCustomResourceCreateLargeSchema(b *testing.B) {
	s, _ := runServer(&testing.T{}, Options{Storage: storage.NewMemory()})
	ctx := context.Background()
	y, err := os.ReadFile("testdata/crd/monitoring.coreos.com_servicemonitors.yaml")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := yaml.YAMLToJSON(y)
	lb := loopback{api: s.Handler(), user: benchAdmin()}
	if code, out, _ := lb.send(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "application/json", body); code != http.StatusCreated {
		b.Fatalf("create CRD: %d %s", code, out)
	}
	path := "/apis/monitoring.coreos.com/v1/namespaces/default/servicemonitors"
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, _ := lb.send(ctx, http.MethodGet, path, "", "", "application/json", nil)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("servicemonitors not served")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := 0; b.Loop(); i++ {
		obj, _ := json.Marshal(map[string]any{
			"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
			"metadata": map[string]any{"name": fmt.Sprintf("sm-%d", i)},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
				"endpoints": []any{map[string]any{"port": "http", "interval": "30s"}}},
		})
		if code, out, _ := lb.send(ctx, http.MethodPost, path, "", "application/json", "application/json", obj); code != http.StatusCreated {
			b.Fatalf("create: %d %s", code, out)
		}
	}
}

// getIfNoneMatch GETs path as benchAdmin with If-None-Match *etag (when
// set) and returns the body of a 200 (nil otherwise), keeping its ETag in
// *etag.
func getIfNoneMatch(ctx context.Context, h http.Handler, path, accept string, etag *string) []byte {
	r := httptest.NewRequestWithContext(withInProcessUser(ctx, benchAdmin()), http.MethodGet, path, nil)
	r.RemoteAddr = "127.0.0.1:0"
	r.Header.Set("Accept", accept)
	if *etag != "" {
		r.Header.Set("If-None-Match", *etag)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		return nil
	}
	*etag = w.Header().Get("Etag")
	return w.Body.Bytes()
}

func benchAdmin() *authentication.UserInfo {
	return &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
}
