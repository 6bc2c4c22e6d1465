package aggregator

import (
	"github.com/aggsim/aggsim/aggregator/admission"
	"net/http"
	"net/http/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
)

// requestDurationBuckets are upstream's apiserver_request_duration_seconds
// buckets (apiserver/pkg/endpoints/metrics/metrics.go), in seconds.
var requestDurationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// The component label values of the request metrics: requests aggsim
// serves itself, and requests proxied to an aggregated API server.
const (
	componentAPIServer  = "apiserver"
	componentAggregator = "aggregator"
)

// metrics holds the Server's Prometheus collectors: upstream's aggregator
// metrics under their upstream names
// (kube-aggregator/pkg/controllers/status/metrics/metrics.go,
// kube-aggregator/pkg/apiserver/metrics.go,
// apiserver/pkg/endpoints/discovery/aggregated/metrics.go,
// apiserver/pkg/endpoints/metrics/metrics.go) and aggsim's own proxy and
// discovery metrics under aggsim_. All methods are safe for concurrent use
// and a nil *metrics ignores every call.
type metrics struct {
	gatherer prometheus.Gatherer

	unavailable      *unavailableCollector
	unavailableTotal *prometheus.CounterVec
	missingSAN       prometheus.Counter
	insecureSHA1     prometheus.Counter

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec

	proxyRequests   *prometheus.CounterVec
	proxyDuration   *prometheus.HistogramVec
	proxyErrors     *prometheus.CounterVec
	activeWatches   prometheus.Gauge
	rebuilds        prometheus.Counter
	rebuildDuration prometheus.Histogram
	aggregations    prometheus.Counter

	requestCache seriesCache[[9]string, requestSeries] // metrics_cache.go
	proxyCache   seriesCache[[2]string, proxySeries]
}

// newMetrics builds the collectors and registers them with reg. A nil reg
// means a new registry of the Server's own with the Go and process
// collectors; g (or reg when it is a Gatherer, or that own registry) serves
// /metrics. A collector reg already holds under the same name is left in
// place (ours then goes unexported).
func newMetrics(reg prometheus.Registerer, g prometheus.Gatherer) *metrics {
	if reg == nil {
		r := prometheus.NewRegistry()
		r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg = r
	}
	if g == nil {
		if rg, ok := reg.(prometheus.Gatherer); ok {
			g = rg
		} else {
			g = prometheus.NewRegistry()
		}
	}
	m := &metrics{
		gatherer:    g,
		unavailable: newUnavailableCollector(),
		unavailableTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "aggregator_unavailable_apiservice_total",
			Help: "[ALPHA] Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
		}, []string{"name", "reason"}),
		missingSAN: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_kube_aggregator_x509_missing_san_total",
			Help: "[ALPHA] Counts the number of requests to servers missing SAN extension in their serving certificate OR the number of connection failures due to the lack of x509 certificate SAN extension missing (either/or, based on the runtime environment)",
		}),
		insecureSHA1: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_kube_aggregator_x509_insecure_sha1_total",
			Help: "[ALPHA] Counts the number of requests to servers with insecure SHA1 signatures in their serving certificate OR the number of connection failures due to the insecure SHA1 signatures (either/or, based on the runtime environment)",
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: requestDurationBuckets,
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		proxyRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "aggsim_proxy_requests_total",
			Help: "Requests proxied to aggregated API servers, by APIService and HTTP status code sent to the client.",
		}, []string{"apiservice", "code"}),
		proxyDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "aggsim_proxy_backend_duration_seconds",
			Help:    "Time from receiving a proxied request to the end of its response, in seconds, by APIService.",
			Buckets: requestDurationBuckets,
		}, []string{"apiservice"}),
		proxyErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "aggsim_proxy_backend_errors_total",
			Help: "Proxied requests that failed before or while reaching the backend, by APIService and kind (dial, tls, resolve, unavailable, other).",
		}, []string{"apiservice", "kind"}),
		activeWatches: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "aggsim_proxy_active_watches",
			Help: "Watch requests currently proxied to aggregated API servers.",
		}),
		rebuilds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "aggsim_discovery_rebuilds_total",
			Help: "Times the discovery documents (/apis, /api, aggregated discovery) were rebuilt.",
		}),
		rebuildDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "aggsim_discovery_rebuild_duration_seconds",
			Help:    "Time one rebuild of the discovery documents took, in seconds.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
		aggregations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "aggregator_discovery_aggregation_count_total",
			Help: "[ALPHA] Counter of number of times discovery was aggregated",
		}),
	}
	for _, c := range []prometheus.Collector{
		m.unavailable, m.unavailableTotal, m.missingSAN, m.insecureSHA1,
		m.requests, m.requestDuration,
		m.proxyRequests, m.proxyDuration, m.proxyErrors, m.activeWatches,
		m.rebuilds, m.rebuildDuration, m.aggregations,
	} {
		_ = reg.Register(c) // an AlreadyRegisteredError keeps the existing one
	}
	return m
}

