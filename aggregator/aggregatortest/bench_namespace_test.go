package aggregatortest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/demo"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// zooBackend is a minimal aggregated API server for zoo.example.com/v1
// with one namespaced resource, animals (list, delete, deletecollection),
// kept in memory. It counts the requests it receives.
type zooBackend struct {
	mu       sync.Mutex
	animals  map[string]map[string]bool // namespace -> names
	requests atomic.Int64
}

func (z *zooBackend) add(ns string, n int) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.animals[ns] == nil {
		z.animals[ns] = map[string]bool{}
	}
	for i := range n {
		z.animals[ns][fmt.Sprintf("a%d", i)] = true
	}
}

func (z *zooBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/apis/zoo.example.com/v1" {
		_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"zoo.example.com/v1","resources":[{"name":"animals","singularName":"animal","namespaced":true,"kind":"Animal","verbs":["delete","deletecollection","get","list"]}]}`))
		return
	}
	z.requests.Add(1)
	rest, ok := strings.CutPrefix(r.URL.Path, "/apis/zoo.example.com/v1/namespaces/")
	ns, res, _ := strings.Cut(rest, "/")
	if !ok || res != "animals" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	items := []any{}
	switch r.Method {
	case http.MethodDelete:
		delete(z.animals, ns)
	case http.MethodGet:
		for n := range z.animals[ns] {
			items = append(items, map[string]any{"metadata": map[string]any{"name": n, "namespace": ns}})
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "AnimalList", "apiVersion": "zoo.example.com/v1", "metadata": map[string]any{}, "items": items})
}

// BenchmarkNamespaceDeletion deletes a namespace holding 1,000 objects
// across 5 resources, 200 each: configmaps, endpoints and services
// (local; services have no deletecollection, so list and delete each),
// flunders on the demo backend and animals on a second backend (both
// aggregated, deletecollection through the proxy). One op is from the
// DELETE to the namespace being gone from the store (polled every 1 ms);
// backend-req/op counts the requests both backends received.
func BenchmarkNamespaceDeletion(b *testing.B) {
	const perResource = 200
	srv := aggregatortest.Start(b)
	_, d := startDemoBackend(b, srv)
	zoo := &zooBackend{animals: map[string]map[string]bool{}}
	srv.RegisterBackend(b, aggregatortest.BackendOptions{Handler: srv.RequireFrontProxy(zoo), Group: "zoo.example.com", Versions: []string{"v1"}})
	api := srv.Aggregator().API()
	nsStore := api.Store(meta.GroupResource{Resource: "namespaces"})
	ctx := context.Background()
	var backendRequests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ns := fmt.Sprintf("bench-%d", i)
		if _, err := nsStore.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: ns}}); err != nil {
			b.Fatal(err)
		}
		for j := range perResource {
			name := fmt.Sprintf("o%d", j)
			om := meta.ObjectMeta{Name: name, Namespace: ns}
			for _, c := range []struct {
				resource string
				obj      meta.Object
			}{
				{"configmaps", &core.ConfigMap{ObjectMeta: om}},
				{"endpoints", &core.Endpoints{ObjectMeta: om}},
				{"services", &core.Service{ObjectMeta: om, Spec: core.ServiceSpec{Ports: []core.ServicePort{{Port: 80}}}}},
			} {
				if _, err := api.Store(meta.GroupResource{Resource: c.resource}).Create(ctx, c.obj); err != nil {
					b.Fatal(c.resource, err)
				}
			}
			if _, err := d.API().Store(meta.GroupResource{Group: demo.Group, Resource: "flunders"}).Create(ctx, &demo.Flunder{ObjectMeta: om}); err != nil {
				b.Fatal(err)
			}
		}
		zoo.add(ns, perResource)
		d.Recorder().Reset()
		zooBefore := zoo.requests.Load()
		b.StartTimer()
		if code, body := nsReqB(b, srv, ns); code != http.StatusOK {
			b.Fatalf("delete: %d %s", code, body)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := nsStore.Get(ctx, "", ns); err != nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("namespace %s still there after 30 s", ns)
			}
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		left, _, _, err := d.API().Store(meta.GroupResource{Group: demo.Group, Resource: "flunders"}).List(ctx, ns, registry.ListOptions{})
		zoo.mu.Lock()
		animals := len(zoo.animals[ns])
		zoo.mu.Unlock()
		if err != nil || len(left) != 0 || animals != 0 {
			b.Fatalf("left behind: %d flunders (%v), %d animals", len(left), err, animals)
		}
		for _, r := range []string{"configmaps", "endpoints", "services"} {
			if left, _, _, err := api.Store(meta.GroupResource{Resource: r}).List(ctx, ns, registry.ListOptions{}); err != nil || len(left) != 0 {
				b.Fatalf("left behind: %d %s (%v)", len(left), r, err)
			}
		}
		n := int64(0)
		for _, r := range d.Recorder().Requests() {
			if strings.Contains(r.Path, "/namespaces/"+ns+"/") {
				n++
			}
		}
		backendRequests += n + zoo.requests.Load() - zooBefore
		b.StartTimer()
	}
	b.ReportMetric(float64(backendRequests)/float64(b.N), "backend-req/op")
}

// nsReqB sends DELETE /api/v1/namespaces/<ns> as the admin.
func nsReqB(b *testing.B, srv *aggregatortest.Server, ns string) (int, string) {
	r, err := http.NewRequest(http.MethodDelete, srv.URL+"/api/v1/namespaces/"+ns, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := srv.Client().Do(r)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	_, _ = fmt.Fprint(&sb, resp.Status)
	return resp.StatusCode, sb.String()
}

// BenchmarkStuckNamespaceRecovery measures how long a namespace stuck on
// an unavailable APIService (NamespaceDeletionDiscoveryFailure) takes to
// go once its backend answers again, with aggsim serve's default
// availability check interval (1 s). One op is from the backend's
// recovery to the namespace being gone from the store.
func BenchmarkStuckNamespaceRecovery(b *testing.B) {
	srv := aggregatortest.Start(b, aggregatortest.WithAvailabilityCheckInterval(time.Second))
	backend, d := startDemoBackend(b, srv)
	api := srv.Aggregator().API()
	nsStore := api.Store(meta.GroupResource{Resource: "namespaces"})
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ns := fmt.Sprintf("stuck-%d", i)
		if _, err := nsStore.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: ns}}); err != nil {
			b.Fatal(err)
		}
		if _, err := d.API().Store(meta.GroupResource{Group: demo.Group, Resource: "flunders"}).Create(ctx, &demo.Flunder{ObjectMeta: meta.ObjectMeta{Name: "f1", Namespace: ns}}); err != nil {
			b.Fatal(err)
		}
		backend.FailWith(http.StatusServiceUnavailable)
		backend.WaitUnavailable(b)
		if code, body := nsReqB(b, srv, ns); code != http.StatusOK {
			b.Fatalf("delete: %d %s", code, body)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			obj, err := nsStore.Get(ctx, "", ns)
			if err != nil {
				b.Fatal(err)
			}
			if cs := obj.(*core.Namespace).Status.Conditions; len(cs) > 0 && cs[0].Status == "True" {
				break
			}
			if time.Now().After(deadline) {
				b.Fatal("no NamespaceDeletionDiscoveryFailure within 30 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.StartTimer()
		backend.Restore()
		for {
			if _, err := nsStore.Get(ctx, "", ns); err != nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("namespace %s still there", ns)
			}
			time.Sleep(time.Millisecond)
		}
	}
}
