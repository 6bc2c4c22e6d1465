package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// wantPlain checks a plain-text proxy answer as upstream's http.Error
// writes it.
func wantPlain(t *testing.T, w *httptest.ResponseRecorder, code int, body string) {
	t.Helper()
	if w.Code != code {
		t.Errorf("status = %d, want %d", w.Code, code)
	}
	if got := w.Body.String(); got != body {
		t.Errorf("body = %q, want %q", got, body)
	}
	want := http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"}}
	if !reflect.DeepEqual(w.Header(), want) {
		t.Errorf("headers = %v, want %v", w.Header(), want)
	}
}

// metric is one OnRequest call.
type metric struct {
	name string
	code int
	err  error
}

type metricSink struct {
	mu     sync.Mutex // guards got and called
	got    []metric
	called chan struct{} // closed by the first call
}

func (m *metricSink) record(name string, code int, _ time.Duration, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, metric{name, code, err})
	if m.called == nil {
		m.called = make(chan struct{})
	}
	select {
	case <-m.called:
	default:
		close(m.called)
	}
}

func (m *metricSink) last(t *testing.T) metric {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.got) == 0 {
		t.Fatal("OnRequest was not called")
	}
	return m.got[len(m.got)-1]
}

func newRequest(path string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:6443"+path, nil)
	r.RemoteAddr = "127.0.0.1:40000"
	return r
}

const flunderPath = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x"

