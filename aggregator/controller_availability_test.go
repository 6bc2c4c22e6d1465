package aggregator

// These tests drive one aggregated APIService through every state the
// availability controller distinguishes (issue 5) and check, after each
// step, that:
//   - the stored Available condition has upstream's status, reason and
//     message verbatim (testdata/kube-1.33/b-status), and its
//     lastTransitionTime moves only when the status flips;
//   - aggregator_unavailable_apiservice and
//     aggregator_unavailable_apiservice_total have upstream's values;
//   - the explanation matches its golden file (testdata/availability/);
//   - the proxy answers as the condition says.
// Waiting is a bounded poll that fails with the last state seen; no sleep
// is an assertion.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

var updateAvailabilityGolden = flag.Bool("update-availability", false, "rewrite testdata/availability golden files")

const (
	avGroup   = "wardle.example.com"
	avName    = "v1." + avGroup
	avNS      = "wardle"
	avSvc     = "api"
	avTimeout = 15 * time.Second
)

// avClock is a settable clock for the Server (creation and transition
// times).
type avClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *avClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *avClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// avEnv is a running Server whose periodic probe is driven by tick.
type avEnv struct {
	s     *Server
	clock *avClock
	tick  chan time.Time
	ctx   context.Context
}

func avStart(t *testing.T, realTicker bool) *avEnv {
	t.Helper()
	clk := &avClock{t: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)}
	// The garbage collector's discovery reads would add to the request
	// counts TestMetricsPromlint asserts.
	opts := Options{Storage: storage.NewMemory(), Anonymous: true, Clock: clk.Now, Controllers: []string{"*", "-garbagecollector"}}
	if realTicker {
		opts.Clock = nil
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e := &avEnv{s: s, clock: clk, tick: make(chan time.Time)}
	if !realTicker {
		s.availability.newTicker = func(time.Duration) (<-chan time.Time, func()) { return e.tick, func() {} }
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.ctx = ctx
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.Ready():
	case <-time.After(avTimeout):
		t.Fatal("server not ready")
	}
	e.create(t, meta.GroupResource{Resource: "namespaces"}, &core.Namespace{
		TypeMeta: meta.TypeMeta{Kind: "Namespace", APIVersion: "v1"}, ObjectMeta: meta.ObjectMeta{Name: avNS}})
	return e
}

func (e *avEnv) store(gr meta.GroupResource) *registry.Store { return e.s.API().Store(gr) }

func (e *avEnv) create(t *testing.T, gr meta.GroupResource, obj meta.Object) {
	t.Helper()
	if _, err := e.store(gr).Create(e.ctx, obj); err != nil {
		t.Fatalf("create %s: %v", gr.Resource, err)
	}
}

var (
	grServices  = meta.GroupResource{Resource: "services"}
	grEndpoints = meta.GroupResource{Resource: "endpoints"}
)

func avService(port int32) *core.Service {
	return &core.Service{
		TypeMeta:   meta.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: avSvc, Namespace: avNS},
		Spec: core.ServiceSpec{Ports: []core.ServicePort{
			{Name: "https", Protocol: "TCP", Port: port, TargetPort: core.FromInt(8443)},
		}},
	}
}

