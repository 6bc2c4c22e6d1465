package aggregatortest_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// TestProxiedRequestTimeout: a proxied request whose ?timeout passes before
// the backend answers gets the timeout filter's 504 Status, byte for byte
// what a local request gets (the proxy answers its own deadline so the
// filter can spare it a goroutine), and a fast request still works.
func TestProxiedRequestTimeout(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t, aggregatortest.WithAvailabilityCheckInterval(time.Hour))
	be := registerSlowBackend(t, srv)
	const want = `{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}` + "\n"

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/apis/slow.example.com/v1/namespaces/default/things?timeout=5s"); code != http.StatusOK {
		t.Fatalf("fast request: %d", code)
	}
	be.SetLatency(3 * time.Second)
	defer be.Restore()
	if code, body := get("/apis/slow.example.com/v1/namespaces/default/things?timeout=200ms"); code != http.StatusGatewayTimeout || body != want {
		t.Fatalf("proxied request past its timeout: %d %q, want 504 %q", code, body, want)
	}
}

// TestRequestTimeoutOption: aggregator.Options.RequestTimeout (serve's
// --request-timeout) bounds proxied requests without a ?timeout=, a
// longer ?timeout= does not extend it, and a request that ends in time is
// not affected.
func TestRequestTimeoutOption(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t, aggregatortest.WithAvailabilityCheckInterval(time.Hour),
		aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.RequestTimeout = 300 * time.Millisecond }))
	be := registerSlowBackend(t, srv)
	get := func(path string) int {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	if code := get("/apis/slow.example.com/v1/namespaces/default/things"); code != http.StatusOK {
		t.Fatalf("fast request: %d", code)
	}
	be.SetLatency(2 * time.Second)
	defer be.Restore()
	for _, path := range []string{
		"/apis/slow.example.com/v1/namespaces/default/things",
		"/apis/slow.example.com/v1/namespaces/default/things?timeout=10s",
	} {
		if code := get(path); code != http.StatusGatewayTimeout {
			t.Errorf("%s with a 2 s backend and a 300 ms request timeout: %d, want 504", path, code)
		}
	}
}

// registerSlowBackend registers slow.example.com/v1, answering every path
// with an empty APIResourceList; tests slow it down with SetLatency.
func registerSlowBackend(t *testing.T, srv *aggregatortest.Server) *aggregatortest.Backend {
	t.Helper()
	return srv.RegisterBackend(t, aggregatortest.BackendOptions{
		Group:    "slow.example.com",
		Versions: []string{"v1"},
		Handler: srv.RequireFrontProxy(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"slow.example.com/v1","resources":[]}`)
		})),
	})
}