// TestRefusals covers the answers the Handler gives without reaching the
// backend, in upstream's order (reference §4.1), and checks the backend
// received nothing.
func TestRefusals(t *testing.T) {
	b := newBackend(t, nil)
	resolveErr := &ServiceNotFoundError{Namespace: "wardle", Name: "api"}
	cases := []struct {
		name     string
		update   *Target // nil: never updated
		resolver ServiceResolver
		user     *authentication.UserInfo
		wantCode int
		wantBody string
		wantErr  error
	}{
		{name: "no target", user: testUser(), wantCode: 404, wantBody: "404 page not found\n"},
		{name: "local apiservice", update: ptr(target(func(t *Target) { t.Service = nil })), user: testUser(),
			wantCode: 404, wantBody: "404 page not found\n"},
		{name: "unavailable", update: ptr(target(func(t *Target) { t.Available = false })), user: testUser(),
			wantCode: 503, wantBody: "service unavailable\n"},
		{name: "unavailable beats a bad caBundle", update: ptr(target(func(t *Target) { t.Available = false; t.CABundle = []byte("junk") })),
			user: testUser(), wantCode: 503, wantBody: "service unavailable\n"},
		{name: "caBundle not PEM", update: ptr(target(withCABundle([]byte("junk")))), user: testUser(),
			wantCode: 500, wantBody: "unable to load root certificates: unable to parse bytes as PEM block\n",
			wantErr: errors.New("unable to load root certificates: unable to parse bytes as PEM block")},
		{name: "missing user", update: ptr(target(withCABundle(testPKI(t).servingCA.pem))),
			wantCode: 500, wantBody: "missing user\n"},
		{name: "resolve error", update: ptr(target(withCABundle(testPKI(t).servingCA.pem))), user: testUser(),
			resolver: ResolverFunc(func(string, string, int32) (*url.URL, error) { return nil, resolveErr }),
			wantCode: 503, wantBody: "service unavailable\n", wantErr: resolveErr},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m metricSink
			res := tc.resolver
			if res == nil {
				res = staticResolver("127.0.0.1", b.port())
			}
			h := NewHandler(Options{Resolver: res, OnRequest: m.record})
			t.Cleanup(h.Close)
			if tc.update != nil {
				h.Update(*tc.update)
			}
			w := serve(h, newRequest(flunderPath), tc.user)
			wantPlain(t, w, tc.wantCode, tc.wantBody)
			if got := m.last(t); got.code != tc.wantCode || errText(got.err) != errText(tc.wantErr) {
				t.Errorf("OnRequest got code %d err %v, want %d %v", got.code, got.err, tc.wantCode, tc.wantErr)
			}
		})
	}
	if n := len(b.received()); n != 0 {
		t.Errorf("backend received %d requests, want 0", n)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func ptr[T any](v T) *T { return &v }

// TestTransportFailures: when the backend cannot be reached or its
// serving certificate does not verify, no request reaches it and the
// client gets 503 `error trying to reach service: <Go error>` with the
// exact texts of captures c22, c23, c24 and c33; the metrics hook sees a
// *DialError.
func TestTransportFailures(t *testing.T) {
	p := testPKI(t)
	other := newCA(t, "other-ca")
	wrongName := p.servingCA.issue(t, "wrong", false, "wrong.wardle.svc", "localhost")
	refused := func() string { // a port nothing listens on
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return addr
	}()
	cases := []struct {
		name     string
		bopts    []backendOption
		topts    []func(*Target)
		addr     string // overrides the backend address
		wantBody string
	}{
		{name: "c22 wrong caBundle", topts: []func(*Target){withCABundle(other.pem)},
			wantBody: "error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority\n"},
		{name: "c23 wrong name", bopts: []backendOption{withServingCert(wrongName)},
			wantBody: "error trying to reach service: tls: failed to verify certificate: x509: certificate is valid for wrong.wardle.svc, localhost, not api.wardle.svc\n"},
		{name: "c24 no caBundle", topts: []func(*Target){withCABundle(nil)},
			wantBody: "error trying to reach service: tls: failed to verify certificate: x509: certificate signed by unknown authority\n"},
		{name: "c33 name is the service, not the externalName", topts: []func(*Target){func(t *Target) { t.Service.Name = "api-ip" }},
			wantBody: "error trying to reach service: tls: failed to verify certificate: x509: certificate is valid for api.wardle.svc, localhost, not api-ip.wardle.svc\n"},
		{name: "connection refused", addr: refused,
			wantBody: "error trying to reach service: dial tcp " + refused + ": connect: connection refused\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, nil, tc.bopts...)
			var m metricSink
			opts := Options{OnRequest: m.record}
			if tc.addr != "" {
				host, port, _ := net.SplitHostPort(tc.addr)
				opts.Resolver = staticResolver(host, port)
			}
			h := newTestHandler(t, b, "127.0.0.1", opts, tc.topts...)
			w := serve(h, newRequest(flunderPath), testUser())
			wantPlain(t, w, http.StatusServiceUnavailable, tc.wantBody)
			if n := len(b.received()); n != 0 {
				t.Errorf("backend received %d requests, want 0", n)
			}
			got := m.last(t)
			var de *DialError
			if got.code != 503 || !errors.As(got.err, &de) {
				t.Errorf("OnRequest got code %d err %#v, want 503 and a *DialError", got.code, got.err)
			}
		})
	}
}

// TestInsecureSkipTLSVerify: insecureSkipTLSVerify reaches a backend whose
// certificate no CA vouches for (c25), still over HTTP/2 with the client
// certificate and SNI <service>.<namespace>.svc.
func TestInsecureSkipTLSVerify(t *testing.T) {
	b := newBackend(t, nil, withServingCert(newCA(t, "stranger").issue(t, "x", false, "x.example")))
	h := newTestHandler(t, b, "127.0.0.1", Options{}, withCABundle(nil), func(t *Target) { t.InsecureSkipTLSVerify = true })
	w := serve(h, newRequest(flunderPath), testUser())
	if w.Code != 200 || w.Body.String() != `{"ok":true}` {
		t.Fatalf("got %d %q", w.Code, w.Body.String())
	}
	got := b.received()[0]
	if got.Proto != "HTTP/2.0" || got.ServerName != "api.wardle.svc" || got.ClientCN != "front-proxy-client" {
		t.Errorf("backend saw proto %q SNI %q client %q", got.Proto, got.ServerName, got.ClientCN)
	}
}