func avEndpoints(port int32, withAddress bool) *core.Endpoints {
	ss := core.EndpointSubset{Ports: []core.EndpointPort{{Name: "https", Port: port, Protocol: "TCP"}}}
	if withAddress {
		ss.Addresses = []core.EndpointAddress{{IP: "127.0.0.1"}}
	} else {
		ss.NotReadyAddresses = []core.EndpointAddress{{IP: "127.0.0.1"}}
	}
	return &core.Endpoints{
		TypeMeta:   meta.TypeMeta{Kind: "Endpoints", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{Name: avSvc, Namespace: avNS},
		Subsets:    []core.EndpointSubset{ss},
	}
}

// put creates obj or replaces the stored one.
func (e *avEnv) put(t *testing.T, gr meta.GroupResource, obj meta.Object) {
	t.Helper()
	m := obj.GetObjectMeta()
	old, err := e.store(gr).Get(e.ctx, m.Namespace, m.Name)
	if err != nil {
		e.create(t, gr, obj)
		return
	}
	m.ResourceVersion = old.GetObjectMeta().ResourceVersion
	if _, err := e.store(gr).Update(e.ctx, obj); err != nil {
		t.Fatalf("update %s: %v", gr.Resource, err)
	}
}

func avAPIService(caBundle []byte) *apiregistration.APIService {
	port := int32(443)
	return &apiregistration.APIService{
		TypeMeta:   meta.TypeMeta{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: avName},
		Spec: apiregistration.APIServiceSpec{
			Group: avGroup, Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 15,
			Service:  &apiregistration.ServiceReference{Namespace: avNS, Name: avSvc, Port: &port},
			CABundle: caBundle,
		},
	}
}

func (e *avEnv) getAPIService(t *testing.T, name string) *apiregistration.APIService {
	t.Helper()
	o, err := e.store(apiServicesResource).Get(e.ctx, "", name)
	if err != nil {
		t.Fatalf("get apiservice %s: %v", name, err)
	}
	return o.(*apiregistration.APIService)
}

// waitCondition ticks the periodic probe until the stored Available
// condition of name has want's status, reason and message, and returns it.
func (e *avEnv) waitCondition(t *testing.T, name string, want apiregistration.APIServiceCondition) apiregistration.APIServiceCondition {
	t.Helper()
	deadline := time.Now().Add(avTimeout)
	var last *apiregistration.APIServiceCondition
	for time.Now().Before(deadline) {
		last = e.getAPIService(t, name).GetCondition(apiregistration.Available)
		if last != nil && last.Status == want.Status && last.Reason == want.Reason && last.Message == want.Message {
			return *last
		}
		select {
		case e.tick <- time.Now():
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s: condition never became\n  %s/%s %q\nlast:\n  %+v", name, want.Status, want.Reason, want.Message, last)
	return apiregistration.APIServiceCondition{}
}

// avBackend is a TLS backend for api.wardle.svc on 127.0.0.1 whose
// discovery answer can be switched.
type avBackend struct {
	srv  *httptest.Server
	code atomic.Int32 // status of GET /apis/<g>/v1; 0 means 200
	port int32
}

func newAVBackend(t *testing.T, ca *certs.CA, certService string) *avBackend {
	t.Helper()
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: certService, Namespace: avNS, CA: ca})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := bc.Serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	b := &avBackend{}
	b.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code := b.code.Load(); code != 0 && r.URL.Path == "/apis/"+avGroup+"/v1" {
			http.Error(w, "switched off", int(code))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"%s/v1","resources":[{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"]}]}`, avGroup)
	}))
	b.srv.EnableHTTP2 = true
	b.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	b.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	b.srv.StartTLS()
	_, p, _ := net.SplitHostPort(b.srv.Listener.Addr().String())
	fmt.Sscan(p, &b.port)
	t.Cleanup(b.kill)
	return b
}

func (b *avBackend) kill() {
	b.srv.CloseClientConnections()
	b.srv.Close()
}

// refusedPort returns a loopback port nothing listens on.
func refusedPort(t *testing.T) int32 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, p, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	var n int32
	fmt.Sscan(p, &n)
	return n
}

