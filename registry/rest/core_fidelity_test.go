package rest

import (
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/storage"
)

// coreAPI serves the core kinds and APIServices over a memory store.
func coreAPI(t *testing.T) *API {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	now := func() time.Time { return testNow }
	a := NewAPI(st, []registry.Strategy{
		registry.NamespaceStrategy{Now: now}, registry.ServiceStrategy{Now: now},
		registry.EndpointsStrategy{Now: now}, registry.ConfigMapStrategy{Now: now},
		registry.APIServiceStrategy{Now: now},
	}, registry.StoreOptions{Clock: now})
	t.Cleanup(a.Shutdown)
	return a
}

// Every request on v1 endpoints, errors included, carries the deprecation
// warning; kube-apiserver 1.33.13 answered each of these with exactly
// `Warning: 299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"`
// (curl -D - against the reference: get, get of a missing name, list,
// list across namespaces, watch, merge patch, an invalid patch, delete,
// deletecollection, a body that is not JSON, a bad continue token).
// Other resources get none.
func TestEndpointsDeprecationWarning(t *testing.T) {
	a := coreAPI(t)
	const want = `299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"`
	const eps = "/api/v1/namespaces/default/endpoints"
	reqs := []struct{ method, path, ct, body string }{
		{"POST", eps, "application/json", `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"e1"},"subsets":[{"addresses":[{"ip":"10.1.1.1"}],"ports":[{"port":80}]}]}`},
		{"GET", eps + "/e1", "", ""},
		{"GET", eps + "/nope", "", ""},
		{"GET", eps, "", ""},
		{"GET", "/api/v1/endpoints", "", ""},
		{"GET", eps + "?watch=1&timeoutSeconds=1", "", ""},
		{"PATCH", eps + "/e1", PatchMerge, `{"metadata":{"labels":{"a":"b"}}}`},
		{"PATCH", eps + "/e1", PatchMerge, `{"subsets":[{"addresses":[{"ip":"x"}]}]}`},
		{"POST", eps, "application/json", `{`},
		{"GET", eps + "?limit=1&continue=bad", "", ""},
		{"DELETE", eps + "/e1", "", ""},
		{"DELETE", eps, "", ""},
	}
	for _, rq := range reqs {
		w := do(t, a, rq.method, rq.path, rq.ct, rq.body)
		if got := w.Header().Values("Warning"); len(got) != 1 || got[0] != want {
			t.Errorf("%s %s (%d): Warning %q", rq.method, rq.path, w.Code, got)
		}
	}
	w := do(t, a, "GET", "/api/v1/namespaces/default/configmaps", "", "")
	if got := w.Header().Values("Warning"); len(got) != 0 {
		t.Errorf("configmaps: Warning %q", got)
	}
}
