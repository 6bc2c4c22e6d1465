package discovery

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// startDiscoveryServer serves the a-discovery APIServices (plus one
// unavailable APIService) through a Manager, and every /apis/<g>/<v> and
// /api/v1 from the backends' resource lists, as the aggregator's router
// would. It returns the server and the Accept headers seen per path.
func startDiscoveryServer(t *testing.T) (*httptest.Server, func() map[string][]string) {
	t.Helper()
	svcs := loadAPIServices(t, "a-discovery", "apiservices.yaml")
	down := remote("v1", "down.example.com", 8499)
	down.Available = false
	svcs = append(svcs, down)
	f := newFakeBackends()
	f.set("api", 8443, legacyBackend(t))
	core := []byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list"],"shortNames":["ns"]}]}`)
	m, err := New(Options{Fetcher: f, CoreResources: core})
	if err != nil {
		t.Fatal(err)
	}
	m.Set(svcs)
	m.Sync(t.Context())
	backend := legacyBackend(t)
	var mu sync.Mutex
	accepts := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepts[r.URL.Path] = append(accepts[r.URL.Path], r.Header.Get("Accept"))
		mu.Unlock()
		switch parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/"); {
		case r.URL.Path == "/api/v1":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(core)
		case r.URL.Path == "/apis/apiregistration.k8s.io/v1":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(defaultAPIRegistrationResources))
		case len(parts) == 3 && parts[0] == "apis" && parts[1] == "down.example.com":
			http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		case len(parts) == 3 && parts[0] == "apis" && m.HasGroup(parts[1]):
			backend.ServeHTTP(w, r)
		default:
			m.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		out := map[string][]string{}
		for k, v := range accepts {
			out[k] = slices.Clone(v)
		}
		return out
	}
}

// TestClientGoDiscovery: client-go's discovery client, in aggregated mode
// (its default) and legacy mode, sees the groups in aggsim's order, the
// preferred versions, the resources of every fetched version, and reports
// the Stale version as failed.
func TestClientGoDiscovery(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := "aggregated"
		if legacy {
			name = "legacy"
		}
		t.Run(name, func(t *testing.T) {
			srv, accepts := startDiscoveryServer(t)
			dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			dc.UseLegacyDiscovery = legacy
			groups, resources, err := dc.ServerGroupsAndResources()
			if legacy {
				if err == nil || !strings.Contains(err.Error(), "down.example.com/v1: the server is currently unable to handle the request") {
					t.Errorf("err = %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "stale GroupVersion discovery: down.example.com/v1") {
				t.Errorf("err = %v", err)
			}
			var names []string
			for _, g := range groups {
				names = append(names, g.Name+"="+g.PreferredVersion.Version)
			}
			want := []string{"=v1", "apiregistration.k8s.io=v1", "wardle.example.com=v1", "bloops.example.com=v1", "zzz.example.com=v1", "aaa.example.com=v2", "order.example.com=v10", "vp.example.com=v1alpha1"}
			if !legacy {
				// Aggregated discovery breaks ties on the group name.
				want = []string{"=v1", "apiregistration.k8s.io=v1", "wardle.example.com=v1", "aaa.example.com=v2", "bloops.example.com=v1", "zzz.example.com=v1", "order.example.com=v10", "vp.example.com=v1alpha1"}
			}
			if legacy {
				want = append(want, "down.example.com=v1")
			} else {
				want = append(want, "down.example.com=")
			}
			if !slices.Equal(names, want) {
				t.Errorf("groups\n got %v\nwant %v", names, want)
			}
			found := map[string]string{}
			for _, rl := range resources {
				for _, r := range rl.APIResources {
					found[rl.GroupVersion+" "+r.Name] = r.Kind + " " + strings.Join(r.Verbs, ",")
				}
			}
			for k, v := range map[string]string{
				"wardle.example.com/v1alpha1 flunders":        "Flunder create,delete,deletecollection,get,list,patch,update,watch",
				"wardle.example.com/v1alpha1 flunders/status": "Flunder get,patch,update",
				"order.example.com/foo1 fischers":             "Fischer get,list",
				"v1 namespaces":                               "Namespace get,list",
				"apiregistration.k8s.io/v1 apiservices":       "APIService create,delete,deletecollection,get,list,patch,update,watch",
			} {
				if found[k] != v {
					t.Errorf("%s = %q, want %q", k, found[k], v)
				}
			}
			got := accepts()
			if legacy {
				if len(got["/apis/wardle.example.com/v1"]) == 0 {
					t.Errorf("legacy mode did not fetch /apis/<g>/<v>: %v", got)
				}
			} else {
				for _, path := range []string{"/api", "/apis"} {
					a := got[path]
					if len(a) == 0 {
						t.Errorf("%s not fetched", path)
					}
					for _, h := range a {
						if !strings.HasPrefix(h, aggAccept+",") {
							t.Errorf("%s Accept = %q", path, h)
						}
					}
				}
				if len(got["/apis/wardle.example.com/v1"]) != 0 {
					t.Errorf("aggregated mode fell back to per-version fetches: %v", got)
				}
			}
		})
	}
}

// TestClientGoRESTMapper: a deferred discovery RESTMapper maps kinds to
// the preferred version's resource and scope.
func TestClientGoRESTMapper(t *testing.T) {
	srv, _ := startDiscoveryServer(t)
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	tests := []struct {
		gk        schema.GroupKind
		versions  []string
		wantGVR   schema.GroupVersionResource
		wantScope string
	}{
		{schema.GroupKind{Group: "wardle.example.com", Kind: "Flunder"}, nil, schema.GroupVersionResource{Group: "wardle.example.com", Version: "v1", Resource: "flunders"}, "namespace"},
		{schema.GroupKind{Group: "wardle.example.com", Kind: "Fischer"}, []string{"v1alpha1"}, schema.GroupVersionResource{Group: "wardle.example.com", Version: "v1alpha1", Resource: "fischers"}, "root"},
		{schema.GroupKind{Group: "vp.example.com", Kind: "Flunder"}, nil, schema.GroupVersionResource{Group: "vp.example.com", Version: "v1alpha1", Resource: "flunders"}, "namespace"},
		{schema.GroupKind{Group: "order.example.com", Kind: "Flunder"}, nil, schema.GroupVersionResource{Group: "order.example.com", Version: "v10", Resource: "flunders"}, "namespace"},
		{schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, nil, schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}, "root"},
		{schema.GroupKind{Kind: "Namespace"}, nil, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "root"},
	}
	for _, tt := range tests {
		mapping, err := mapper.RESTMapping(tt.gk, tt.versions...)
		if err != nil {
			t.Errorf("%v: %v", tt.gk, err)
			continue
		}
		if mapping.Resource != tt.wantGVR || string(mapping.Scope.Name()) != tt.wantScope {
			t.Errorf("%v: got %v %s, want %v %s", tt.gk, mapping.Resource, mapping.Scope.Name(), tt.wantGVR, tt.wantScope)
		}
	}
}
