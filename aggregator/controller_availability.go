package aggregator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Probe settings of upstream's remote available controller
// (kube-aggregator/pkg/controllers/status/remote/remote_available_controller.go).
const (
	// probeAttempts is how many parallel discovery GETs one check sends;
	// any one answering 2xx passes.
	probeAttempts = 5
	// probeTimeout is the http.Client timeout of each attempt.
	probeTimeout = 5 * time.Second
	// probeGuard is the outer timer of each attempt.
	probeGuard = 6 * time.Second
	// availabilityWorkers is how many APIServices are checked at once.
	availabilityWorkers = 5
	// probeUser and probeGroup are the identity the probe asserts through
	// the front-proxy headers.
	probeUser  = "system:kube-aggregator"
	probeGroup = "system:masters"
)

// The results of one availability check step.
const (
	checkOK      = "ok"
	checkFailed  = "failed"
	checkSkipped = "skipped"
)

// verdict is what checkAPIService found: the condition to write (without
// lastTransitionTime) and the steps that led to it.
type verdict struct {
	condition apiregistration.APIServiceCondition
	checks    []ExplainCheck
	// url is the probed discovery URL ("" when the checks stopped earlier).
	url string
	// err is the error of the failing step, nil when all passed.
	err error
	// service is the Service spec.service names, nil if missing or local.
	service *core.Service
	// portName is the name of the matched Service port.
	portName string
}

// failed records err as the failing step of v and the message of its
// Available False condition with reason.
func failed(v *verdict, step, reason string, err error) verdict {
	msg := err.Error()
	v.checks = append(v.checks, ExplainCheck{Name: step, Result: checkFailed, Detail: msg})
	v.condition = apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionFalse, Reason: reason, Message: msg}
	v.err = err
	return *v
}

// discoveryProber checks APIServices as upstream's available condition
// controllers do: it reads Services and Endpoints, resolves the backend
// and probes its discovery endpoint. It writes nothing.
type discoveryProber struct {
	services, endpoints objectGetter
	resolver            proxy.ServiceResolver
	// transport is the probe's round tripper (no serving certificate
	// verification, as upstream).
	transport func() http.RoundTripper
}

// objectGetter reads one object of an informer's cache.
type objectGetter interface {
	Get(namespace, name string) (meta.Object, bool)
}

// check runs upstream's checks on a, in upstream's order; the
// first failure decides. Local APIServices are Available with reason
// Local. For remote ones: the Service exists; for a ClusterIP Service
// (type "" too) its port spec.service.port exists, its Endpoints exist and
// some subset has a ready address and a port named like the Service port
// (NodePort, LoadBalancer and ExternalName skip these, as upstream); then
// `attempts` parallel GETs of /apis/<group>/<version> (/api/<version> for
// "v1.") through the probe transport must see one 2xx.
func (s *discoveryProber) check(ctx context.Context, a *apiregistration.APIService, attempts int) verdict {
	v := verdict{}
	if a.Spec.Service == nil {
		v.checks = []ExplainCheck{{Name: "local", Result: checkOK, Detail: "no spec.service: served by aggsim itself"}}
		v.condition = apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionTrue, Reason: apiregistration.ReasonLocal, Message: apiregistration.MessageLocal}
		return v
	}
	ref := a.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	obj, ok := s.services.Get(ref.Namespace, ref.Name)
	if !ok {
		return failed(&v, "service", apiregistration.ReasonServiceNotFound, &proxy.ServiceNotFoundError{Namespace: ref.Namespace, Name: ref.Name})
	}
	svc := obj.(*core.Service)
	v.service = svc
	typ := svc.Spec.Type
	if typ == "" {
		typ = string(proxy.ServiceTypeClusterIP)
	}
	v.checks = append(v.checks, ExplainCheck{Name: "service", Result: checkOK, Detail: "service/" + ref.Name + " in \"" + ref.Namespace + "\" exists (type " + typ + ")"})
	if typ == string(proxy.ServiceTypeClusterIP) {
		found := false
		for _, p := range svc.Spec.Ports {
			if p.Port == port {
				found, v.portName = true, p.Name
				break
			}
		}
		if !found {
			return failed(&v, "port", apiregistration.ReasonServicePortError, &proxy.ServicePortError{Namespace: ref.Namespace, Name: ref.Name, Port: port})
		}
		v.checks = append(v.checks, ExplainCheck{Name: "port", Result: checkOK, Detail: portDetail(port, v.portName)})
		eobj, ok := s.endpoints.Get(ref.Namespace, ref.Name)
		if !ok {
			return failed(&v, "endpoints", apiregistration.ReasonEndpointsNotFound, &proxy.EndpointsNotFoundError{Namespace: ref.Namespace, Name: ref.Name})
		}
		v.checks = append(v.checks, ExplainCheck{Name: "endpoints", Result: checkOK, Detail: "endpoints/" + ref.Name + " in \"" + ref.Namespace + "\" exist"})
		if !hasReadyAddress(eobj.(*core.Endpoints), v.portName) {
			return failed(&v, "addresses", apiregistration.ReasonMissingEndpoints, &proxy.MissingEndpointsError{Namespace: ref.Namespace, Name: ref.Name, PortName: v.portName})
		}
		v.checks = append(v.checks, ExplainCheck{Name: "addresses", Result: checkOK, Detail: "a ready address has port name \"" + v.portName + "\""})
	} else {
		for _, step := range []string{"port", "endpoints", "addresses"} {
			v.checks = append(v.checks, ExplainCheck{Name: step, Result: checkSkipped, Detail: "not checked for type " + typ})
		}
	}

	u, err := s.probeDiscovery(ctx, a, port, attempts)
	v.url = u
	if err != nil {
		return failed(&v, "discovery", apiregistration.ReasonFailedDiscoveryCheck, err)
	}
	v.checks = append(v.checks, ExplainCheck{Name: "discovery", Result: checkOK, Detail: "GET " + u + " answered 2xx"})
	v.condition = apiregistration.APIServiceCondition{Type: apiregistration.Available, Status: apiregistration.ConditionTrue, Reason: apiregistration.ReasonPassed, Message: apiregistration.MessagePassed}
	return v
}

