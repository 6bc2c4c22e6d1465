package discovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzNegotiate: no Accept header makes the handlers panic, and every
// answer is 200 or 406.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "*/*", aggAccept, aggAccept + ";q=0.5,application/json;q=0.9", "application/json;;;=;q=x", ",,,", "*", "application/*;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"} {
		f.Add(s)
	}
	m, err := New(Options{ServeV2Beta1: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		for _, path := range []string{"/apis", "/api", "/apis/apiregistration.k8s.io"} {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("Accept", accept)
			rec := httptest.NewRecorder()
			m.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK && rec.Code != http.StatusNotAcceptable {
				t.Fatalf("%s Accept %q: code %d", path, accept, rec.Code)
			}
		}
	})
}

// FuzzIndexAggregated: whatever a backend sends as aggregated discovery,
// decoding either fails or yields resources that are valid JSON arrays.
func FuzzIndexAggregated(f *testing.F) {
	f.Add([]byte(`{"items":[{"metadata":{"name":"a"},"versions":[{"version":"v1","resources":[{"resource":"x"}]}]}]}`))
	f.Add([]byte(`{"items":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		gvs, err := indexAggregated(body)
		if err != nil {
			return
		}
		for gv, res := range gvs {
			if res == nil {
				continue
			}
			var v []APIResourceDiscovery
			if err := json.Unmarshal(res, &v); err != nil {
				t.Fatalf("%s: %v: %s", gv, err, res)
			}
		}
	})
}

// FuzzConvertResourceList: legacy APIResourceLists convert or fail, never panic.
func FuzzConvertResourceList(f *testing.F) {
	f.Add([]byte(`{"resources":[{"name":"a/b","namespaced":true},{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = convertResourceListJSON(body)
	})
}
