package aggregator

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// observed is one RequestDone call.
type observed struct {
	path     string
	verb     string
	proxied  bool
	code     int
	panicked bool
}

// recordingObserver records what the chain tells a RequestObserver.
type recordingObserver struct {
	mu      sync.Mutex
	started []string
	done    []observed
}

func (o *recordingObserver) RequestStarted(r *http.Request, ri *request.RequestInfo, proxied bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.started = append(o.started, ri.Path)
}

func (o *recordingObserver) RequestDone(r *http.Request, ri *request.RequestInfo, proxied bool, out RequestOutcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if out.Elapsed <= 0 {
		out.Code = -1 // make a non-positive duration visible as a wrong code
	}
	o.done = append(o.done, observed{path: ri.Path, verb: ri.Verb, proxied: proxied, code: out.Code, panicked: out.Panicked})
}

// TestChainAsksProxiedOnce checks that the chain classifies a request once,
// hands the answer to the observer and to the timeout step (a proxied
// request runs on the serving goroutine with the timeout key on its
// context), and that the handler sees the RequestInfo, the request id and
// the user.
func TestChainAsksProxiedOnce(t *testing.T) {
	calls := 0
	obs := &recordingObserver{}
	var sawRI *request.RequestInfo
	var sawID string
	var sawUser *authentication.UserInfo
	var sawTimeoutKey bool
	h := BuildHandlerChain(testRouter{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawRI, _ = request.RequestInfoFrom(r.Context())
		sawID = RequestIDFrom(r.Context())
		sawUser, _ = request.UserFrom(r.Context())
		_, sawTimeoutKey = r.Context().Value(timeoutCtxKey{}).(context.Context)
		w.WriteHeader(http.StatusAccepted)
	}), proxied: func(r *http.Request) bool {
		calls++
		return strings.HasPrefix(r.URL.Path, "/apis/example.com/")
	}}, ChainOptions{
		Authn:    AuthnOptions{Anonymous: true},
		Observer: obs,
	})
	req := httptest.NewRequest("GET", "/apis/example.com/v1/namespaces/a/foos", nil)
	req.Header.Set("Audit-Id", "id-1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted || calls != 1 {
		t.Fatalf("code %d, router asked %d times, want 202 and 1", rec.Code, calls)
	}
	if sawRI == nil || sawRI.Resource != "foos" || sawRI.Namespace != "a" || sawRI.Verb != "list" {
		t.Errorf("RequestInfo %+v", sawRI)
	}
	if sawID != "id-1" || sawUser == nil || sawUser.Username != UserAnonymous || !sawTimeoutKey {
		t.Errorf("id %q user %+v timeout key %v", sawID, sawUser, sawTimeoutKey)
	}
	want := []observed{{path: "/apis/example.com/v1/namespaces/a/foos", verb: "list", proxied: true, code: 202, panicked: false}}
	if len(obs.done) != 1 || obs.done[0] != want[0] || len(obs.started) != 1 {
		t.Errorf("observer started %v done %+v, want %+v", obs.started, obs.done, want)
	}

	// Not proxied: the handler runs on a second goroutine without the key.
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/namespaces", nil))
	if calls != 2 || sawTimeoutKey || obs.done[1].proxied || obs.done[1].code != 202 {
		t.Errorf("calls %d timeout key %v observed %+v", calls, sawTimeoutKey, obs.done[1])
	}
}

// TestChainObserverCodes checks the code RequestDone gets for a refusal by
// authentication, a request that wrote nothing, a panic and a bad path.
func TestChainObserverCodes(t *testing.T) {
	obs := &recordingObserver{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/panic") {
			panic("boom")
		}
	})
	anon := BuildHandlerChain(handler, ChainOptions{Authn: AuthnOptions{Anonymous: true}, Observer: obs})
	nobody := BuildHandlerChain(handler, ChainOptions{Observer: obs})
	for _, tc := range []struct {
		h    http.Handler
		path string
		want observed
		code int // what the client got
	}{
		{nobody, "/apis/g/v1/x", observed{"/apis/g/v1/x", "list", false, 401, false}, 401},
		{anon, "/apis/g/v1/x", observed{"/apis/g/v1/x", "list", false, 200, false}, 200},
		{anon, "/apis/g/v1/x/panic", observed{"/apis/g/v1/x/panic", "get", false, 500, true}, 500},
		{anon, "/api/v1/watch/", observed{"/api/v1/watch/", "get", false, 500, false}, 500},
	} {
		obs.done = nil
		rec := httptest.NewRecorder()
		tc.h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Code != tc.code || len(obs.done) != 1 || obs.done[0] != tc.want {
			t.Errorf("%s: client got %d, observer %+v; want %d and %+v", tc.path, rec.Code, obs.done, tc.code, tc.want)
		}
	}
}

// TestChainIsFlat pins what makes the chain cheap for proxied requests:
// the handler is called from the chain through exactly serve and the
// timeout step, not through one nested handler per filter, so its
// goroutine needs little more stack than a bare reverse proxy's.
func TestChainIsFlat(t *testing.T) {
	var frames []string
	h := BuildHandlerChain(testRouter{proxied: func(*http.Request) bool { return true }, h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pc := make([]uintptr, 32)
		n := runtime.Callers(1, pc)
		fs := runtime.CallersFrames(pc[:n])
		for {
			f, more := fs.Next()
			name := f.Function[strings.LastIndex(f.Function, "/")+1:]
			frames = append(frames, name)
			if strings.HasSuffix(name, "handlerChain).ServeHTTP") || !more {
				break
			}
		}
	})}, ChainOptions{Authn: AuthnOptions{Anonymous: true}})
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/apis/g/v1/x", nil))
	want := []string{
		"aggregator.TestChainIsFlat.func2", // func1 is the routing decision
		"http.HandlerFunc.ServeHTTP",
		"aggregator.timeoutStep.serve",
		"aggregator.(*handlerChain).serve",
		"aggregator.(*handlerChain).ServeHTTP",
	}
	if strings.Join(frames, " < ") != strings.Join(want, " < ") {
		t.Errorf("call path\n got %v\nwant %v", frames, want)
	}
}

