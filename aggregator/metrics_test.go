package aggregator

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
)

// TestMetricsPromlint serves /metrics after some traffic and fails on any
// promlint problem. Upstream names are kept as they are; none of them
// trips promlint (aggregator_unavailable_apiservice is a gauge, the
// counters end in _total).
func TestMetricsPromlint(t *testing.T) {
	e := avStart(t, false)
	e.waitCondition(t, "v1.", cond("True", apiregistration.ReasonLocal, apiregistration.MessageLocal))
	for _, p := range []string{"/apis", "/api/v1/namespaces", "/api/v1/namespaces/wardle", "/healthz"} {
		if code, body := e.proxyGet(p); code != 200 {
			t.Fatalf("GET %s: %d %s", p, code, body)
		}
	}
	e.s.onProxyRequest("v1.x.example.com", 503, 0, &proxy.DialError{Addr: "127.0.0.1:1", Err: errors.New("connection refused")})
	// The availability controller sets the unavailable gauge once the
	// status write it waited for above has returned, so it may trail the
	// condition by a moment: read /metrics until the gauge is there.
	var code int
	var body string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if code, body = e.proxyGet("/metrics"); code != 200 {
			t.Fatalf("/metrics: %d", code)
		}
		if strings.Contains(body, `aggregator_unavailable_apiservice{name="v1."}`) || time.Now().After(deadline) {
			break
		}
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	for _, name := range []string{
		// aggregator_unavailable_apiservice_total has no series until an
		// APIService turns unavailable (as upstream); see controller tests.
		"aggregator_unavailable_apiservice",
		"aggregator_discovery_aggregation_count_total", "apiserver_kube_aggregator_x509_missing_san_total",
		"apiserver_kube_aggregator_x509_insecure_sha1_total", "apiserver_request_total",
		"apiserver_request_duration_seconds", "aggsim_proxy_requests_total",
		"aggsim_proxy_backend_duration_seconds", "aggsim_proxy_backend_errors_total",
		"aggsim_proxy_active_watches", "aggsim_discovery_rebuilds_total",
		"aggsim_discovery_rebuild_duration_seconds", "go_goroutines", "process_cpu_seconds_total",
	} {
		if !strings.Contains(body, "# TYPE "+name+" ") {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for _, line := range []string{
		`# HELP aggregator_unavailable_apiservice [ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.`,
		`aggregator_unavailable_apiservice{name="v1."} 0`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="cluster",subresource="",verb="LIST",version="v1"} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"} 1`,
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="apis",verb="GET",version=""} 1`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="namespaces",scope="cluster",subresource="",verb="LIST",version="v1",le="0.005"}`,
		`aggsim_proxy_backend_errors_total{apiservice="v1.x.example.com",kind="dial"} 1`,
		`aggsim_proxy_requests_total{apiservice="v1.x.example.com",code="503"} 1`,
		`aggsim_proxy_active_watches 0`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks line %s", line)
		}
	}
	if r, a := collectValue(t, e.s.metrics.rebuilds), collectValue(t, e.s.metrics.aggregations); r < 1 || r != a {
		t.Errorf("rebuilds %v, aggregations %v: want equal and >= 1", r, a)
	}
}

// TestRequestMetricLabels checks upstream's verb, scope and dry_run label
// values (CleanVerb, CleanScope, cleanDryRun).
func TestRequestMetricLabels(t *testing.T) {
	tests := []struct {
		method, target, contentType string
		wantVerb, wantScope         string
		wantDryRun                  string
	}{
		{"GET", "/api/v1/namespaces", "", "LIST", "cluster", ""},
		{"GET", "/api/v1/namespaces?watch=true", "", "WATCH", "cluster", ""},
		{"GET", "/api/v1/watch/namespaces/ns/services", "", "WATCH", "namespace", ""},
		{"GET", "/api/v1/namespaces/ns/services/a", "", "GET", "resource", ""},
		{"POST", "/api/v1/namespaces/ns/services?dryRun=All&dryRun=All", "", "POST", "resource", "All"},
		{"PUT", "/apis/g.example.com/v1/foos/a", "", "PUT", "resource", ""},
		{"PATCH", "/apis/g.example.com/v1/foos/a", "application/apply-patch+yaml", "APPLY", "resource", ""},
		{"PATCH", "/apis/g.example.com/v1/foos/a", "application/merge-patch+json", "PATCH", "resource", ""},
		{"DELETE", "/apis/g.example.com/v1/namespaces/ns/foos", "", "DELETE", "namespace", ""},
		{"GET", "/healthz", "", "GET", "", ""},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		ri, err := request.NewRequestInfo(r)
		if err != nil {
			t.Fatal(err)
		}
		if v, s, d := metricsVerb(r, ri), metricsScope(ri), dryRunLabel(r); v != tc.wantVerb || s != tc.wantScope || d != tc.wantDryRun {
			t.Errorf("%s %s: verb %q scope %q dry_run %q, want %q %q %q", tc.method, tc.target, v, s, d, tc.wantVerb, tc.wantScope, tc.wantDryRun)
		}
	}
}

