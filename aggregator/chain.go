package aggregator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/internal/uuid4"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// ChainOptions configures BuildHandlerChain. The zero value is a chain that
// authenticates nobody (every request 401) and allows everything else.
type ChainOptions struct {
	// Authn configures authentication; see AuthnOptions.
	Authn AuthnOptions
	// Authorizer decides requests; nil means AlwaysAllow.
	Authorizer Authorizer
	// ImpersonatorGroups are the groups whose members may impersonate,
	// checked before Authorizer for the verb "impersonate"; nil means
	// [system:masters], an empty non-nil slice leaves it to Authorizer.
	ImpersonatorGroups []string
	// RequestTimeout bounds non-long-running requests (--request-timeout);
	// 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Observer, when set, is told about every request just inside the
	// request id and access log, including those refused by
	// authentication (the request metrics).
	Observer RequestObserver
	// Inspector, when set, records every request (inspector.go); nil
	// costs nothing.
	Inspector *Inspector
	// Logger receives access logs (debug), authn/authz decisions (debug)
	// and panics (error); nil means slog.Default().
	Logger *slog.Logger
}

// Router resolves a request to the handler that serves it and says
// whether that handler proxies to a remote APIService; Mux implements it.
// When the handler given to BuildHandlerChain is a Router, the chain asks
// it once per request, before the filters, and serves the handler it
// returned: the route is worked out once. A proxied request's handler
// returns promptly once its context's deadline passes and answers it with
// the timeout Status itself (the proxy, through requestTimedOut and
// writeTimeoutStatus), so the timeout step runs it on the serving
// goroutine instead of a second one.
type Router interface {
	Route(r *http.Request) (h http.Handler, proxied bool)
}

// RequestObserver watches every request the chain serves; the aggregator's
// request metrics implement it. Both methods run on the serving goroutine,
// concurrently for different requests.
type RequestObserver interface {
	// RequestStarted is called once the request has its id and RequestInfo,
	// before authentication. ri is never nil: when the path does not parse
	// (the chain then answers 500) it holds only Path and the lower-cased
	// method as Verb. proxied is the Router's answer (false without one).
	RequestStarted(r *http.Request, ri *request.RequestInfo, proxied bool)
	// RequestDone is called once per RequestStarted when the request is
	// over, also when the handler panicked.
	RequestDone(r *http.Request, ri *request.RequestInfo, proxied bool, out RequestOutcome)
}

// RequestOutcome is how a request ended, for RequestObserver.RequestDone.
type RequestOutcome struct {
	// Code is the first final status code written: 101 for a hijacked
	// connection, 200 when nothing was written, 500 when the handler
	// panicked before writing one (the client gets panic recovery's 500).
	Code int
	// Elapsed is the time since the request entered the chain.
	Elapsed time.Duration
	// Panicked is set when the handler panicked (including an aborted
	// stream). kube-apiserver records no request metrics for such a
	// request: its MonitorRequest call follows the handler without a
	// defer (apiserver/pkg/endpoints/metrics/metrics.go).
	Panicked bool
}

// BuildHandlerChain wraps h in aggsim's request filters, outermost first:
// panic recovery → request id + access log (+ Cache-Control default) →
// Observer → RequestInfo → authentication → impersonation → authorization
// → timeout for non-long-running requests → h. This is ARCHITECTURE.md's
// order; kube-apiserver's DefaultBuildHandlerChain
// (apiserver/pkg/server/config.go) has the same relative order of
// authentication, impersonation and authorization but puts the timeout
// outside authentication, so there the time spent authenticating counts
// against the deadline.
//
// Each filter is also available on its own (WithPanicRecovery,
// WithRequestLog, WithRequestInfo, WithAuthentication, WithImpersonation,
// WithAuthorization, WithTimeout) and behaves the same there. The chain
// does not nest them, though: it runs the steps one after another in one
// function, each returning before the next starts, and keeps the request's
// id, access-log record, status code and RequestInfo in one context node.
// A proxied request's goroutine then needs about 1 KiB of stack more than
// a bare httputil.ReverseProxy's instead of about 4 KiB, so growing it
// (copying the stack and adjusting every frame) costs far less: in the
// proxy benchmark the share of CPU spent growing stacks fell from 14% to
// 6%. The chain also gives the request a new context three times instead
// of four.
func BuildHandlerChain(h http.Handler, opts ChainOptions) http.Handler {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	authz := opts.Authorizer
	if authz == nil {
		authz = AlwaysAllow{}
	}
	router, _ := h.(Router)
	return &handlerChain{
		h:             h,
		router:        router,
		logger:        logger,
		observer:      opts.Observer,
		inspector:     opts.Inspector,
		authn:         newAuthenticator(opts.Authn, logger),
		impersonation: ImpersonationAuthorizer{ImpersonatorGroups: opts.ImpersonatorGroups, Delegate: authz},
		authz:         authz,
		timeout:       newTimeoutStep(opts.RequestTimeout),
	}
}