// TestBackendAnswersPassThrough: backend status codes, bodies and headers
// reach the client unchanged, except CORS headers (removed), and backend
// headers are added to headers the filters already set.
func TestBackendAnswersPassThrough(t *testing.T) {
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=5")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Set("Access-Control-Allow-Headers", "X")
		w.Header().Set("Access-Control-Allow-Methods", "GET")
		w.Header().Set("Access-Control-Expose-Headers", "kept")
		w.Header().Set("X-Backend", "1")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"kind":"Status","code":500}`)
	})
	h := newTestHandler(t, b, "127.0.0.1", Options{})
	r := newRequest(flunderPath)
	w := httptest.NewRecorder()
	w.Header().Set("Cache-Control", "no-cache, private") // as the filter chain sets it
	h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), testUser())))
	if w.Code != 500 || w.Body.String() != `{"kind":"Status","code":500}` {
		t.Fatalf("got %d %q", w.Code, w.Body.String())
	}
	want := http.Header{
		"Cache-Control":                 {"no-cache, private", "max-age=5"},
		"Content-Type":                  {"application/json"},
		"Content-Length":                {"28"},
		"Access-Control-Expose-Headers": {"kept"},
		"X-Backend":                     {"1"},
	}
	got := w.Header().Clone()
	delete(got, "Date")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("response headers:\n%s", headerDiff(got, want))
	}
}

// TestRedirects: a backend redirect becomes upstream's 502 unless
// redirects are allowed, in which case Location is rewritten for the
// backend's own host and left alone for other hosts; a 201's Location is
// always rewritten, and a 304 passes through.
func TestRedirects(t *testing.T) {
	var code atomic.Int32
	var location atomic.Value
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		if l := location.Load().(string); l != "" {
			w.Header().Set("Location", l)
		}
		w.WriteHeader(int(code.Load()))
	})
	own := "127.0.0.1:" + b.port()
	cases := []struct {
		name         string
		allow        bool
		code         int
		location     string
		wantCode     int
		wantLocation string
		wantBody     string
	}{
		{name: "rejected", code: 302, location: "/elsewhere", wantCode: 502,
			wantBody: "the backend attempted to redirect this request, which is not permitted"},
		{name: "3xx without Location passes", code: 304, wantCode: 304},
		{name: "allowed, absolute path", allow: true, code: 302, location: "/elsewhere?x=1", wantCode: 302,
			wantLocation: "https://" + own + "/elsewhere?x=1"},
		{name: "allowed, own host", allow: true, code: 307, location: "http://" + own + "/p", wantCode: 307,
			wantLocation: "https://" + own + "/p"},
		{name: "allowed, other host", allow: true, code: 302, location: "https://example.com/p", wantCode: 302,
			wantLocation: "https://example.com/p"},
		{name: "allowed, relative", allow: true, code: 302, location: "other", wantCode: 302, wantLocation: "other"},
		{name: "created", code: 201, location: "/apis/x", wantCode: 201, wantLocation: "https://" + own + "/apis/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code.Store(int32(tc.code))
			location.Store(tc.location)
			h := newTestHandler(t, b, "127.0.0.1", Options{AllowForwardingRedirects: tc.allow})
			w := serve(h, newRequest(flunderPath), testUser())
			if w.Code != tc.wantCode || w.Header().Get("Location") != tc.wantLocation || w.Body.String() != tc.wantBody {
				t.Errorf("got %d Location %q body %q, want %d %q %q", w.Code, w.Header().Get("Location"), w.Body.String(),
					tc.wantCode, tc.wantLocation, tc.wantBody)
			}
			if tc.wantCode == 502 && w.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", w.Header().Get("Content-Type"))
			}
		})
	}
}

// TestClientCertRotation: after the front-proxy certificate changes and
// Transports.CloseIdleConnections is called, the next request (same
// Handler, no Update) opens a new connection with the new certificate.
func TestClientCertRotation(t *testing.T) {
	p := testPKI(t)
	first := p.frontProxyCA.issue(t, "front-proxy-client", true)
	second := p.frontProxyCA.issue(t, "front-proxy-client-2", true)
	var cur atomic.Pointer[tls.Certificate]
	cur.Store(first)
	tr := NewTransports(TransportOptions{GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return cur.Load(), nil
	}})
	b := newBackend(t, nil)
	h := newTestHandler(t, b, "127.0.0.1", Options{Transports: tr})

	for i := 0; i < 2; i++ {
		serve(h, newRequest(flunderPath), testUser())
	}
	cur.Store(second)
	tr.CloseIdleConnections()
	serve(h, newRequest(flunderPath), testUser())

	var got []string
	for _, r := range b.received() {
		got = append(got, r.ClientCN+"/"+r.ClientSerial)
	}
	want := []string{
		"front-proxy-client/" + first.Leaf.SerialNumber.String(),
		"front-proxy-client/" + first.Leaf.SerialNumber.String(),
		"front-proxy-client-2/" + second.Leaf.SerialNumber.String(),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("client certificates seen = %v, want %v", got, want)
	}
}

// TestTransportsShareAndRelease: Handlers with the same TLS settings share
// one transport; Update and Close give references back, and the last one
// drops the transport from the cache.
func TestTransportsShareAndRelease(t *testing.T) {
	p := testPKI(t)
	tr := NewTransports(TransportOptions{})
	size := func() int { tr.mu.Lock(); defer tr.mu.Unlock(); return len(tr.cache) }
	h1 := NewHandler(Options{Transports: tr})
	h2 := NewHandler(Options{Transports: tr})
	h1.Update(target(withCABundle(p.servingCA.pem)))
	h2.Update(target(withCABundle(p.servingCA.pem), func(t *Target) { t.Version = "v1" }))
	if h1.cur.Load().entry != h2.cur.Load().entry || size() != 1 {
		t.Fatalf("equal TLS settings did not share a transport (cache size %d)", size())
	}
	h1.Update(target(withCABundle(p.servingCA.pem))) // same settings again: no churn
	h2.Update(target(func(t *Target) { t.InsecureSkipTLSVerify = true }))
	if size() != 2 {
		t.Fatalf("cache size %d, want 2", size())
	}
	h1.Close()
	h2.Close()
	if size() != 0 {
		t.Fatalf("cache size %d after Close, want 0", size())
	}
}

// TestWatchStreams: a watch event reaches the client while the backend's
// response is still open. The backend writes one event, flushes and then
// blocks until the client has read that event; if any layer buffered, the
// client would never see it and the guard would fail the test.
func TestWatchStreams(t *testing.T) {
	release := make(chan struct{})
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"type":"ADDED","object":{"kind":"Flunder"}}`+"\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, `{"type":"DELETED","object":{"kind":"Flunder"}}`+"\n")
	})
	h := newTestHandler(t, b, "127.0.0.1", Options{})
	fs := front(t, h, testUser())
	resp, err := fs.Client().Get(fs.URL + "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	lines := make(chan string, 2)
	go func() {
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	got1 := make(chan struct{})
	var first string
	go func() { first = <-lines; close(got1) }()
	guard(t, got1, "first watch event before the backend finished")
	close(release)
	second := <-lines
	if first != `{"type":"ADDED","object":{"kind":"Flunder"}}`+"\n" || second != `{"type":"DELETED","object":{"kind":"Flunder"}}`+"\n" {
		t.Errorf("events = %q, %q", first, second)
	}
	if got := b.received()[0]; got.Query != "watch=true" || got.Proto != "HTTP/2.0" {
		t.Errorf("backend saw query %q proto %q", got.Query, got.Proto)
	}
}

// TestKnownLengthResponseFlushedPeriodically: a response with a
// Content-Length is flushed on upstream's 200 ms interval while the
// backend is still writing it (kube-aggregator's proxy keeps
// UpgradeAwareHandler's defaultFlushInterval); without the periodic flush
// the first half would wait for the rest, and guard would fail.
func TestKnownLengthResponseFlushedPeriodically(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	releaseBackend := func() { once.Do(func() { close(release) }) }
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "10")
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "-last")
	})
	h := newTestHandler(t, b, "127.0.0.1", Options{})
	fs := front(t, h, testUser())
	t.Cleanup(releaseBackend) // runs before the servers close, also after a failure
	type half struct {
		resp  *http.Response
		first string
		err   error
	}
	got := make(chan half, 1)
	go func() {
		resp, err := fs.Client().Get(fs.URL + "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/slow")
		if err != nil {
			got <- half{err: err}
			return
		}
		first := make([]byte, 5)
		_, err = io.ReadFull(resp.Body, first)
		got <- half{resp: resp, first: string(first), err: err}
	}()
	done := make(chan struct{})
	var h1 half
	go func() { h1 = <-got; close(done) }()
	guard(t, done, "the headers and first half before the backend wrote the rest")
	if h1.err != nil {
		t.Fatal(h1.err)
	}
	defer h1.resp.Body.Close()
	releaseBackend()
	rest, err := io.ReadAll(h1.resp.Body)
	if err != nil || h1.resp.ContentLength != 10 || h1.first+string(rest) != "first-last" {
		t.Errorf("Content-Length %d, body %q + %q, %v; want 10 and first-last", h1.resp.ContentLength, h1.first, rest, err)
	}
}