// handler serves the gathered metrics in the Prometheus text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}

// setUnavailable sets aggregator_unavailable_apiservice{name} to 1 or 0.
func (m *metrics) setUnavailable(name string, unavailable bool) {
	if m == nil {
		return
	}
	m.unavailable.set(name, unavailable)
}

// forgetAPIService drops name's aggregator_unavailable_apiservice series
// (the APIService was deleted). The counter keeps its history, as upstream.
func (m *metrics) forgetAPIService(name string) {
	if m == nil {
		return
	}
	m.unavailable.forget(name)
}

// unavailableTransition counts one Available=True → not-True write.
func (m *metrics) unavailableTransition(name, reason string) {
	if m == nil {
		return
	}
	if reason == "" {
		reason = "UnknownReason"
	}
	m.unavailableTotal.WithLabelValues(name, reason).Inc()
}

// unavailableCollector is upstream's custom collector behind
// aggregator_unavailable_apiservice: one gauge series per APIService the
// availability controller has seen, removed when it is deleted.
type unavailableCollector struct {
	desc *prometheus.Desc

	mu    sync.Mutex // guards state
	state map[string]bool
}

func newUnavailableCollector() *unavailableCollector {
	return &unavailableCollector{
		desc: prometheus.NewDesc("aggregator_unavailable_apiservice",
			"[ALPHA] Gauge of APIServices which are marked as unavailable broken down by APIService name.",
			[]string{"name"}, nil),
		state: map[string]bool{},
	}
}

func (c *unavailableCollector) set(name string, unavailable bool) {
	c.mu.Lock()
	c.state[name] = unavailable
	c.mu.Unlock()
}