func TestRequestStateDelegates(t *testing.T) {
	type k struct{}
	parent := context.WithValue(context.Background(), k{}, "v")
	parent = request.WithRequestInfoContext(parent, &request.RequestInfo{Path: "/outer"})
	st := &requestState{Context: parent}
	st.rec.id = "id"
	if st.Value(k{}) != "v" || RequestIDFrom(st) != "id" {
		t.Errorf("Value(k) = %v, id %q", st.Value(k{}), RequestIDFrom(st))
	}
	if ri, ok := request.RequestInfoFrom(st); !ok || ri.Path != "/outer" {
		t.Errorf("unset ri must delegate to the parent's RequestInfo, got %v %v", ri, ok)
	}
	st.ri = &request.RequestInfo{Path: "/inner"}
	if ri, ok := request.RequestInfoFrom(st); !ok || ri.Path != "/inner" {
		t.Errorf("RequestInfoFrom = %v %v, want /inner", ri, ok)
	}
}

// testRouter is a Router that serves h for every request and calls
// proxied for the routing decision.
type testRouter struct {
	h       http.Handler
	proxied func(*http.Request) bool
}

func (t testRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.h.ServeHTTP(w, r) }

func (t testRouter) Route(r *http.Request) (http.Handler, bool) { return t.h, t.proxied(r) }

// hijackable is a ResponseWriter that can be hijacked; it notes the first
// code written to it.
type hijackable struct {
	h    http.Header
	code int
}

func (w *hijackable) Header() http.Header { return w.h }

func (w *hijackable) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *hijackable) Write(p []byte) (int, error) { return len(p), nil }

func (w *hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, peer := net.Pipe()
	peer.Close()
	return c, bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c)), nil
}

// TestChainCodeAfterHijack: once the handler hijacked the connection, the
// request counts as 101 for the observer and the access log, whatever the
// handler writes afterwards (the client cannot see it). The proxy's own
// OnRequest counts differently (proxy's TestOnRequestCodeFailedSwitch).
func TestChainCodeAfterHijack(t *testing.T) {
	obs := &recordingObserver{}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := BuildHandlerChain(testRouter{proxied: func(*http.Request) bool { return true }, h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		c.Close()
		w.WriteHeader(http.StatusServiceUnavailable)
	})}, ChainOptions{Authn: AuthnOptions{Anonymous: true}, Observer: obs, Logger: logger})
	w := &hijackable{h: http.Header{}}
	h.ServeHTTP(w, httptest.NewRequest("GET", "/apis/g/v1/x", nil))
	want := observed{path: "/apis/g/v1/x", verb: "list", proxied: true, code: http.StatusSwitchingProtocols}
	if len(obs.done) != 1 || obs.done[0] != want {
		t.Errorf("observer %+v, want %+v", obs.done, want)
	}
	if !strings.Contains(logs.String(), " code=101 ") {
		t.Errorf("access log: %s", logs.String())
	}
	if w.code != http.StatusServiceUnavailable {
		t.Errorf("writer got WriteHeader(%d), want 503 passed on", w.code)
	}
}

// TestChainPromptHandler: a handler the router marks prompt runs without
// the timeout step's deadline (and so on the serving goroutine), while an
// unmarked one gets the deadline; ?timeout= is still checked for both, as
// kube-apiserver checks it for every non-long-running request.
func TestChainPromptHandler(t *testing.T) {
	var hasDeadline bool
	var goroutines []string
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, hasDeadline = r.Context().Deadline()
		buf := make([]byte, 4096)
		goroutines = append(goroutines, string(buf[:runtime.Stack(buf, false)]))
		w.WriteHeader(http.StatusOK)
	})
	for _, c := range []struct {
		name         string
		h            http.Handler
		wantDeadline bool
	}{
		{"prompt", prompt(handler), false},
		{"ordinary", handler, true},
	} {
		goroutines = nil
		chain := BuildHandlerChain(testRouter{h: c.h, proxied: func(*http.Request) bool { return false }},
			ChainOptions{Authn: AuthnOptions{Anonymous: true}})
		rec := httptest.NewRecorder()
		chain.ServeHTTP(rec, httptest.NewRequest("GET", "/apis", nil))
		if rec.Code != http.StatusOK || hasDeadline != c.wantDeadline {
			t.Errorf("%s: code %d, deadline %v; want 200, %v", c.name, rec.Code, hasDeadline, c.wantDeadline)
		}
		secondGoroutine := strings.Contains(goroutines[0], "serveWithTimeout")
		if secondGoroutine != c.wantDeadline {
			t.Errorf("%s: handler ran on serveWithTimeout's goroutine: %v", c.name, secondGoroutine)
		}
		rec = httptest.NewRecorder()
		chain.ServeHTTP(rec, httptest.NewRequest("GET", "/apis?timeout=bogus", nil))
		if want := `invalid timeout specified in the request URL - time: invalid duration \"bogus\"`; rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: ?timeout=bogus: %d %s", c.name, rec.Code, rec.Body)
		}
	}
}