func portDetail(port int32, name string) string {
	if name == "" {
		return fmt.Sprintf("service port %d (unnamed)", port)
	}
	return fmt.Sprintf("service port %d (name %q)", port, name)
}

// hasReadyAddress reports whether some subset of ep has a ready address
// and a port named portName (upstream's MissingEndpoints test).
func hasReadyAddress(ep *core.Endpoints, portName string) bool {
	for _, ss := range ep.Subsets {
		if len(ss.Addresses) == 0 {
			continue
		}
		for _, p := range ss.Ports {
			if p.Name == portName {
				return true
			}
		}
	}
	return false
}

// discoveryPath is the path the probe GETs for a.
func discoveryPath(a *apiregistration.APIService) string {
	if a.Name == "v1." || a.Spec.Group == "" {
		return "/api/" + a.Spec.Version
	}
	return "/apis/" + a.Spec.Group + "/" + a.Spec.Version
}

// probeDiscovery checks a's discovery path as upstream's probe does:
// `attempts` GETs, each to a freshly resolved endpoint, pass if any one
// answers 2xx; otherwise the error is the last one collected: the
// resolver's error, `failing or missing response from <url>: <err>` (err
// is Go's `Get "<url>": ...` or `bad status from <url>: <code>`), or
// `timed out waiting for <url>`. Upstream sends all attempts at once;
// aggsim, which probes every second instead of every 30 s, sends one and
// the other attempts-1 in parallel only when it fails, so a healthy
// backend sees one probe per interval and the verdict is the same. It
// returns the URL of the attempt whose result decided.
func (s *discoveryProber) probeDiscovery(ctx context.Context, a *apiregistration.APIService, port int32, attempts int) (string, error) {
	client := &http.Client{
		Transport:     s.transport(),
		Timeout:       probeTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	u, err := s.probeAttempt(ctx, client, a, port)
	if err == nil || attempts <= 1 || ctx.Err() != nil {
		return u, err
	}
	type result struct {
		url string
		err error
	}
	results := make(chan result, attempts-1)
	for range attempts - 1 {
		go func() {
			u, err := s.probeAttempt(ctx, client, a, port)
			results <- result{u, err}
		}()
	}
	last := result{u, err}
	for range attempts - 1 {
		last = <-results
		if last.err == nil {
			break
		}
	}
	return last.url, last.err
}

// probeAttempt is one attempt of probeDiscovery, bounded by probeGuard.
func (s *discoveryProber) probeAttempt(ctx context.Context, client *http.Client, a *apiregistration.APIService, port int32) (string, error) {
	loc, err := s.resolver.ResolveEndpoint(a.Spec.Service.Namespace, a.Spec.Service.Name, port)
	if err != nil {
		return "", err
	}
	u := (&url.URL{Scheme: loc.Scheme, Host: loc.Host, Path: discoveryPath(a)}).String()
	errCh := make(chan error, 1)
	go func() { errCh <- probeOnce(ctx, client, u) }()
	guard := time.NewTimer(probeGuard)
	defer guard.Stop()
	select {
	case err = <-errCh:
		if err != nil {
			return u, &discoveryFailure{url: u, err: err}
		}
		return u, nil
	case <-guard.C:
		return u, &guardTimeoutError{url: u}
	}
}

// probeOnce GETs u as system:kube-aggregator and fails unless the status
// is 2xx.
func probeOnce(ctx context.Context, client *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	proxy.SetIdentityHeaders(req.Header, &authentication.UserInfo{Username: probeUser, Groups: []string{probeGroup}})
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return &badStatusError{url: u, code: resp.StatusCode}
	}
	return nil
}