// TestNewMetricsRegisterer: a caller's registry receives the collectors
// and serves them; no Go/process collectors are added to it.
func TestNewMetricsRegisterer(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newMetrics(reg, nil)
	m.setUnavailable("v1.a.example.com", true)
	m.unavailableTransition("v1.a.example.com", "")
	want := `# HELP aggregator_unavailable_apiservice [ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.
# TYPE aggregator_unavailable_apiservice gauge
aggregator_unavailable_apiservice{name="v1.a.example.com"} 1
# HELP aggregator_unavailable_apiservice_total [ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.
# TYPE aggregator_unavailable_apiservice_total counter
aggregator_unavailable_apiservice_total{name="v1.a.example.com",reason="UnknownReason"} 1
`
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var got strings.Builder
	for _, l := range strings.SplitAfter(rec.Body.String(), "\n") {
		if strings.Contains(l, "aggregator_unavailable_apiservice") {
			got.WriteString(l)
		}
	}
	if got.String() != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", got.String(), want)
	}
	if strings.Contains(rec.Body.String(), "go_goroutines") {
		t.Error("Go collector registered on a caller's registry")
	}
	m.forgetAPIService("v1.a.example.com")
	if n := len(collectAll(m.unavailable)); n != 0 {
		t.Errorf("%d gauge series after forget, want 0", n)
	}
}

// collectAll returns what c collects, as dto metrics.
func collectAll(c prometheus.Collector) []*dto.Metric {
	ch := make(chan prometheus.Metric, 64)
	go func() { c.Collect(ch); close(ch) }()
	var out []*dto.Metric
	for m := range ch {
		d := &dto.Metric{}
		if err := m.Write(d); err == nil {
			out = append(out, d)
		}
	}
	return out
}

// collectValue returns the value of a single-series counter or gauge
// (testutil.ToFloat64 without its extra module).
func collectValue(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	ms := collectAll(c)
	if len(ms) != 1 {
		t.Fatalf("%d series, want 1", len(ms))
	}
	switch {
	case ms[0].Counter != nil:
		return ms[0].Counter.GetValue()
	case ms[0].Gauge != nil:
		return ms[0].Gauge.GetValue()
	}
	t.Fatal("not a counter or gauge")
	return 0
}

// TestRequestMetricsSkipPanics: a request that panicked leaves no
// apiserver_request_total or _duration sample (upstream's MonitorRequest
// runs after the handler without a defer), but a proxied watch that
// panicked still leaves aggsim_proxy_active_watches; a request that
// completed is counted with its code.
func TestRequestMetricsSkipPanics(t *testing.T) {
	s := &Server{metrics: newMetrics(nil, nil)}
	o := requestMetrics{s}
	watch := httptest.NewRequest("GET", "/apis/g.example.com/v1/namespaces/ns/foos?watch=true", nil)
	ri, err := request.NewRequestInfo(watch)
	if err != nil {
		t.Fatal(err)
	}
	gauge := func() float64 {
		var m dto.Metric
		if err := s.metrics.activeWatches.Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetGauge().GetValue()
	}
	count := func() int {
		ch := make(chan prometheus.Metric, 16)
		s.metrics.requests.Collect(ch)
		close(ch)
		n := 0
		for range ch {
			n++
		}
		return n
	}
	o.RequestStarted(watch, ri, true)
	if g := gauge(); g != 1 {
		t.Fatalf("active watches after start: %v, want 1", g)
	}
	o.RequestDone(watch, ri, true, RequestOutcome{Code: http.StatusOK, Panicked: true})
	if g, n := gauge(), count(); g != 0 || n != 0 {
		t.Fatalf("after a panicked watch: active watches %v, request series %d; want 0 and 0", g, n)
	}
	o.RequestStarted(watch, ri, true)
	o.RequestDone(watch, ri, true, RequestOutcome{Code: http.StatusOK})
	var m dto.Metric
	if err := s.metrics.requests.WithLabelValues("WATCH", "", "g.example.com", "v1", "foos", "", "namespace", componentAggregator, "200").Write(&m); err != nil {
		t.Fatal(err)
	}
	if g, n, v := gauge(), count(), m.GetCounter().GetValue(); g != 0 || n != 1 || v != 1 {
		t.Fatalf("after a completed watch: active watches %v, request series %d, WATCH 200 count %v; want 0, 1, 1", g, n, v)
	}
}
