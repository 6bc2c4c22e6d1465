package rest

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/storage"
)

var (
	uidRE         = regexp.MustCompile(`"uid":"[^"]*"`)
	managedTimeRE = regexp.MustCompile(`"time":"[^"]*"`)
)

// coreAPI serves aggsim's stored kinds (registry.Strategies) over a memory
// store with a fixed clock.
func allStrategiesAPI(t *testing.T) *API {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { _ = st.Close() })
	return NewAPI(st, registry.Strategies(func() time.Time { return testNow }), registry.StoreOptions{Clock: func() time.Time { return testNow }})
}

// coreDo sends one request to a with the kubectl User-Agent (compact JSON).
func coreDo(a *API, method, path, contentType, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("User-Agent", "kubectl/v1.33.1")
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	a.ServeHTTP(w, r)
	return w
}

// TestCoreDiscoverySubresources pins /api/v1's entries for the resources
// aggsim serves, as kube-apiserver 1.33.13 lists them (curl -A kubectl
// /api/v1, these entries in its order): namespaces/finalize and
// services/proxy next to the status subresources, in name order; and the
// pretty form keeps APIResource's field order (it was sorted by key). The
// core group's list has no apiVersion upstream (capture
// testdata/reference/disc-api.txt).
func TestCoreDiscoverySubresources(t *testing.T) {
	a := allStrategiesAPI(t)
	w := coreDo(a, "GET", "/api/v1", "", "")
	const want = `{"kind":"APIResourceList","groupVersion":"v1","resources":[` +
		`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"],"storageVersionHash":"qFsyl6wFWjQ="},` +
		`{"name":"endpoints","singularName":"endpoints","namespaced":true,"kind":"Endpoints","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ep"],"storageVersionHash":"fWeeMqaN/OA="},` +
		`{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ev"],"storageVersionHash":"r2yiGXH7wu8="},` +
		`{"name":"limitranges","singularName":"limitrange","namespaced":true,"kind":"LimitRange","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["limits"],"storageVersionHash":"EBKMFVe6cwo="},` +
		`{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],"storageVersionHash":"Q3oi5N2YM8M="},` +
		`{"name":"namespaces/finalize","singularName":"","namespaced":false,"kind":"Namespace","verbs":["update"]},` +
		`{"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get","patch","update"]},` +
		`{"name":"resourcequotas","singularName":"resourcequota","namespaced":true,"kind":"ResourceQuota","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["quota"],"storageVersionHash":"8uhSgffRX6w="},` +
		`{"name":"resourcequotas/status","singularName":"","namespaced":true,"kind":"ResourceQuota","verbs":["get","patch","update"]},` +
		`{"name":"serviceaccounts","singularName":"serviceaccount","namespaced":true,"kind":"ServiceAccount","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sa"],"storageVersionHash":"pbx9ZvyFpBE="},` +
		`{"name":"serviceaccounts/token","singularName":"","namespaced":true,"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest","verbs":["create"]},` +
		`{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["svc"],"categories":["all"],"storageVersionHash":"0/CO1lhkEBI="},` +
		`{"name":"services/proxy","singularName":"","namespaced":true,"kind":"ServiceProxyOptions","verbs":["create","delete","get","patch","update"]},` +
		`{"name":"services/status","singularName":"","namespaced":true,"kind":"Service","verbs":["get","patch","update"]}]}` + "\n"
	if w.Code != 200 || w.Body.String() != want {
		t.Fatalf("got %d %s\nwant %s", w.Code, w.Body, want)
	}
	w = coreDo(a, "GET", "/api/v1?pretty=true", "", "")
	if b := w.Body.String(); !strings.HasPrefix(b, "{\n  \"kind\": \"APIResourceList\",\n  \"groupVersion\": \"v1\",\n  \"resources\": [\n    {\n      \"name\": \"configmaps\",\n      \"singularName\": \"configmap\",") || strings.HasSuffix(b, "\n") {
		t.Errorf("pretty /api/v1 not in field order or ends with a newline:\n%s", b)
	}
}

// TestNamespaceFinalize pins PUT namespaces/<name>/finalize as
// kube-apiserver 1.33.13 answers it (curl -A kubectl -XPUT
// .../namespaces/fin2/finalize): spec.finalizers and metadata come from the
// request, status stays, the managedFields entry names subresource
// finalize (after the creator's entry for the defaulted
// kubernetes.io/metadata.name label); a bad finalizer is 422 with upstream's two causes; GET is 405.
func TestNamespaceFinalize(t *testing.T) {
	a := allStrategiesAPI(t)
	if w := coreDo(a, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"fin2"}}`); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	w := coreDo(a, "PUT", "/api/v1/namespaces/fin2/finalize", "application/json",
		`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"fin2","labels":{"x":"y"}},"spec":{"finalizers":["kubernetes","example.com/a"]},"status":{"phase":"Terminating"}}`)
	body := managedTimeRE.ReplaceAllString(uidRE.ReplaceAllString(w.Body.String(), `"uid":"U"`), `"time":"T"`)
	const want = `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"fin2","uid":"U","resourceVersion":"3","creationTimestamp":"2026-11-21T23:54:47Z","labels":{"kubernetes.io/metadata.name":"fin2","x":"y"},` +
		`"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}},{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:finalizers":{}}},"subresource":"finalize"}]},` +
		`"spec":{"finalizers":["kubernetes","example.com/a"]},"status":{"phase":"Active"}}` + "\n"
	if w.Code != 200 || body != want {
		t.Fatalf("finalize: %d %s\nwant %s", w.Code, body, want)
	}
	w = coreDo(a, "PUT", "/api/v1/namespaces/fin2/finalize", "application/json", `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"fin2"},"spec":{"finalizers":["bad name"]}}`)
	const want422 = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Namespace \"fin2\" is invalid: [spec.finalizers[0]: Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.finalizers[0]: Invalid value: \"bad name\": name is neither a standard finalizer name nor is it fully qualified]","reason":"Invalid","details":{"name":"fin2","kind":"Namespace","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')","field":"spec.finalizers[0]"},{"reason":"FieldValueInvalid","message":"Invalid value: \"bad name\": name is neither a standard finalizer name nor is it fully qualified","field":"spec.finalizers[0]"}]},"code":422}` + "\n"
	if w.Code != 422 || w.Body.String() != want422 {
		t.Errorf("bad finalizer: %d %s\nwant %s", w.Code, w.Body, want422)
	}
	if w := coreDo(a, "GET", "/api/v1/namespaces/fin2/finalize", "", ""); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET finalize: %d %s", w.Code, w.Body)
	}
}
