package rest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
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

// fieldsOf returns "manager operation subresource fieldsV1" per entry.
func fieldsOf(t *testing.T, body []byte) []string {
	t.Helper()
	var obj struct {
		Metadata struct {
			ManagedFields []struct {
				Manager, Operation, Subresource string
				FieldsV1                        json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range obj.Metadata.ManagedFields {
		out = append(out, e.Manager+" "+e.Operation+" "+e.Subresource+" "+string(e.FieldsV1))
	}
	return out
}

// The managedFields kube-apiserver 1.33.13 recorded (kubectl get -o json
// --show-managed-fields | jq -c '.metadata.managedFields[]|[.manager,.operation,.subresource,.fieldsV1]'):
// defaulted fields are credited to the writer of an Update, list-map keys
// are port and protocol, spec.selector is atomic, the namespace name
// label is the creator's; an Apply owns only what it applied, its port
// key completed with the default protocol.
func TestCoreManagedFieldsReference(t *testing.T) {
	a := coreAPI(t)
	const ua = "User-Agent"
	tests := []struct {
		name, method, path, ct, agent, body string
		want                                []string
	}{
		{"kubectl create -f service", "POST", "/api/v1/namespaces/default/services", "application/json", "kubectl-create/v1.33.1 (linux/amd64) kubernetes/8adc0f0",
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s1","namespace":"default"},"spec":{"selector":{"app":"x"},"ports":[{"port":80}]}}`,
			[]string{`kubectl-create Update  {"f:spec":{"f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`}},
		{"kubectl apply --server-side service", "PATCH", "/api/v1/namespaces/default/services/sa?fieldManager=kubectl", PatchApply, "kubectl/v1.33.1",
			"apiVersion: v1\nkind: Service\nmetadata: {name: sa, namespace: default}\nspec:\n  selector: {app: x}\n  ports:\n  - port: 80\n",
			[]string{`kubectl Apply  {"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{}}},"f:selector":{}}}`}},
		{"kubectl create ns", "POST", "/api/v1/namespaces", "application/json", "kubectl-create/v1.33.1 (linux/amd64) kubernetes/8adc0f0",
			`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"nsx"}}`,
			[]string{`kubectl-create Update  {"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}`}},
		{"apiservice default port", "POST", "/apis/apiregistration.k8s.io/v1/apiservices", "application/json", "kubectl-create/v1.33.1 (linux/amd64) kubernetes/8adc0f0",
			`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.z.example.com"},"spec":{"group":"z.example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":10,"service":{"name":"api","namespace":"default"}}}`,
			[]string{`kubectl-create Update  {"f:spec":{"f:group":{},"f:groupPriorityMinimum":{},"f:service":{".":{},"f:name":{},"f:namespace":{},"f:port":{}},"f:version":{},"f:versionPriority":{}}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(t, a, tt.method, tt.path, tt.ct, tt.body, ua, tt.agent)
			if w.Code != 201 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if got := fieldsOf(t, w.Body.Bytes()); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A status the server's own controller writes through ObjectWriter.UpdateStatus shows
// as the reference shows its availability controller's write:
// ["kube-apiserver","Update","status",{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{...}}}}].
func TestObjectWriterStatusManagedFields(t *testing.T) {
	a := coreAPI(t)
	w := do(t, a, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", "application/json",
		`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.z.example.com"},"spec":{"group":"z.example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":10,"service":{"name":"api","namespace":"default"}}}`,
		"User-Agent", "kubectl-create/v1.33.1")
	if w.Code != 201 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	st := a.Store(registry.APIServiceStrategy{}.Info().GroupResource())
	sw := ObjectWriter{Store: st, Manager: "kube-apiserver"}
	obj, err := sw.Get(context.Background(), "", "v1.z.example.com")
	if err != nil {
		t.Fatal(err)
	}
	as := obj.(*apiregistration.APIService)
	as.Status.Conditions = []apiregistration.APIServiceCondition{{Type: "Available", Status: "False", Reason: "ServiceNotFound", Message: `service/api in "default" is not present`, LastTransitionTime: meta.NewTime(testNow)}}
	out, err := sw.UpdateStatus(context.Background(), as)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	want := []string{
		// Same second: sorted by manager name, as the reference lists them.
		`kube-apiserver Update status {"f:status":{"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`,
		`kubectl-create Update  {"f:spec":{"f:group":{},"f:groupPriorityMinimum":{},"f:service":{".":{},"f:name":{},"f:namespace":{},"f:port":{}},"f:version":{},"f:versionPriority":{}}}`,
	}
	if got := fieldsOf(t, b); !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
}