// availabilityController writes the Available condition of every
// APIService, as upstream's local and remote available condition
// controllers together (kube-aggregator/pkg/controllers/status/local and
// remote). It is level-triggered: sync(name) checks the APIService as it
// is now. A name is queued when its APIService changes, when a Service or
// Endpoints object it points at changes, and for every APIService on each
// tick of Options.AvailabilityCheckInterval. A queued name is synced by one
// worker at a time; a name queued again while it is being synced is synced
// once more afterwards.
type availabilityController struct {
	apiServices apiServiceInformer
	prober      apiServiceProber
	status      apiServiceStatusWriter
	metrics     availabilityMetrics
	logger      *slog.Logger
	now         func() time.Time
	interval    time.Duration
	// newTicker returns a tick channel and its stop function; tests
	// replace it to drive the periodic probe by hand.
	newTicker func(d time.Duration) (<-chan time.Time, func())
	// attempts is the number of parallel probes per check.
	attempts int

	mu      sync.Mutex // guards queue, queued, running, closed
	cond    *sync.Cond
	queue   []string
	queued  map[string]bool
	running map[string]bool
	closed  bool
}

// apiServiceInformer lists the APIServices and tells when its cache is
// filled.
type apiServiceInformer interface {
	objectGetter
	List() []meta.Object
	Synced() <-chan struct{}
}

// apiServiceProber decides an APIService's Available condition.
type apiServiceProber interface {
	check(ctx context.Context, a *apiregistration.APIService, attempts int) verdict
}

// apiServiceStatusWriter writes APIService status (the store's /status
// subresource).
type apiServiceStatusWriter interface {
	Get(ctx context.Context, namespace, name string) (meta.Object, error)
	UpdateStatus(ctx context.Context, obj meta.Object) (meta.Object, error)
}

// availabilityMetrics are the availability series (metrics.go).
type availabilityMetrics interface {
	setUnavailable(name string, unavailable bool)
	unavailableTransition(name, reason string)
	forgetAPIService(name string)
}

// eventSource is an informer that calls handlers on changes.
type eventSource interface {
	AddHandler(func(old, cur meta.Object))
}

// availabilityConfig is what newAvailabilityController needs: the
// controller's inputs and outputs, nothing else.
type availabilityConfig struct {
	apiServices interface {
		apiServiceInformer
		eventSource
	}
	services, endpoints eventSource
	prober              apiServiceProber
	status              apiServiceStatusWriter
	metrics             availabilityMetrics
	logger              *slog.Logger
	now                 func() time.Time
	interval            time.Duration
}

func newAvailabilityController(cfg availabilityConfig) *availabilityController {
	c := &availabilityController{
		apiServices: cfg.apiServices, prober: cfg.prober, status: cfg.status, metrics: cfg.metrics,
		logger: cfg.logger, now: cfg.now,
		interval: cfg.interval,
		newTicker: func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		},
		attempts: probeAttempts,
		queued:   map[string]bool{},
		running:  map[string]bool{},
	}
	c.cond = sync.NewCond(&c.mu)
	cfg.apiServices.AddHandler(func(old, cur meta.Object) {
		o := cur
		if o == nil {
			o = old
		}
		c.enqueue(o.GetObjectMeta().Name)
	})
	onBackend := func(old, cur meta.Object) {
		o := cur
		if o == nil {
			o = old
		}
		m := o.GetObjectMeta()
		c.enqueueFor(m.Namespace, m.Name)
	}
	cfg.services.AddHandler(onBackend)
	cfg.endpoints.AddHandler(onBackend)
	return c
}

// enqueueFor queues every APIService whose spec.service is namespace/name.
func (c *availabilityController) enqueueFor(namespace, name string) {
	for _, o := range c.apiServices.List() {
		a := o.(*apiregistration.APIService)
		if a.Spec.Service != nil && a.Spec.Service.Namespace == namespace && a.Spec.Service.Name == name {
			c.enqueue(a.Name)
		}
	}
}

// enqueueAll queues every APIService.
func (c *availabilityController) enqueueAll() {
	for _, o := range c.apiServices.List() {
		c.enqueue(o.GetObjectMeta().Name)
	}
}

func (c *availabilityController) enqueue(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.queued[name] {
		return
	}
	c.queued[name] = true
	if c.running[name] {
		return // done re-queues it
	}
	c.queue = append(c.queue, name)
	c.cond.Signal()
}