// gaugeValue returns aggregator_unavailable_apiservice{name}, or -1 when
// the series is absent.
func gaugeValue(t *testing.T, s *Server, name string) float64 {
	t.Helper()
	mfs, err := s.metrics.gatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "aggregator_unavailable_apiservice" {
			continue
		}
		for _, m := range mf.Metric {
			if labelValue(m, "name") == name {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}

func labelValue(m *dto.Metric, label string) string {
	for _, l := range m.Label {
		if l.GetName() == label {
			return l.GetValue()
		}
	}
	return ""
}

// counterText is the exposition of aggregator_unavailable_apiservice_total.
func counterText(t *testing.T, s *Server) string {
	t.Helper()
	rec := httptest.NewRecorder()
	s.metrics.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var out []string
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(l, "aggregator_unavailable_apiservice_total{") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

var (
	normPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	normTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
)

func normalizeExplain(s string) string {
	return normTime.ReplaceAllString(normPort.ReplaceAllString(s, "127.0.0.1:PORT"), "TIME")
}

// checkExplainGolden compares the text explanation of name with
// testdata/availability/<golden>.txt.
func (e *avEnv) checkExplainGolden(t *testing.T, name, golden string) *Explanation {
	t.Helper()
	ex, err := e.s.ExplainAPIService(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ex.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	got := normalizeExplain(b.String())
	path := filepath.Join("..", "testdata", "availability", golden+".txt")
	if *updateAvailabilityGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-availability to create it)", err)
	}
	if got != string(want) {
		t.Errorf("explain %s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
	return ex
}

// proxyGet sends GET path through the full handler chain.
func (e *avEnv) proxyGet(path string) (int, string) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = "127.0.0.1:40000"
	e.s.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// waitProxy polls GET path until it answers code and body.
func (e *avEnv) waitProxy(t *testing.T, path string, code int, body string) {
	t.Helper()
	deadline := time.Now().Add(avTimeout)
	var gc int
	var gb string
	for time.Now().Before(deadline) {
		if gc, gb = e.proxyGet(path); gc == code && gb == body {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("GET %s: got %d %q, want %d %q", path, gc, gb, code, body)
}

func cond(status apiregistration.ConditionStatus, reason, msg string) apiregistration.APIServiceCondition {
	return apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: status, Reason: reason, Message: msg}
}

func TestAvailabilityStates(t *testing.T) {
	e := avStart(t, false)
	s := e.s
	ca, err := certs.NewCA(certs.BackendCACommonName, certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wrongCA, err := certs.NewCA("wrong-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	backend := newAVBackend(t, ca, avSvc)
	refused := refusedPort(t)
	probeURL := func(port int32) string {
		return fmt.Sprintf("https://127.0.0.1:%d/apis/%s/v1", port, avGroup)
	}
	const flunders = "/apis/" + avGroup + "/v1/namespaces/wardle/flunders"

	// Local APIServices are Available with reason Local, gauge 0.
	e.waitCondition(t, "v1.", cond(apiregistration.ConditionTrue, apiregistration.ReasonLocal, apiregistration.MessageLocal))
	// The strategy writes the Local condition at create; the gauge comes
	// with the controller's first sync, which may still be under way.
	for deadline := time.Now().Add(avTimeout); gaugeValue(t, s, "v1.") != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := gaugeValue(t, s, "v1."); got != 0 {
		t.Errorf("gauge v1. = %v, want 0", got)
	}

	type step struct {
		name     string
		do       func()
		want     apiregistration.APIServiceCondition
		flipped  bool   // status differs from the previous step
		counter  string // exposition of the _total counter after the step
		golden   string
		proxy    int // expected proxy code (0: not checked)
		proxyMsg string
	}
	svcMissing := `service/api in "wardle" is not present`
	steps := []step{
		{name: "no Service", do: func() { e.create(t, apiServicesResource, avAPIService(wrongCA.CertPEM)) },
			want: cond(apiregistration.ConditionFalse, apiregistration.ReasonServiceNotFound, svcMissing), flipped: true,
			golden: "svcmissing", proxy: 503, proxyMsg: "service unavailable\n"},
		{name: "wrong port", do: func() { e.put(t, grServices, avService(8443)) },
			want:   cond(apiregistration.ConditionFalse, apiregistration.ReasonServicePortError, `service/api in "wardle" is not listening on port 443`),
			golden: "portmismatch"},
		{name: "no endpoints", do: func() { e.put(t, grServices, avService(443)) },
			want:   cond(apiregistration.ConditionFalse, apiregistration.ReasonEndpointsNotFound, `cannot find endpoints for service/api in "wardle"`),
			golden: "noendpoints"},
		{name: "empty endpoints", do: func() { e.put(t, grEndpoints, avEndpoints(backend.port, false)) },
			want:   cond(apiregistration.ConditionFalse, apiregistration.ReasonMissingEndpoints, `endpoints for service/api in "wardle" have no addresses with port name "https"`),
			golden: "emptyendpoints"},
		{name: "connection refused", do: func() { e.put(t, grEndpoints, avEndpoints(refused, true)) },
			want: cond(apiregistration.ConditionFalse, apiregistration.ReasonFailedDiscoveryCheck, fmt.Sprintf(
				`failing or missing response from %s: Get "%s": dial tcp 127.0.0.1:%d: connect: connection refused`, probeURL(refused), probeURL(refused), refused)),
			golden: "refused"},
		{name: "TLS mismatch (wrong caBundle)", do: func() { e.put(t, grEndpoints, avEndpoints(backend.port, true)) },
			want: cond(apiregistration.ConditionTrue, apiregistration.ReasonPassed, apiregistration.MessagePassed), flipped: true, golden: "wrongca",
			proxy: 503, proxyMsg: "error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority\n"},
		{name: "discovery 500", do: func() { backend.code.Store(500) },
			want: cond(apiregistration.ConditionFalse, apiregistration.ReasonFailedDiscoveryCheck, fmt.Sprintf(
				`failing or missing response from %s: bad status from %s: 500`, probeURL(backend.port), probeURL(backend.port))),
			flipped: true, counter: `aggregator_unavailable_apiservice_total{name="v1.wardle.example.com",reason="FailedDiscoveryCheck"} 1`,
			golden: "discovery500", proxy: 503, proxyMsg: "service unavailable\n"},
		{name: "healthy again", do: func() { backend.code.Store(0) },
			want: cond(apiregistration.ConditionTrue, apiregistration.ReasonPassed, apiregistration.MessagePassed), flipped: true,
			counter: `aggregator_unavailable_apiservice_total{name="v1.wardle.example.com",reason="FailedDiscoveryCheck"} 1`},
		{name: "discovery 404", do: func() { backend.code.Store(404) },
			want: cond(apiregistration.ConditionFalse, apiregistration.ReasonFailedDiscoveryCheck, fmt.Sprintf(
				`failing or missing response from %s: bad status from %s: 404`, probeURL(backend.port), probeURL(backend.port))),
			flipped: true, counter: `aggregator_unavailable_apiservice_total{name="v1.wardle.example.com",reason="FailedDiscoveryCheck"} 2`,
			golden: "discovery404"},
		{name: "healthy with the right caBundle", do: func() {
			backend.code.Store(0)
			// the availability controller may write the status between
			// the read and the update (the backend just turned healthy):
			// a conflict is read again, as a client would
			for attempt := 0; ; attempt++ {
				a := e.getAPIService(t, avName)
				a.Spec.CABundle = ca.CertPEM
				_, err := e.store(apiServicesResource).Update(e.ctx, a)
				if err == nil {
					break
				}
				if !errors.Is(err, meta.ErrConflict) || attempt == 10 {
					t.Fatal(err)
				}
			}
		},
			want: cond(apiregistration.ConditionTrue, apiregistration.ReasonPassed, apiregistration.MessagePassed), flipped: true,
			counter: `aggregator_unavailable_apiservice_total{name="v1.wardle.example.com",reason="FailedDiscoveryCheck"} 2`,
			golden:  "healthy", proxy: 200},
		{name: "killed", do: backend.kill,
			want: cond(apiregistration.ConditionFalse, apiregistration.ReasonFailedDiscoveryCheck, fmt.Sprintf(
				`failing or missing response from %s: Get "%s": dial tcp 127.0.0.1:%d: connect: connection refused`, probeURL(backend.port), probeURL(backend.port), backend.port)),
			flipped: true, counter: `aggregator_unavailable_apiservice_total{name="v1.wardle.example.com",reason="FailedDiscoveryCheck"} 3`,
			golden: "killed", proxy: 503, proxyMsg: "service unavailable\n"},
	}

	var lastTransition meta.Time
	for i, st := range steps {
		now := e.clock.Advance(time.Minute)
		st.do()
		got := e.waitCondition(t, avName, st.want)
		switch {
		case st.flipped && !got.LastTransitionTime.Equal(now):
			t.Errorf("step %d %s: lastTransitionTime %v, want %v (status flipped)", i, st.name, got.LastTransitionTime, now)
		case !st.flipped && !got.LastTransitionTime.Equal(lastTransition.Time):
			t.Errorf("step %d %s: lastTransitionTime %v, want unchanged %v", i, st.name, got.LastTransitionTime, lastTransition)
		}
		lastTransition = got.LastTransitionTime
		wantGauge := 1.0
		if st.want.Status == apiregistration.ConditionTrue {
			wantGauge = 0
		}
		if g := gaugeValue(t, s, avName); g != wantGauge {
			t.Errorf("step %d %s: aggregator_unavailable_apiservice = %v, want %v", i, st.name, g, wantGauge)
		}
		if c := counterText(t, s); c != st.counter {
			t.Errorf("step %d %s: counter\n%s\nwant\n%s", i, st.name, c, st.counter)
		}
		if st.golden != "" {
			ex := e.checkExplainGolden(t, avName, st.golden)
			if st.golden == "wrongca" && !ex.ProxyWillFail {
				t.Errorf("wrongca: ProxyWillFail false")
			}
		}
		switch {
		case st.proxy == 200:
			e.waitProxy(t, flunders, 200, fmt.Sprintf(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"%s/v1","resources":[{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"]}]}`, avGroup))
		case st.proxy != 0:
			e.waitProxy(t, flunders, st.proxy, st.proxyMsg)
		}
	}

	// The proxy metrics saw the refusals and the TLS failure.
	for _, kind := range []string{string(proxy.ErrorKindUnavailable), string(proxy.ErrorKindTLS)} {
		if v := counterValue(t, s, "aggsim_proxy_backend_errors_total", map[string]string{"apiservice": avName, "kind": kind}); v < 1 {
			t.Errorf("aggsim_proxy_backend_errors_total{kind=%q} = %v, want >= 1", kind, v)
		}
	}
	if v := counterValue(t, s, "aggsim_proxy_requests_total", map[string]string{"apiservice": avName, "code": "200"}); v < 1 {
		t.Errorf("aggsim_proxy_requests_total{code=200} = %v, want >= 1", v)
	}

	// Deleting the APIService removes its gauge series; the counter stays.
	if _, err := e.store(apiServicesResource).Delete(e.ctx, "", avName, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(avTimeout)
	for gaugeValue(t, s, avName) != -1 {
		if time.Now().After(deadline) {
			t.Fatalf("gauge series of %s still present after delete", avName)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c := counterText(t, s); c != `aggregator_unavailable_apiservice_total{name="v1.wardle.example.com",reason="FailedDiscoveryCheck"} 3` {
		t.Errorf("counter after delete: %s", c)
	}
}

// counterValue returns the value of the counter series of name whose
// labels include want, or -1.
func counterValue(t *testing.T, s *Server, name string, want map[string]string) float64 {
	t.Helper()
	mfs, err := s.metrics.gatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.Metric {
			for k, v := range want {
				if labelValue(m, k) != v {
					continue next
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return -1
}

// TestDebugAPIServicesEndpoint checks the HTTP face of explain: the list,
// one explanation as text and as JSON, and a 404 Status for an unknown
// name.
func TestDebugAPIServicesEndpoint(t *testing.T) {
	e := avStart(t, false)
	wrongCA, err := certs.NewCA("wrong-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.create(t, apiServicesResource, avAPIService(wrongCA.CertPEM))
	e.waitCondition(t, avName, cond(apiregistration.ConditionFalse, apiregistration.ReasonServiceNotFound, `service/api in "wardle" is not present`))
	e.waitCondition(t, "v1.", cond(apiregistration.ConditionTrue, apiregistration.ReasonLocal, apiregistration.MessageLocal))

	code, body := e.proxyGet(DebugAPIServicesPath)
	if code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	// Columns are aligned with spaces; compare the fields of the header,
	// the first row (v1., sorted first) and our APIService's row.
	wantLines := []string{
		"NAME SERVICE AVAILABLE REASON MESSAGE",
		"v1. Local True Local Local APIServices are always available",
		`v1.wardle.example.com wardle/api False ServiceNotFound service/api in "wardle" is not present`,
	}
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	got := []string{strings.Join(strings.Fields(lines[0]), " "), strings.Join(strings.Fields(lines[1]), " ")}
	for _, l := range lines {
		if strings.HasPrefix(l, avName+" ") {
			got = append(got, strings.Join(strings.Fields(l), " "))
		}
	}
	if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("list:\n%s\nwant lines:\n%s", body, strings.Join(wantLines, "\n"))
	}

	code, body = e.proxyGet(DebugAPIServicesPath + "/" + avName)
	want, _ := os.ReadFile(filepath.Join("..", "testdata", "availability", "svcmissing.txt"))
	if code != 200 || normalizeExplain(body) != string(want) {
		t.Errorf("text explain: %d\n%s\nwant\n%s", code, body, want)
	}

	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", DebugAPIServicesPath+"/"+avName, nil)
	req.Header.Set("Accept", "application/json")
	e.s.Handler().ServeHTTP(rec, req)
	var ex Explanation
	if err := json.Unmarshal(rec.Body.Bytes(), &ex); err != nil {
		t.Fatalf("json explain: %v\n%s", err, rec.Body)
	}
	if rec.Header().Get("Content-Type") != "application/json" || ex.Verdict.Reason != apiregistration.ReasonServiceNotFound ||
		len(ex.Checks) != 1 || ex.Checks[0] != (ExplainCheck{Name: "service", Result: checkFailed, Detail: `service/api in "wardle" is not present`}) ||
		!ex.ProxyWillFail || ex.Service != "wardle/api:443" {
		t.Errorf("json explain: %s", rec.Body)
	}

	code, body = e.proxyGet(DebugAPIServicesPath + "/v1.nosuch.example.com")
	if wantBody := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiservices.apiregistration.k8s.io \"v1.nosuch.example.com\" not found","reason":"NotFound","details":{"name":"v1.nosuch.example.com","group":"apiregistration.k8s.io","kind":"apiservices"},"code":404}` + "\n"; code != 404 || body != wantBody {
		t.Errorf("unknown: %d %s\nwant %s", code, body, wantBody)
	}
}

// TestAvailabilityKillDetectionTime measures, with the default 1 s
// interval and the real ticker, how long a killed backend takes to show
// Available=False. It asserts only the bounded wait; the time is logged
// (go test -run KillDetection -v).
func TestAvailabilityKillDetectionTime(t *testing.T) {
	e := avStart(t, true)
	ca, err := certs.NewCA(certs.BackendCACommonName, certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := newAVBackend(t, ca, avSvc)
	e.put(t, grServices, avService(443))
	e.put(t, grEndpoints, avEndpoints(b.port, true))
	e.create(t, apiServicesResource, avAPIService(ca.CertPEM))
	for run := 1; run <= 3; run++ {
		e.waitCondition(t, avName, cond(apiregistration.ConditionTrue, apiregistration.ReasonPassed, apiregistration.MessagePassed))
		start := time.Now()
		b.kill()
		deadline := start.Add(avTimeout)
		for {
			c := e.getAPIService(t, avName).GetCondition(apiregistration.Available)
			if c.Status == apiregistration.ConditionFalse {
				t.Logf("run %d: backend killed -> Available=False after %v (interval %v; upstream 5-30 s)", run, time.Since(start).Round(time.Millisecond), DefaultAvailabilityCheckInterval)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %+v after %v", c, avTimeout)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if run < 3 {
			b = newAVBackend(t, ca, avSvc)
			e.put(t, grEndpoints, avEndpoints(b.port, true))
		}
	}
}

// TestExplainWrongServerName: a serving certificate for another Service
// passes the probe (upstream does not verify) but not the proxy; explain
// names the SANs and the expected name.
func TestExplainWrongServerName(t *testing.T) {
	e := avStart(t, false)
	ca, err := certs.NewCA(certs.BackendCACommonName, certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := newAVBackend(t, ca, "other")
	e.put(t, grServices, avService(443))
	e.put(t, grEndpoints, avEndpoints(b.port, true))
	e.create(t, apiServicesResource, avAPIService(ca.CertPEM))
	e.waitCondition(t, avName, cond(apiregistration.ConditionTrue, apiregistration.ReasonPassed, apiregistration.MessagePassed))
	ex := e.checkExplainGolden(t, avName, "wrongname")
	if !ex.ProxyWillFail {
		t.Error("ProxyWillFail false")
	}
	e.waitProxy(t, "/apis/"+avGroup+"/v1", 503, "error trying to reach service: tls: failed to verify certificate: x509: certificate is valid for other.wardle.svc, other.wardle.svc.cluster.local, localhost, not api.wardle.svc\n")
}