func (c *unavailableCollector) forget(name string) {
	c.mu.Lock()
	delete(c.state, name)
	c.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (c *unavailableCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector, in name order.
func (c *unavailableCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	names := make([]string, 0, len(c.state))
	for n := range c.state {
		names = append(names, n)
	}
	sort.Strings(names)
	vals := make([]float64, len(names))
	for i, n := range names {
		if c.state[n] {
			vals[i] = 1
		}
	}
	c.mu.Unlock()
	for i, n := range names {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, vals[i], n)
	}
}

// onProxyRequest is the proxy handlers' OnRequest hook: it counts the
// request by APIService and code, observes its duration, and classifies
// its error (see proxy.ClassifyError; the kind label is its value). A request refused with 503 because the
// APIService is not Available carries no error; it is counted as kind
// unavailable when the APIService is currently not Available.
func (s *Server) onProxyRequest(apiService string, code int, dur time.Duration, err error) {
	m := s.metrics
	if m == nil || apiService == "" {
		return
	}
	ps := m.proxySeriesFor(apiService, codeLabel(code))
	ps.total.Inc()
	ps.duration.Observe(dur.Seconds())
	kind := proxy.ClassifyError(err)
	if kind == proxy.ErrorKindNone && code == http.StatusServiceUnavailable {
		if o, ok := s.apiServices.Get("", apiService); ok && !o.(*apiregistration.APIService).IsAvailable() {
			kind = proxy.ErrorKindUnavailable
		}
	}
	if kind != proxy.ErrorKindNone {
		m.proxyErrors.WithLabelValues(apiService, string(kind)).Inc()
	}
	if proxy.IsMissingSAN(err) {
		m.missingSAN.Inc()
	}
}

// onDiscoveryRebuild is discovery.Options.OnRebuild: it counts a rebuild
// of the discovery documents and observes its duration.
func (s *Server) onDiscoveryRebuild(d time.Duration) {
	if s.nsController != nil {
		s.nsController.requeueAll() // discovery changed: a blocked namespace may go on
	}
	m := s.metrics
	if m == nil {
		return
	}
	m.rebuilds.Inc()
	m.aggregations.Inc()
	m.rebuildDuration.Observe(d.Seconds())
}

// requestMetrics is the ChainOptions.Observer: it records
// apiserver_request_total and apiserver_request_duration_seconds for every
// request, with upstream's labels computed from the chain's RequestInfo
// (verb as upstream reports it: GET, LIST, WATCH, POST, PUT, PATCH, APPLY,
// DELETE, CONNECT; scope resource, namespace, cluster or "" for
// non-resource paths; component aggregator for requests routed to a
// proxied APIService, apiserver otherwise), and keeps
// aggsim_proxy_active_watches.
type requestMetrics struct{ s *Server }

// RequestStarted counts a proxied watch as active.
func (o requestMetrics) RequestStarted(r *http.Request, ri *request.RequestInfo, proxied bool) {
	if m := o.s.metrics; m != nil && proxied && metricsVerb(r, ri) == "WATCH" {
		m.activeWatches.Inc()
	}
}

// RequestDone ends an active proxied watch and records the request,
// unless it panicked (upstream records nothing then; see RequestOutcome).
func (o requestMetrics) RequestDone(r *http.Request, ri *request.RequestInfo, proxied bool, out RequestOutcome) {
	m := o.s.metrics
	if m == nil {
		return
	}
	component := componentAPIServer
	if proxied {
		component = componentAggregator
	}
	verb := metricsVerb(r, ri)
	if proxied && verb == "WATCH" {
		m.activeWatches.Dec()
	}
	if out.Panicked {
		return
	}
	// One array serves both vectors: the duration takes the first eight
	// labels, the counter all nine (code last).
	labels := [9]string{verb, dryRunLabel(r), ri.APIGroup, ri.APIVersion, ri.Resource, ri.Subresource, metricsScope(ri), component, codeLabel(out.Code)}
	if !ri.IsResourceRequest {
		labels[2], labels[3], labels[4], labels[5] = "", "", "", nonResourceSubresource(r.URL.Path)
	}
	rs := m.requestSeriesFor(labels)
	rs.duration.Observe(out.Elapsed.Seconds())
	rs.total.Inc()
}

// codeLabels holds the code label of every status code from 100 to 599,
// so that labelling a request does not format its code.
var codeLabels = func() []string {
	out := make([]string, 500)
	for i := range out {
		out[i] = strconv.Itoa(100 + i)
	}
	return out
}()

// codeLabel returns code as the decimal string of the code label.
func codeLabel(code int) string {
	if code >= 100 && code < 600 {
		return codeLabels[code-100]
	}
	return strconv.Itoa(code)
}

// nonResourceSubresource is the subresource label upstream gives the
// discovery root (/apis is instrumented with subresource "apis").
func nonResourceSubresource(p string) string {
	if p == "/apis" || p == "/apis/" {
		return "apis"
	}
	return ""
}

// metricsVerb maps a request to the verb label upstream reports
// (CleanVerb in apiserver/pkg/endpoints/metrics/metrics.go).
func metricsVerb(r *http.Request, ri *request.RequestInfo) string {
	if !ri.IsResourceRequest {
		return strings.ToUpper(r.Method)
	}
	switch ri.Verb {
	case "list":
		return "LIST"
	case "watch":
		return "WATCH"
	case "get":
		return "GET"
	case "create":
		return "POST"
	case "update":
		return "PUT"
	case "patch":
		if r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			return "APPLY"
		}
		return "PATCH"
	case "delete", "deletecollection":
		return "DELETE"
	case "proxy":
		return "CONNECT"
	}
	return strings.ToUpper(r.Method)
}