// TestRequestBodyStreams: the request body is streamed: the backend reads
// the first chunk before the client has written the second, which the
// client only writes after the backend acknowledged the first.
func TestRequestBodyStreams(t *testing.T) {
	gotFirst := make(chan struct{})
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 6)
		if _, err := io.ReadFull(r.Body, buf); err != nil || string(buf) != "chunk1" {
			t.Errorf("first chunk %q, %v", buf, err)
		}
		close(gotFirst)
		rest, _ := io.ReadAll(r.Body)
		io.WriteString(w, string(buf)+"+"+string(rest))
	})
	h := newTestHandler(t, b, "127.0.0.1", Options{})
	fs := front(t, h, testUser())
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("chunk1"))
		<-gotFirst
		pw.Write([]byte("chunk2"))
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, fs.URL+flunderPath, pr)
	done := make(chan struct{})
	var body string
	go func() {
		defer close(done)
		resp, err := fs.Client().Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		body = string(data)
	}()
	guard(t, done, "streamed request body")
	if body != "chunk1+chunk2" {
		t.Errorf("body = %q", body)
	}
}

// TestWebSocketUpgrade: a WebSocket upgrade passes through the proxy over
// HTTP/1.1 (the backend also offers h2), carries the identity headers but
// no X-Forwarded-Host/Proto/Uri (upstream's upgrade path), and echoes.
func TestWebSocketUpgrade(t *testing.T) {
	m := metricSink{called: make(chan struct{})}
	up := websocket.Upgrader{}
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			mt, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			c.WriteMessage(mt, append([]byte("echo:"), msg...))
		}
	})
	h := newTestHandler(t, b, "127.0.0.1", Options{OnRequest: m.record})
	fs := front(t, h, testUser())
	d := websocket.Dialer{TLSClientConfig: fs.Client().Transport.(*http.Transport).TLSClientConfig}
	u := "wss" + strings.TrimPrefix(fs.URL, "https") + "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x/exec"
	c, resp, err := d.Dial(u, http.Header{"Authorization": {"Bearer x"}})
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	for _, msg := range []string{"one", "two"} {
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.ReadMessage()
		if err != nil || string(got) != "echo:"+msg {
			t.Fatalf("read %q, %v", got, err)
		}
	}
	c.Close()
	got := b.received()[0]
	if got.Proto != "HTTP/1.1" {
		t.Errorf("upgrade reached the backend over %s, want HTTP/1.1", got.Proto)
	}
	for _, k := range []string{"Authorization", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Uri"} {
		if v, ok := got.Header[k]; ok {
			t.Errorf("backend received %s: %q", k, v)
		}
	}
	if got.Header.Get("X-Remote-User") != "kubernetes-admin" || got.Header.Get("Upgrade") != "websocket" ||
		got.Header.Get("X-Forwarded-For") != "127.0.0.1" {
		t.Errorf("backend headers %v", got.Header)
	}
	guard(t, m.called, "OnRequest after the upgraded connection closed")
	if last := m.last(t); last.code != http.StatusSwitchingProtocols {
		t.Errorf("OnRequest code %d, want 101", last.code)
	}
}