// handlerChain is the handler BuildHandlerChain returns.
type handlerChain struct {
	h             http.Handler
	router        Router // h as a Router, or nil
	logger        *slog.Logger
	observer      RequestObserver
	inspector     *Inspector
	authn         *authenticator
	impersonation Authorizer
	authz         Authorizer
	timeout       timeoutStep
}

// ServeHTTP runs the steps in BuildHandlerChain's order. Panic recovery,
// the access log and the observer's RequestDone are deferred calls, so they
// also see a request that panics.
func (c *handlerChain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer recoverPanic(w, r, c.logger)
	st := beginRequest(w, r)
	r = st.withRequest(r)
	defer st.finish(r, c.logger)
	ri := &st.riBuf
	riErr := request.ParseRequestInfo(r, ri)
	if riErr != nil {
		ri = &request.RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	} else {
		st.ri = ri
	}
	h, proxied := c.h, false
	if c.router != nil {
		h, proxied = c.router.Route(r)
	}
	if c.observer != nil {
		c.observer.RequestStarted(r, ri, proxied)
		defer c.observe(st, r, ri, proxied)
	}
	if c.inspector != nil {
		c.inspector.begin(st, r, ri, proxied)
		defer c.inspector.finish(st, r)
	}
	c.serve(st, r, h, ri, riErr, proxied)
	st.completed = true
}

// serve runs the steps from RequestInfo's error to the handler; each
// refusal has been answered when it returns early.
func (c *handlerChain) serve(st *requestState, r *http.Request, h http.Handler, ri *request.RequestInfo, riErr error, proxied bool) {
	w := &st.sw
	if riErr != nil {
		internalError(w, r, fmt.Errorf("failed to create RequestInfo: %w", riErr))
		return
	}
	// The user goes into the chain's own context node (r's context is st):
	// no context layer and request copy of its own.
	u, ok, impersonates := c.authn.authenticateUser(w, r)
	if !ok {
		return
	}
	st.user = u
	ins := st.insp
	if ins != nil {
		ins.authenticated(r, u)
	}
	if impersonates { // else impersonateRequest would return r as it is
		if r, ok = impersonateRequest(w, r, c.impersonation, c.logger); !ok {
			return
		}
	}
	var note *InspectedAuthorization
	if ins != nil {
		note = ins.impersonated(r)
	}
	if !authorizeRequest(w, r, ri, c.authz, c.logger, note) {
		return
	}
	if ins != nil {
		ins.stage = ""
	}
	c.timeout.serve(w, r, h, ri, proxied)
}

// observe reports the finished request to the observer. It runs before
// ServeHTTP's other deferred calls, so completed is still false when the
// handler panicked.
func (c *handlerChain) observe(st *requestState, r *http.Request, ri *request.RequestInfo, proxied bool) {
	out := RequestOutcome{Code: st.sw.Code(), Elapsed: time.Since(st.start), Panicked: !st.completed}
	if out.Code == 0 {
		out.Code = http.StatusOK
		if out.Panicked {
			out.Code = http.StatusInternalServerError
		}
	}
	c.observer.RequestDone(r, ri, proxied, out)
}

// requestState is one request's state in the chain, in one allocation: the
// context node that carries the access-log record and the RequestInfo
// (answering RequestIDFrom, noteUser and RequestInfoFrom), the writer that
// notes the status code, and the start time. Only the serving goroutine
// writes it.
type requestState struct {
	context.Context // the request's context as the chain got it
	sw              request.StatusRecorder
	rec             requestRecord
	ri              *request.RequestInfo     // nil until parsed, or when the path did not parse
	user            *authentication.UserInfo // nil until authenticated
	insp            *inspection              // the inspector's record, nil when it is off
	start           time.Time
	// completed is set when everything inside the access log returned
	// normally (not set: the handler panicked).
	completed bool
	// req and riBuf back the chain's copy of the request (withRequest) and
	// its RequestInfo: one allocation with the state instead of two of
	// their own (issue 21).
	req   http.Request
	riBuf request.RequestInfo
}