// next blocks until a name is queued or the controller is closed.
func (c *availabilityController) next() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) == 0 && !c.closed {
		c.cond.Wait()
	}
	if c.closed {
		return "", false
	}
	name := c.queue[0]
	c.queue = c.queue[1:]
	delete(c.queued, name)
	c.running[name] = true
	return name, true
}

func (c *availabilityController) done(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.running, name)
	if c.queued[name] && !c.closed {
		c.queue = append(c.queue, name)
		c.cond.Signal()
	}
}

// Run checks every APIService at start, on changes and on every tick, with
// availabilityWorkers workers, until ctx ends.
func (c *availabilityController) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range availabilityWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				name, ok := c.next()
				if !ok {
					return
				}
				if err := c.sync(ctx, name); err != nil && ctx.Err() == nil {
					c.logger.Warn("availability check failed to write status", "apiservice", name, "err", err)
				}
				c.done(name)
			}
		}()
	}
	select {
	case <-c.apiServices.Synced():
		c.enqueueAll()
	case <-ctx.Done():
	}
	tick, stop := c.newTicker(c.interval)
	defer stop()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick:
			c.enqueueAll()
		}
	}
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	c.mu.Unlock()
	wg.Wait()
}

// sync checks the APIService name and writes its Available condition
// through the status subresource when the condition changed (status,
// reason or message; lastTransitionTime moves only when status flips),
// re-reading and retrying on conflict. It keeps the unavailable gauge and
// the unavailable counter (+1 when a write turns Available True into
// anything else) in step.
func (c *availabilityController) sync(ctx context.Context, name string) error {
	obj, ok := c.apiServices.Get("", name)
	if !ok {
		c.metrics.forgetAPIService(name)
		return nil
	}
	a := obj.(*apiregistration.APIService)
	v := c.prober.check(ctx, a, c.attempts)
	if ctx.Err() != nil {
		return nil // shutting down: a cancelled probe says nothing
	}
	cond := v.condition
	cond.LastTransitionTime = meta.NewTime(c.now())
	c.metrics.setUnavailable(name, cond.Status != apiregistration.ConditionTrue)

	if a.HasCondition(cond) {
		return nil // nothing to write: no copy of the object (issue 21's idle heap)
	}
	store := c.status
	for attempt := 0; ; attempt++ {
		cp := a.DeepCopy()
		prev := cp.GetCondition(apiregistration.Available)
		wasAvailable := cp.IsAvailable()
		if !cp.SetCondition(cond) {
			return nil
		}
		_, err := store.UpdateStatus(ctx, cp)
		if err == nil {
			if wasAvailable && cond.Status != apiregistration.ConditionTrue {
				c.metrics.unavailableTransition(name, cond.Reason)
			}
			if prev == nil || prev.Status != cond.Status {
				c.logger.Info("APIService availability changed", "apiservice", name,
					"available", string(cond.Status), "reason", cond.Reason, "message", cond.Message)
			}
			return nil
		}
		switch {
		case errors.Is(err, meta.ErrNotFound):
			c.metrics.forgetAPIService(name)
			return nil
		case errors.Is(err, meta.ErrConflict):
			if attempt >= 5 {
				return err
			}
			fresh, gerr := store.Get(ctx, "", name)
			if gerr != nil {
				if errors.Is(gerr, meta.ErrNotFound) {
					c.metrics.forgetAPIService(name)
					return nil
				}
				return gerr
			}
			a = fresh.(*apiregistration.APIService)
		default:
			return err
		}
	}
}

// discoveryFailure is the probe error of one attempt that got an error or
// a bad status: `failing or missing response from <url>: <err>`.
type discoveryFailure struct {
	url string
	err error
}

// Error returns `failing or missing response from <url>: <err>`.
func (e *discoveryFailure) Error() string {
	return fmt.Sprintf("failing or missing response from %s: %v", e.url, e.err)
}

// Unwrap returns the attempt's error.
func (e *discoveryFailure) Unwrap() error { return e.err }

// badStatusError is the probe error for a response outside 200..299:
// `bad status from <url>: <code>`.
type badStatusError struct {
	url  string
	code int
}

// Error returns `bad status from <url>: <code>`.
func (e *badStatusError) Error() string { return fmt.Sprintf("bad status from %s: %d", e.url, e.code) }

// guardTimeoutError is the probe error when an attempt has not finished
// after the 6 s guard timer: `timed out waiting for <url>`.
type guardTimeoutError struct{ url string }

// Error returns `timed out waiting for <url>`.
func (e *guardTimeoutError) Error() string { return "timed out waiting for " + e.url }