// TestUpgradeDialError: an upgrade that cannot connect answers upstream's
// `error dialing backend: <err>`.
func TestUpgradeDialError(t *testing.T) {
	b := newBackend(t, nil)
	h := newTestHandler(t, b, "127.0.0.1", Options{}, withCABundle(newCA(t, "other").pem))
	r := newRequest(flunderPath)
	r.Header.Set("Connection", "Upgrade")
	r.Header.Set("Upgrade", "websocket")
	w := serve(h, r, testUser())
	wantPlain(t, w, 503, "error dialing backend: tls: failed to verify certificate: x509: certificate signed by unknown authority\n")
}

// TestDo: the aggregator's own requests through the Handler carry what the
// captured background discovery request carried
// (aggregator-background-requests.json, GET /apis): no User-Agent, the
// identity, X-Forwarded-Host/Proto/Uri, and no X-Forwarded-For.
func TestDo(t *testing.T) {
	b := newBackend(t, nil)
	h := newTestHandler(t, b, "localhost", Options{})
	accept := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	req, _ := http.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", accept)
	resp, err := h.Do(context.Background(), req, &authentication.UserInfo{Username: "system:kube-aggregator", Groups: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	hostPort := "localhost:" + b.port()
	want := http.Header{
		"Accept":            {accept},
		"Accept-Encoding":   {"gzip"},
		"X-Forwarded-Host":  {hostPort},
		"X-Forwarded-Proto": {"https"},
		"X-Forwarded-Uri":   {"/apis"},
		"X-Remote-Group":    {"system:masters"},
		"X-Remote-User":     {"system:kube-aggregator"},
	}
	got := b.received()[0]
	if !reflect.DeepEqual(got.Header, want) || got.Host != hostPort || got.Proto != "HTTP/2.0" || got.ServerName != "api.wardle.svc" {
		t.Errorf("host %q proto %q SNI %q headers:\n%s", got.Host, got.Proto, got.ServerName, headerDiff(got.Header, want))
	}

	h.Update(target(func(t *Target) { t.Available = false }))
	if _, err := h.Do(context.Background(), req, testUser()); err != ErrServiceUnavailable {
		t.Errorf("unavailable: err = %v", err)
	}
	h.Close()
	if _, err := h.Do(context.Background(), req, testUser()); err != ErrNotProxied {
		t.Errorf("closed: err = %v", err)
	}
}

// TestProbeTransport: the availability probe transport does not verify
// the serving certificate (FINDINGS §2: wrong CA stays Available), still
// presents the client certificate, and sends SNI = the dialled host name,
// none for an IP.
func TestProbeTransport(t *testing.T) {
	p := testPKI(t)
	b := newBackend(t, nil, withServingCert(newCA(t, "stranger").issue(t, "x", false, "x.example")))
	tr := NewTransports(TransportOptions{GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return p.client, nil }})
	c := &http.Client{Transport: tr.ProbeTransport()}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		resp, err := c.Get("https://" + net.JoinHostPort(host, b.port()) + "/apis/wardle.example.com/v1alpha1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	rs := b.received()
	if len(rs) != 2 || rs[0].ServerName != "localhost" || rs[1].ServerName != "" || rs[0].ClientCN != "front-proxy-client" || rs[0].Proto != "HTTP/2.0" {
		t.Errorf("probe requests: %+v", rs)
	}
}

func TestIsDiscoveryPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/apis/g/v": true, "/apis/g/v/": true, "/apis/g": false, "/apis/g/v/r": false,
		"/api/v1/pods": false, "/apis": false, "/openapi/v3/apis": false,
	} {
		if got := isDiscoveryPath(p); got != want {
			t.Errorf("isDiscoveryPath(%q) = %v", p, got)
		}
	}
}