// withRequest returns a copy of r whose context is s, as r.WithContext(s)
// would, kept in s.
func (s *requestState) withRequest(r *http.Request) *http.Request {
	s.req = *r.WithContext(s)
	return &s.req
}

// Value answers requestRecordKey, requestTimeKey, request.RequestInfoKey (once parsed),
// request.UserKey (once authenticated) and, when the inspector records,
// proxy.HopKey, and delegates every other key.
func (s *requestState) Value(key any) any {
	switch key.(type) {
	case requestRecordKey:
		return &s.rec
	case requestTimeKey:
		return &s.start
	case request.RequestInfoKey:
		if s.ri != nil {
			return s.ri
		}
	case request.UserKey:
		if s.user != nil {
			return s.user
		}
	case proxy.HopKey:
		if s.insp != nil {
			return &s.insp.hop
		}
	}
	return s.Context.Value(key)
}

// requestTime is the time r entered the chain (its requestState's start),
// or now outside the chain: the certificate verifications' expiry is
// checked against it, so that a request through the chain reads the clock
// once instead of once more per CA pool it tries (time.Now costs about
// 80 ns here; issue 21).
func requestTime(r *http.Request) time.Time {
	if st, ok := r.Context().(*requestState); ok {
		return st.start
	}
	if t, ok := r.Context().Value(requestTimeKey{}).(*time.Time); ok {
		return *t
	}
	return time.Now()
}

// requestTimeKey finds a requestState's start under other contexts.
type requestTimeKey struct{}

// beginRequest is the request id step (WithRequestLog): it picks the
// Audit-Id (the client's, else a new UUID), sets it on the request and the
// response, defaults Cache-Control to `no-cache, private`, and returns the
// request's state with w wrapped.
func beginRequest(w http.ResponseWriter, r *http.Request) *requestState {
	st := &requestState{Context: r.Context(), start: time.Now()}
	ids := r.Header[HeaderAuditID]
	if len(ids) == 0 || ids[0] == "" {
		ids = newAuditID()
		r.Header[HeaderAuditID] = ids // forwarded to backends, as upstream
	}
	id := ids[0]
	h := w.Header()
	if v := h[HeaderAuditID]; len(v) == 0 || v[0] == "" {
		h[HeaderAuditID] = ids[:1:1] // shared with the request: never appended to in place
	}
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = cacheControlNoCache
	}
	st.rec.id = id
	st.sw.ResponseWriter = w
	return st
}

// newAuditID returns the header value of a new random Audit-Id (a
// version 4 UUID, as upstream's uuid.New), never appended to in place. It
// is allocated apart from the requestState: the inspector's ring keeps
// the client's header values, this one among them, for its last
// DefaultInspectorRingSize requests, and a value inside the state kept the
// whole state alive with them (its copy of the request, the stream its
// body reads from; issue 21).
func newAuditID() []string {
	return []string{uuid4.New()}
}

// finish writes the access-log record: one debug-level "HTTP" record with
// method, path, user, impersonator, status code (500 when the handler did
// not return normally), duration and audit ID.
func (s *requestState) finish(r *http.Request, logger *slog.Logger) {
	if !logger.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	code := s.sw.Code()
	if !s.completed {
		code = http.StatusInternalServerError
	} else if code == 0 {
		code = http.StatusOK
	}
	attrs := []any{"verb", r.Method, "URI", r.RequestURI, "user", s.rec.user, "code", code,
		"latency", time.Since(s.start), "userAgent", r.UserAgent(), "auditID", s.rec.id, "srcIP", r.RemoteAddr}
	if s.rec.impersonator != "" {
		attrs = append(attrs, "impersonator", s.rec.impersonator)
	}
	logger.Debug("HTTP", attrs...)
}

// cacheControlNoCache is upstream's default Cache-Control value
// (WithCacheControl); one shared slice, which handlers replace (Set) rather
// than change.
var cacheControlNoCache = []string{"no-cache, private"}

