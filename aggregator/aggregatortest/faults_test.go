package aggregatortest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestFaultsThroughTheProxy checks what a client of the aggregator sees
// for each injected fault, and that Restore brings the normal answer back.
// The availability check interval is an hour, so no periodic probe runs
// between a fault and the request: the client sees the backend's failure
// through the proxy, not the aggregator's 503 for an unavailable
// APIService (TestFaultsTurnAPIServiceUnavailable covers that).
func TestFaultsThroughTheProxy(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t, aggregatortest.WithAvailabilityCheckInterval(time.Hour))
	rec := &userRecorder{gv: "faults.example.com/v1"}
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{
		Handler:  srv.RequireFrontProxy(rec),
		Group:    "faults.example.com",
		Versions: []string{"v1"},
	})
	url := srv.URL + "/apis/faults.example.com/v1/namespaces/default/things/a"
	ok := response{http.StatusOK, "application/json", `{"kind":"Thing","apiVersion":"faults.example.com/v1","metadata":{"name":"a"}}`}
	wantResponse(t, "before any fault", get(t, srv.Client(), url), ok)

	t.Run("latency", func(t *testing.T) {
		const latency = 50 * time.Millisecond
		b.SetLatency(latency)
		start := time.Now()
		wantResponse(t, "slow backend", get(t, srv.Client(), url), ok)
		// A lower bound only: the request cannot be answered sooner.
		if took := time.Since(start); took < latency {
			t.Errorf("answered after %s, before the %s latency", took, latency)
		}
		b.Restore()
		wantResponse(t, "after Restore", get(t, srv.Client(), url), ok)
	})

	t.Run("FailWith", func(t *testing.T) {
		b.FailWith(http.StatusInternalServerError)
		wantResponse(t, "FailWith(500)", get(t, srv.Client(), url), response{http.StatusInternalServerError, "application/json",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected failure: 500 Internal Server Error","reason":"InternalError","code":500}` + "\n"})
		b.FailWith(http.StatusTooManyRequests)
		wantResponse(t, "FailWith(429)", get(t, srv.Client(), url), response{http.StatusTooManyRequests, "application/json",
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected failure: 429 Too Many Requests","reason":"TooManyRequests","code":429}` + "\n"})
		b.Restore()
		wantResponse(t, "after Restore", get(t, srv.Client(), url), ok)
	})

	t.Run("DropConnections", func(t *testing.T) {
		b.DropConnections()
		wantResponse(t, "dropped connection", get(t, srv.Client(), url), response{http.StatusServiceUnavailable, "text/plain; charset=utf-8",
			"error trying to reach service: unexpected EOF\n"})
		b.Restore()
		wantResponse(t, "after Restore", get(t, srv.Client(), url), ok)
	})

	t.Run("PresentWrongCertificate", func(t *testing.T) {
		b.PresentWrongCertificate()
		wantResponse(t, "wrong certificate", get(t, srv.Client(), url), response{http.StatusServiceUnavailable, "text/plain; charset=utf-8",
			"error trying to reach service: tls: failed to verify certificate: x509: certificate is valid for not-faults-example-com.default.svc, not faults-example-com.default.svc\n"})
		// The probe does not verify serving certificates: aggsim still
		// calls the APIService Passed, and its explanation says why
		// proxying fails anyway.
		e, err := srv.Aggregator().ExplainAPIService(context.Background(), "v1.faults.example.com")
		if err != nil {
			t.Fatal(err)
		}
		if e.Verdict.Reason != "Passed" || !e.ProxyWillFail {
			t.Errorf("explain: verdict %q, proxyWillFail %v; want Passed, true\n%s", e.Verdict.Reason, e.ProxyWillFail, srv.Explain("v1.faults.example.com"))
		}
		b.Restore()
		wantResponse(t, "after Restore", get(t, srv.Client(), url), ok)
	})
}

// TestFaultsTurnAPIServiceUnavailable checks the realistic sequence with a
// fast probe: FailWith makes the next probe fail, the APIService turns
// Available=False with upstream's reason and message, the aggregator then
// answers 503 `service unavailable` itself; after Restore the next probe
// passes and the backend answers again.
func TestFaultsTurnAPIServiceUnavailable(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t, aggregatortest.WithAvailabilityCheckInterval(20*time.Millisecond))
	b := srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "flaky.example.com", Versions: []string{"v1"}})
	url := srv.URL + "/apis/flaky.example.com/v1"
	discoveryDoc := response{http.StatusOK, "application/json",
		`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"flaky.example.com/v1","resources":[]}` + "\n"}
	wantResponse(t, "healthy", get(t, srv.Client(), url), discoveryDoc)

	b.FailWith(http.StatusInternalServerError)
	b.WaitUnavailable(t)
	obj, err := srv.Aggregator().API().Store(meta.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}).Get(context.Background(), "", "v1.flaky.example.com")
	if err != nil {
		t.Fatal(err)
	}
	cond := obj.(*apiregistration.APIService).GetCondition(apiregistration.Available)
	probed := b.URL + "/apis/flaky.example.com/v1"
	wantMsg := "failing or missing response from " + probed + ": bad status from " + probed + ": 500"
	if cond == nil || cond.Status != apiregistration.ConditionFalse || cond.Reason != "FailedDiscoveryCheck" || cond.Message != wantMsg {
		t.Errorf("condition %+v; want False FailedDiscoveryCheck %q", cond, wantMsg)
	}
	unavailable := response{http.StatusServiceUnavailable, "text/plain; charset=utf-8", "service unavailable\n"}
	wantResponse(t, "unavailable", getUntil(t, srv.Client(), url, unavailable), unavailable)

	b.Restore()
	b.WaitAvailable(t)
	wantResponse(t, "restored", getUntil(t, srv.Client(), url, discoveryDoc), discoveryDoc)
}

// getUntil GETs url until it answers want, for at most 10 s, and returns
// the last answer: the proxy handler learns of an APIService's condition
// from the informer a moment after the condition is stored, as upstream's.
func getUntil(t testing.TB, client *http.Client, url string, want response) response {
	t.Helper()
	got := get(t, client, url)
	for deadline := time.Now().Add(10 * time.Second); got != want && time.Now().Before(deadline); got = get(t, client, url) {
		time.Sleep(5 * time.Millisecond)
	}
	return got
}

// TestFaultMethodsNeedHandler checks that fault injection on an Address
// backend, whose server the test owns, panics with a message that says so.
func TestFaultMethodsNeedHandler(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	b := registerAddressBackend(t, srv, "addr-faults.example.com")
	for name, f := range map[string]func(){
		"SetLatency":              func() { b.SetLatency(time.Second) },
		"FailWith":                func() { b.FailWith(500) },
		"DropConnections":         b.DropConnections,
		"PresentWrongCertificate": b.PresentWrongCertificate,
		"Restore":                 b.Restore,
	} {
		got := func() (msg any) {
			defer func() { msg = recover() }()
			f()
			return nil
		}()
		want := "aggregatortest: Backend." + name + " needs a backend started from BackendOptions.Handler, not Address"
		if got != want {
			t.Errorf("%s: panic %v; want %q", name, got, want)
		}
	}
	got := func() (msg any) {
		defer func() { msg = recover() }()
		srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "x.example.com", Versions: []string{"v1"}}).FailWith(200)
		return nil
	}()
	if s, _ := got.(string); !strings.HasPrefix(s, "aggregatortest: Backend.FailWith(200): status must be 300..599") {
		t.Errorf("FailWith(200): panic %v", got)
	}
}