// brokenHijacker is a ResponseWriter whose Hijack succeeds with a
// connection every write to fails, as when the client went away just as
// the backend switched protocols.
type brokenHijacker struct {
	h    http.Header
	code int
}

func (w *brokenHijacker) Header() http.Header { return w.h }

func (w *brokenHijacker) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *brokenHijacker) Write(p []byte) (int, error) { return len(p), nil }

func (w *brokenHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, peer := net.Pipe()
	peer.Close()
	return c, bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c)), nil
}

// TestOnRequestCodeFailedSwitch: when the backend switches protocols but
// the 101 cannot be written to the hijacked client connection, OnRequest
// reports the code of the error answer the Handler then writes (503), not
// 101: the proxy's recorder counts what the Handler wrote, ignoring the
// hijack. (The chain's access log counts the hijack as the final 101; see
// aggregator's TestChainCodeAfterHijack.)
func TestOnRequestCodeFailedSwitch(t *testing.T) {
	m := metricSink{called: make(chan struct{})}
	b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		io.Copy(io.Discard, c)
	})
	h := newTestHandler(t, b, "127.0.0.1", Options{OnRequest: m.record})
	r := newRequest(flunderPath)
	r.Header.Set("Connection", "Upgrade")
	r.Header.Set("Upgrade", "websocket")
	w := &brokenHijacker{h: http.Header{}}
	h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), testUser())))
	got := m.last(t)
	if got.code != http.StatusServiceUnavailable || errText(got.err) != "response flush: io: read/write on closed pipe" {
		t.Errorf("OnRequest code %d err %v, want 503 and response flush: io: read/write on closed pipe", got.code, got.err)
	}
	if w.code != http.StatusServiceUnavailable {
		t.Errorf("writer got WriteHeader(%d), want 503", w.code)
	}
}