// DefaultRequestTimeout is kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = 60 * time.Second

// IsLongRunning reports whether a request is exempt from the request timeout,
// as kube-apiserver's BasicLongRunningRequestCheck
// (apiserver/pkg/server/filters/longrunning.go) configured with verbs
// watch, proxy and subresources attach, exec, proxy, log, portforward; plus
// non-resource paths under /debug/pprof/ and aggsim's own event stream
// DebugRequestEventsPath.
func IsLongRunning(ri *request.RequestInfo) bool {
	switch ri.Verb {
	case "watch", "proxy":
		return true
	}
	if ri.IsResourceRequest {
		switch ri.Subresource {
		case "attach", "exec", "proxy", "log", "portforward":
			return true
		}
		return false
	}
	return strings.HasPrefix(ri.Path, "/debug/pprof/") || ri.Path == DebugRequestEventsPath
}

// newTimeoutStatus mirrors apierrors.NewTimeoutError(
// "request did not complete within the allotted timeout", 0).
func newTimeoutStatus() *meta.StatusError {
	se := meta.NewStatusError(http.StatusGatewayTimeout, meta.StatusReasonTimeout, "Timeout: request did not complete within the allotted timeout")
	se.Status.Details = &meta.StatusDetails{}
	return se
}

// WithTimeout bounds non-long-running requests (see IsLongRunning), joining
// upstream's WithRequestDeadline and WithTimeoutForNonLongRunningRequests
// (apiserver/pkg/endpoints/filters/request_deadline.go,
// apiserver/pkg/server/filters/timeout.go). The deadline is ?timeout= when it
// parses as a Go duration greater than 0 and below max, else max (0 means
// DefaultRequestTimeout); an unparsable ?timeout= answers 400 Status
// `invalid timeout specified in the request URL - <err>`. The inner handler
// runs in its own goroutine with the deadline on its context; when the
// deadline passes before it has written a header, the client gets 504 Status
// `Timeout: request did not complete within the allotted timeout` written as
// upstream writes it: without kind/apiVersion and with no Content-Type of its
// own (Go sniffs text/plain; charset=utf-8); later writes by the handler are
// dropped.
// If the handler had already started the response the stream is aborted
// (panic(http.ErrAbortHandler)). A panic in the handler is re-raised in the
// serving goroutine. RequestInfo must be in the context (WithRequestInfo);
// without it the request is treated as not long-running.
func WithTimeout(h http.Handler, max time.Duration) http.Handler {
	t := newTimeoutStep(max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri, _ := request.RequestInfoFrom(r.Context())
		t.serve(w, r, h, ri, false)
	})
}

// timeoutCtxKey holds, in a request's context, the context carrying the
// timeout filter's deadline.
type timeoutCtxKey struct{}

// requestTimedOut reports whether the timeout filter's deadline for the
// request whose context is ctx has passed (and not some inner deadline,
// such as the proxy's 5 s bound on discovery paths).
func requestTimedOut(ctx context.Context) bool {
	d, ok := ctx.Value(timeoutCtxKey{}).(context.Context)
	return ok && errors.Is(d.Err(), context.DeadlineExceeded)
}

// writeTimeoutStatus writes the 504 the timeout filter answers, as upstream
// writes it: the bare Status through encoding/json (no kind or apiVersion,
// "metadata":{} and "details":{}) and no Content-Type of its own.
func writeTimeoutStatus(w http.ResponseWriter) {
	w.WriteHeader(http.StatusGatewayTimeout)
	st := newTimeoutStatus().Status
	st.TypeMeta = meta.TypeMeta{}
	_ = json.NewEncoder(w).Encode(&st)
}

// timeoutStep is the timeout step of the chain (and of WithTimeout).
type timeoutStep struct {
	max time.Duration // the bound when ?timeout= does not set a shorter one
}

// newTimeoutStep returns the step for --request-timeout max (0 means
// DefaultRequestTimeout).
func newTimeoutStep(max time.Duration) timeoutStep {
	if max <= 0 {
		max = DefaultRequestTimeout
	}
	return timeoutStep{max: max}
}

