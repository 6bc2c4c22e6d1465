package aggregatortest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/demo"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// BenchmarkGarbageCollection measures the time from the owner's DELETE
// (background, foreground, orphan) to its dependents being gone (orphan:
// to the owner being gone, its dependents freed): a ConfigMap owning 10
// ConfigMaps (one with blockOwnerDeletion), and a ConfigMap owning a
// flunder on the demo backend (deleted through the proxy). Upstream took
// 0.05-0.17 s (kube-1.33/namespace/timing.txt, 5a-5c); issue 19 aims at
// <= 0.05 s. The store is polled every 0.5 ms.
func BenchmarkGarbageCollection(b *testing.B) {
	srv := aggregatortest.Start(b)
	_, d := startDemoBackend(b, srv)
	api := srv.Aggregator().API()
	cms := api.Store(meta.GroupResource{Resource: "configmaps"})
	fls := d.API().Store(meta.GroupResource{Group: demo.Group, Resource: "flunders"})
	ctx := context.Background()
	if _, err := api.Store(meta.GroupResource{Resource: "namespaces"}).Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "gc"}}); err != nil {
		b.Fatal(err)
	}
	yes := true
	for _, c := range []struct {
		name, query string
		aggregated  bool
	}{
		{"background", "", false},
		{"foreground", "?propagationPolicy=Foreground", false},
		{"orphan", "?propagationPolicy=Orphan", false},
		{"background-aggregated-dependent", "", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				owner, err := cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("owner-%s-%d", c.name, i), Namespace: "gc"}})
				if err != nil {
					b.Fatal(err)
				}
				om := owner.GetObjectMeta()
				ref := meta.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: om.Name, UID: om.UID}
				var deps []string
				if c.aggregated {
					name := fmt.Sprintf("fl-%d", i)
					if _, err := fls.Create(ctx, &demo.Flunder{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "gc", OwnerReferences: []meta.OwnerReference{ref}}}); err != nil {
						b.Fatal(err)
					}
					deps = append(deps, name)
				} else {
					for j := range 10 {
						r := ref
						if j == 0 {
							r.BlockOwnerDeletion = &yes
						}
						name := fmt.Sprintf("dep-%s-%d-%d", c.name, i, j)
						if _, err := cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "gc", OwnerReferences: []meta.OwnerReference{r}}}); err != nil {
							b.Fatal(err)
						}
						deps = append(deps, name)
					}
				}
				time.Sleep(20 * time.Millisecond) // let the graph see them
				b.StartTimer()
				if code, body := nsReqAny(b, srv, http.MethodDelete, "/api/v1/namespaces/gc/configmaps/"+om.Name+c.query); code != http.StatusOK {
					b.Fatalf("delete: %d %s", code, body)
				}
				deadline := time.Now().Add(10 * time.Second)
				for {
					done := true
					if c.name == "orphan" {
						_, err := cms.Get(ctx, "gc", om.Name)
						done = err != nil
					} else {
						for _, n := range deps {
							st := cms
							if c.aggregated {
								st = fls
							}
							if _, err := st.Get(ctx, "gc", n); err == nil {
								done = false
								break
							}
						}
					}
					if done {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("%s: dependents of %s still there after 10 s", c.name, om.Name)
					}
					time.Sleep(500 * time.Microsecond)
				}
				b.StopTimer()
				if c.name == "orphan" {
					for _, n := range deps {
						if _, err := cms.Delete(ctx, "gc", n, nil); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
			}
		})
	}
}

// nsReqAny sends one request without a body as the admin and returns code
// and body.
func nsReqAny(b *testing.B, srv *aggregatortest.Server, method, path string) (int, string) {
	r, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := srv.Client().Do(r)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Status
}