// TestDoRewritesLikeServeHTTP: Do applies the proxy's request rules to
// whatever the caller put in req: credentials, impersonation and spoofed
// identity or forwarding headers are dropped, the path is sent decoded
// with the query re-encoded (the pair with a ";" dropped), user info and fragment are dropped, and a
// RemoteAddr set on req adds no X-Forwarded-For.
func TestDoRewritesLikeServeHTTP(t *testing.T) {
	b := newBackend(t, nil)
	h := newTestHandler(t, b, "localhost", Options{})
	req, err := http.NewRequest(http.MethodGet, "https://who:pw@elsewhere.example/apis/wardle.example.com/v1alpha1/a%2Fb?z=1&a=2;x#frag", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.RemoteAddr = "192.0.2.7:5555"
	req.Header = http.Header{
		"Authorization":     {"Bearer secret"},
		"Impersonate-User":  {"root"},
		"X-Remote-User":     {"evil"},
		"X-Remote-Extra-A":  {"b"},
		"X-Forwarded-For":   {"192.0.2.99"},
		"X-Forwarded-Host":  {"spoofed.example"},
		"X-Forwarded-Uri":   {"/elsewhere"},
		"User-Agent":        {"aggsim-test"},
		"Accept":            {"application/json"},
		"x-remote-group":    {"lower-case spoof"},
		"impersonate-extra": {"lower-case spoof"},
	}
	resp, err := h.Do(context.Background(), req, &authentication.UserInfo{Username: "system:kube-aggregator", Groups: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	hostPort := "localhost:" + b.port()
	want := http.Header{
		"Accept":            {"application/json"},
		"Accept-Encoding":   {"gzip"},
		"User-Agent":        {"aggsim-test"},
		"X-Forwarded-Host":  {hostPort},
		"X-Forwarded-Proto": {"https"},
		"X-Forwarded-Uri":   {"/apis/wardle.example.com/v1alpha1/a/b"},
		"X-Remote-Group":    {"system:masters"},
		"X-Remote-User":     {"system:kube-aggregator"},
	}
	got := b.received()[0]
	if !reflect.DeepEqual(got.Header, want) || got.Host != hostPort || got.Path != "/apis/wardle.example.com/v1alpha1/a/b" || got.Query != "z=1" {
		t.Errorf("host %q path %q query %q headers:\n%s", got.Host, got.Path, got.Query, headerDiff(got.Header, want))
	}
	if req.URL.Host != "elsewhere.example" || req.Header.Get("Authorization") != "Bearer secret" {
		t.Errorf("Do changed the caller's request: %v %v", req.URL, req.Header)
	}
}