// serve runs h for r under the request's deadline, as WithTimeout
// describes; ri is r's RequestInfo (nil: not long-running). With ownDeadline set, h runs on the serving goroutine with
// only the deadline on its context: its handler must return promptly once
// the context ends and answer a passed deadline itself (requestTimedOut,
// writeTimeoutStatus) — the proxy does, since its transport aborts with the
// context — which spares the proxied path the second goroutine.
func (t timeoutStep) serve(w http.ResponseWriter, r *http.Request, h http.Handler, ri *request.RequestInfo, ownDeadline bool) {
	if ri != nil && IsLongRunning(ri) {
		h.ServeHTTP(w, r)
		return
	}
	timeout, ok := t.timeoutFor(w, r)
	if !ok {
		return
	}
	if _, ok := h.(promptHandler); ok {
		h.ServeHTTP(w, r) // answers from memory: no deadline can pass
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if ownDeadline {
		h.ServeHTTP(w, r.WithContext(context.WithValue(ctx, timeoutCtxKey{}, ctx)))
		return
	}
	serveWithTimeout(w, r.WithContext(ctx), h)
}

// promptHandler marks a handler that answers from memory without waiting
// on anything (discovery documents, /version, health checks, OpenAPI
// documents): the timeout step checks ?timeout= for it, as for every
// request, but serves it directly, without the deadline context and the
// second goroutine a handler that may block needs. kube-apiserver runs
// these under its timeout filter too; a deadline that cannot pass makes no
// observable difference, and skipping it is most of what the chain cost
// /apis (issue 21).
type promptHandler struct{ http.Handler }

// prompt marks h as a promptHandler.
func prompt(h http.Handler) http.Handler { return promptHandler{h} }

// timeoutFor returns r's deadline: ?timeout= when it parses as a Go
// duration greater than 0 and below the maximum, else the maximum. An
// unparsable value answers 400 and returns false.
func (t timeoutStep) timeoutFor(w http.ResponseWriter, r *http.Request) (time.Duration, bool) {
	if !strings.Contains(r.URL.RawQuery, "timeout=") {
		return t.max, true // no ?timeout: skip parsing the query
	}
	v := r.URL.Query().Get("timeout")
	if v == "" {
		return t.max, true
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		negotiation.WriteStatus(w, r, meta.NewBadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %s", err)))
		return 0, false
	}
	if d > 0 && d < t.max {
		return d, true
	}
	return t.max, true
}

// serveWithTimeout runs h in a second goroutine and answers 504 (or aborts
// the stream) when r's context ends first; see WithTimeout.
func serveWithTimeout(w http.ResponseWriter, r *http.Request, h http.Handler) {
	ctx := r.Context()
	tw := &timeoutWriter{w: w, h: w.Header().Clone()}
	done := make(chan any, 1)
	go func() {
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				p = fmt.Sprintf("%v\n%s", p, buf)
			}
			done <- p
		}()
		h.ServeHTTP(tw, r) // r already carries ctx; the server does not touch it after we return
	}()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
	case <-ctx.Done():
		tw.timeout()
	}
}

// timeoutWriter buffers headers so that a timed-out handler cannot touch the
// real ResponseWriter's header map concurrently, and drops writes after the
// timeout. It must not be copied.
type timeoutWriter struct {
	w http.ResponseWriter
	h http.Header // the handler's header map; copied to w on WriteHeader

	mu          sync.Mutex // guards wroteHeader, timedOut, hijacked and every use of w
	wroteHeader bool
	timedOut    bool
	hijacked    bool
}

// Header returns the handler's own header map, copied out on its first
// write unless the deadline passed first.
func (tw *timeoutWriter) Header() http.Header { return tw.h }

func (tw *timeoutWriter) writeHeaderLocked(code int) {
	if tw.wroteHeader {
		return
	}
	tw.wroteHeader = true
	dst := tw.w.Header()
	for k := range dst {
		if _, ok := tw.h[k]; !ok {
			delete(dst, k)
		}
	}
	for k, v := range tw.h {
		dst[k] = v
	}
	tw.w.WriteHeader(code)
}

// WriteHeader passes the handler's code on unless the request timed out.
func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.hijacked {
		return
	}
	tw.writeHeaderLocked(code)
}

// Write passes p on unless the request timed out (then http.ErrHandlerTimeout).
func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	if tw.hijacked {
		return 0, http.ErrHijacked
	}
	tw.writeHeaderLocked(http.StatusOK)
	return tw.w.Write(p)
}