// metricsScope is upstream's CleanScope.
func metricsScope(ri *request.RequestInfo) string {
	switch {
	case ri.Name != "" || ri.Verb == "create":
		return "resource"
	case ri.Namespace != "":
		return "namespace"
	case ri.IsResourceRequest:
		return "cluster"
	}
	return ""
}

// dryRunLabel is the sorted, de-duplicated dryRun query values joined by
// ",", as upstream's cleanDryRun.
func dryRunLabel(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "dryRun") {
		return "" // spare parsing the query of (nearly) every request
	}
	vals := r.URL.Query()["dryRun"]
	if len(vals) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

var (
	_ prometheus.Collector = (*unavailableCollector)(nil)
	_ RequestObserver      = requestMetrics{}
)

// installProfiling registers net/http/pprof's handlers on m as
// kube-apiserver 1.33's --profiling does (k8s.io/apiserver
// pkg/server/routes/profiling.go): `/debug/pprof` redirects with 302 Found
// to `/debug/pprof/`, which serves the index and the named profiles
// (heap, goroutine, allocs, ...); profile, symbol and trace have their own
// handlers. cmdline is deliberately not served (upstream dropped it so that
// the process's flags are not exposed): `/debug/pprof/cmdline` reaches the
// index handler, which answers 404 "Unknown profile". None of these paths is
// listed in `/`.
func installProfiling(m *Mux) {
	m.UnlistedHandle("/debug/pprof", http.RedirectHandler("/debug/pprof/", http.StatusFound))
	m.UnlistedHandlePrefix("/debug/pprof/", http.HandlerFunc(pprof.Index))
	m.UnlistedHandle("/debug/pprof/profile", http.HandlerFunc(pprof.Profile))
	m.UnlistedHandle("/debug/pprof/symbol", http.HandlerFunc(pprof.Symbol))
	m.UnlistedHandle("/debug/pprof/trace", http.HandlerFunc(pprof.Trace))
}

// installMetricsAndDebugRoutes registers /metrics (the Prometheus text
// format of the Server's gatherer) and the APIService explanations under
// DebugAPIServicesPath.
func (s *Server) installMetricsAndDebugRoutes() {
	s.mux.Handle("/metrics", s.metrics.handler())
	if s.opts.Profiling {
		installProfiling(s.mux)
	}
	installIndex(s.mux) // index.go
	s.mux.UnlistedHandle(DebugAPIServicesPath, http.HandlerFunc(s.serveDebugAPIServices))
	s.mux.UnlistedHandlePrefix(DebugAPIServicesPath+"/", http.HandlerFunc(s.serveDebugAPIServices))
	s.mux.UnlistedHandlePrefix(DebugNamespacesPath+"/", http.HandlerFunc(s.serveDebugNamespaces))   // explain_namespace.go
	s.mux.UnlistedHandle(DebugAccessPath, http.HandlerFunc(s.serveDebugAccess))                     // explain_access.go
	s.mux.UnlistedHandle(DebugGarbageCollectorPath, http.HandlerFunc(s.serveDebugGarbageCollector)) // explain_gc.go
	s.mux.UnlistedHandle(admission.DebugWebhooksPath, s.admission.Ring())                           // admission_webhooks.go
	s.installWebhookExplainRoutes()                                                                 // explain_webhook_routes.go
	s.mux.UnlistedHandle(DebugConversionsPath, http.HandlerFunc(s.serveDebugConversions))           // crd_conversion.go
}
