package aggregator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DefaultRequestTimeout is kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = 60 * time.Second

// IsLongRunning reports whether a request is exempt from the request timeout,
// as kube-apiserver's BasicLongRunningRequestCheck
// (apiserver/pkg/server/filters/longrunning.go) configured with verbs
// watch, proxy and subresources attach, exec, proxy, log, portforward; plus
// non-resource paths under /debug/pprof/.
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
	return strings.HasPrefix(ri.Path, "/debug/pprof/")
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
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if ownDeadline {
		h.ServeHTTP(w, r.WithContext(context.WithValue(ctx, timeoutCtxKey{}, ctx)))
		return
	}
	serveWithTimeout(w, r.WithContext(ctx), h)
}

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

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.hijacked {
		return
	}
	tw.writeHeaderLocked(code)
}

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