// Flush flushes the real writer unless the request timed out.
func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.hijacked {
		return
	}
	tw.writeHeaderLocked(http.StatusOK)
	_ = http.NewResponseController(tw.w).Flush()
}

// Hijack hands the connection over (HTTP/1 only) unless it timed out.
func (tw *timeoutWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return nil, nil, http.ErrHandlerTimeout
	}
	c, rw, err := http.NewResponseController(tw.w).Hijack()
	if err == nil {
		tw.hijacked = true
	}
	return c, rw, err
}

func (tw *timeoutWriter) timeout() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.timedOut = true
	if !tw.wroteHeader && !tw.hijacked {
		writeTimeoutStatus(tw.w)
		return
	}
	panic(http.ErrAbortHandler)
}

var (
	_ http.Flusher  = (*timeoutWriter)(nil)
	_ http.Hijacker = (*timeoutWriter)(nil)
)

// HeaderAuditID is the request/response header carrying the request id
// (k8s.io/apiserver/pkg/apis/audit/types.go HeaderAuditID, canonicalised).
const HeaderAuditID = "Audit-Id"

// panicMessage is upstream's body for a handler panic
// (apiserver/pkg/server/filters/wrap.go).
const panicMessage = "This request caused apiserver to panic. Look in the logs for details."

// requestRecord is what the access log learns about a request from inner
// filters. It lives in the context; inner filters write it in the serving
// goroutine before the handler runs, the log reads it after.
type requestRecord struct {
	id           string
	user         string
	impersonator string
}

type requestRecordKey struct{}

// RequestIDFrom returns the request id (the Audit-Id) WithRequestLog gave
// the request, or "".
func RequestIDFrom(ctx context.Context) string {
	if rec, ok := ctx.Value(requestRecordKey{}).(*requestRecord); ok {
		return rec.id
	}
	return ""
}

// noteUser tells the access log who the request runs as.
func noteUser(ctx context.Context, u *authentication.UserInfo, impersonated bool) {
	rec, ok := ctx.Value(requestRecordKey{}).(*requestRecord)
	if !ok || u == nil {
		return
	}
	if impersonated {
		rec.impersonator = rec.user
	}
	rec.user = u.Username
}

// WithRequestLog gives every request an id and logs it when done, mirroring
// upstream's WithAuditInit, WithCacheControl and httplog
// (apiserver/pkg/endpoints/filters/audit_init.go, cachecontrol.go,
// apiserver/pkg/server/httplog). The id is the client's Audit-ID header if
// sent, else a new UUID; it is set as the Audit-Id response header (unless
// already set) and as the request's Audit-Id header, so the proxy forwards it
// to the backend as upstream does. Cache-Control defaults to
// `no-cache, private` (a handler may overwrite it). After the handler
// returns, one debug-level "HTTP" record is logged with method, path, user,
// impersonator, status code, duration and audit ID; a panic is logged with
// code 500 and re-raised.
func WithRequestLog(h http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := beginRequest(w, r)
		r = r.WithContext(st)
		defer st.finish(r, logger)
		h.ServeHTTP(&st.sw, r)
		st.completed = true
	})
}

// WithPanicRecovery turns a handler panic into 500 text/plain
// `This request caused apiserver to panic. Look in the logs for details.`
// and logs the panic value and stack at error level, as upstream's
// WithPanicRecovery does (apiserver/pkg/server/filters/wrap.go).
// http.ErrAbortHandler (a timed-out or aborted stream) is re-raised so
// net/http aborts the connection without a response, logged at debug level.
// Unlike upstream, other panics are not re-raised after the answer.
func WithPanicRecovery(h http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer recoverPanic(w, r, logger)
		h.ServeHTTP(w, r)
	})
}

// recoverPanic is WithPanicRecovery's deferred half; it must be called
// directly by defer (recover only works there).
func recoverPanic(w http.ResponseWriter, r *http.Request, logger *slog.Logger) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		logger.Debug("timeout or abort while handling", "method", r.Method, "URI", r.RequestURI, "auditID", w.Header().Get(HeaderAuditID))
		panic(p)
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	logger.Error("apiserver panic'd", "method", r.Method, "URI", r.RequestURI,
		"auditID", w.Header().Get(HeaderAuditID), "panic", fmt.Sprint(p), "stack", string(buf))
	http.Error(w, panicMessage, http.StatusInternalServerError)
}
