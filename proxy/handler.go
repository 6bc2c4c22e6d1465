package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// flushInterval is how often a response with a known length is flushed
// to the client while its body is copied: upstream's defaultFlushInterval
// (apimachinery/pkg/util/proxy/upgradeaware.go), which kube-aggregator's
// proxy keeps. Responses without a length (watches, chunked streams) and
// text/event-stream ones are flushed after every write regardless
// (httputil.ReverseProxy), so watch events are not delayed. A 1 KiB
// answer is thus sent in one go with its end of stream instead of being
// flushed and then ended.
const flushInterval = 200 * time.Millisecond

// discoveryPathTimeout bounds a proxied GET of /apis/<group>/<version>
// (a non-resource path of exactly three segments), as upstream's
// NewRequestForProxy does (apiserver/pkg/util/proxy/proxy.go).
const discoveryPathTimeout = 5 * time.Second

// Options configures a Handler. A zero field means the default stated on
// it. Options holds no state, so one value may build every Handler.
type Options struct {
	// Resolver maps spec.service to a backend URL on every request. nil
	// means the cluster DNS name https://<name>.<namespace>.svc:<port>.
	Resolver ServiceResolver
	// Transports is the shared backend transport cache. nil means the
	// Handler gets a cache of its own built from GetClientCertificate;
	// give every Handler the same Transports so APIServices with equal TLS
	// settings share connections.
	Transports *Transports
	// GetClientCertificate is the front-proxy client certificate source,
	// used only when Transports is nil (see TransportOptions).
	GetClientCertificate func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
	// Logger receives resolve and proxy errors. nil discards them.
	Logger *slog.Logger
	// ModifyResponse, when set, runs on every backend response after the
	// Handler's own processing (CORS headers removed, redirects rejected,
	// Location rewritten). It may change the response; an error goes to
	// ErrorHandler. It must not touch the request.
	ModifyResponse func(*http.Response) error
	// ErrorHandler, when set, answers every transport error (dial, TLS,
	// backend reset, ModifyResponse error) instead of the default 503
	// text/plain `error trying to reach service: <err>` (upgrade requests
	// that never connected: `error dialing backend: <err>`). It does not
	// see the Handler's own refusals (unavailable, missing user, resolve
	// failure).
	ErrorHandler func(http.ResponseWriter, *http.Request, error)
	// InterceptError, when set, runs first on every transport error (before
	// ErrorHandler or the default answer); returning true means it wrote
	// the answer. The aggregator uses it to answer a request whose own
	// deadline passed with the timeout filter's 504 Status.
	InterceptError func(http.ResponseWriter, *http.Request, error) bool
	// OnRequest, when set, is called once per ServeHTTP after the response
	// is done, with the APIService name ("" when the Handler has no
	// target), the status code sent (101 for a completed upgrade, 200 when
	// the handler wrote nothing), the time spent, and the error that ended
	// the request if any (*DialError, a resolve error, ...). It is the
	// metrics hook; it must be fast and safe for concurrent use.
	OnRequest func(apiService string, code int, dur time.Duration, err error)
	// AllowForwardingRedirects passes backend 3xx responses that carry a
	// Location through to the client (upstream standalone). false, the
	// kube-apiserver default (--aggregator-reject-forwarding-redirect=true),
	// turns them into 502 `the backend attempted to redirect this request,
	// which is not permitted`.
	AllowForwardingRedirects bool
	// RecordHops makes the Handler fill the *Hop a request's context
	// answers for HopKey{} (the inspector); false: it never looks.
	RecordHops bool
}

// ServiceRef is an APIService's spec.service.
type ServiceRef struct {
	Namespace, Name string
	// Port is spec.service.port (defaulted to 443 by the registry).
	Port int32
}

// Target is what a Handler needs to know about its APIService. The
// aggregator builds it from the APIService and its Available condition.
type Target struct {
	// APIServiceName is metadata.name, <version>.<group>.
	APIServiceName string
	// Group and Version are spec.group and spec.version.
	Group, Version string
	// Service is spec.service; nil for a local APIService, which the
	// Handler does not serve (404).
	Service *ServiceRef
	// CABundle is spec.caBundle (PEM).
	CABundle []byte
	// InsecureSkipTLSVerify is spec.insecureSkipTLSVerify.
	InsecureSkipTLSVerify bool
	// Available is true when the Available condition is True; otherwise
	// every request is answered 503 `service unavailable`.
	Available bool
}

// Handler proxies requests for one remote APIService, mirroring
// proxyHandler in kube-aggregator/pkg/apiserver/handler_proxy.go. Its
// state is an immutable snapshot built by Update and swapped atomically,
// so ServeHTTP never takes a lock. A snapshot that failed to build (a
// caBundle that is not PEM) keeps its error and answers it on every
// request; Update itself never fails. Do not copy a Handler.
type Handler struct {
	resolver  ServiceResolver
	tr        *Transports
	log       *slog.Logger
	errLog    *log.Logger
	modify    func(*http.Response) error
	onError   func(http.ResponseWriter, *http.Request, error)
	intercept func(http.ResponseWriter, *http.Request, error) bool
	onRequest func(string, int, time.Duration, error)
	redirects bool
	record    bool // Options.RecordHops
	buffers   bufferPool
	// viaReverseProxy sends every request through httputil.ReverseProxy
	// instead of forward (tests compare the two).
	viaReverseProxy bool

	cur atomic.Pointer[backend]
}

// backend is one immutable snapshot of a Handler's state.
type backend struct {
	target Target
	// gen is the Transports generation entry was acquired in; a newer
	// generation means the client certificate changed and entry is stale.
	gen   uint64
	entry *transportEntry // nil when target.Service is nil or err != nil
	err   error           // transport build error, answered with 500
	// serverName is <service>.<namespace>.svc, the name the backend's
	// certificate is verified for ("" without target.Service); built once
	// per snapshot for the inspector's record.
	serverName string
	// rp streams requests over entry; built with the snapshot, nil when
	// entry is. Its hooks find the per-request state through the request
	// context (see proxyCall), so one value serves every request.
	rp *httputil.ReverseProxy
}

// NewHandler returns a Handler with no target: it answers 404 until
// Update is called.
func NewHandler(opts Options) *Handler {
	h := &Handler{
		resolver:  opts.Resolver,
		tr:        opts.Transports,
		log:       opts.Logger,
		modify:    opts.ModifyResponse,
		onError:   opts.ErrorHandler,
		intercept: opts.InterceptError,
		onRequest: opts.OnRequest,
		redirects: opts.AllowForwardingRedirects,
		record:    opts.RecordHops,
	}
	if h.resolver == nil {
		h.resolver = ResolverFunc(serviceDNSResolver)
	}
	if h.tr == nil {
		h.tr = NewTransports(TransportOptions{GetClientCertificate: opts.GetClientCertificate})
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.errLog = slog.NewLogLogger(h.log.Handler(), slog.LevelWarn)
	return h
}

// Update replaces the Handler's target. The new snapshot (transport,
// ServerName <service>.<namespace>.svc) is built first and then swapped
// in whole; requests already running finish with the old one. A transport
// build error is kept and answered on each request.
func (h *Handler) Update(t Target) {
	nb := h.build(t)
	h.release(h.cur.Swap(nb))
}

// Close drops the Handler's target and gives back its transport; the
// Handler answers 404 afterwards until the next Update. Call it when the
// APIService is removed.
func (h *Handler) Close() {
	h.release(h.cur.Swap(nil))
}

// Target returns a copy of the current target and whether there is one.
func (h *Handler) Target() (Target, bool) {
	b := h.cur.Load()
	if b == nil {
		return Target{}, false
	}
	return copyTarget(b.target), true
}

func copyTarget(t Target) Target {
	if t.Service != nil {
		s := *t.Service
		t.Service = &s
	}
	if t.CABundle != nil {
		t.CABundle = append([]byte(nil), t.CABundle...)
	}
	return t
}

func (h *Handler) build(t Target) *backend {
	t = copyTarget(t)
	// Read the generation before acquiring, so a concurrent
	// CloseIdleConnections leaves this snapshot stale rather than current.
	b := &backend{target: t, gen: h.tr.generation()}
	if t.Service == nil {
		return b
	}
	b.serverName = t.Service.Name + "." + t.Service.Namespace + ".svc"
	b.entry, b.err = h.tr.acquire(TLSConfig{
		CABundle:   t.CABundle,
		ServerName: b.serverName,
		Insecure:   t.InsecureSkipTLSVerify,
	})
	if b.entry != nil {
		b.rp = &httputil.ReverseProxy{
			Rewrite:        h.rewrite,
			Transport:      b.entry.rt,
			FlushInterval:  flushInterval,
			BufferPool:     &h.buffers,
			ErrorLog:       h.errLog,
			ModifyResponse: h.modifyResponse,
			ErrorHandler:   h.errorHandler,
		}
	}
	return b
}

func (h *Handler) release(b *backend) {
	if b != nil && b.entry != nil {
		h.tr.release(b.entry)
	}
}

// current returns the snapshot to serve with, rebuilding it first when
// the transports were dropped since it was built.
func (h *Handler) current() *backend {
	b := h.cur.Load()
	if b == nil || b.gen == h.tr.generation() {
		return b
	}
	nb := h.build(b.target)
	if h.cur.CompareAndSwap(b, nb) {
		h.release(b)
		return nb
	}
	h.release(nb)
	return h.cur.Load()
}

// ServeHTTP proxies r to the backend, following upstream's order:
// no target or a local APIService → 404; not Available → 503
// `service unavailable`; transport build error → 500 with its message;
// no user in the context → 500 `missing user`; service resolution fails →
// 503 `service unavailable` (the error is logged); otherwise the request
// is rewritten and streamed through httputil.ReverseProxy, and a
// transport error becomes 503 `error trying to reach service: <err>`.
// All refusals are text/plain with X-Content-Type-Options: nosniff.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// One allocation carries all per-request state: the call is the
	// outgoing context and, with OnRequest, its recorder is the writer.
	c := &proxyCall{Context: r.Context()}
	if h.onRequest == nil {
		h.serve(w, r, c)
		return
	}
	start := time.Now()
	// Behind the aggregator's chain w already is a StatusRecorder that has
	// seen no write yet: read its WrittenCode instead of wrapping w again.
	rec, ok := w.(*request.StatusRecorder)
	if !ok || rec.WrittenCode() != 0 {
		c.rec.ResponseWriter = w
		rec = &c.rec
	}
	b := h.serve(rec, r, c)
	code := rec.WrittenCode()
	if code == 0 {
		code = http.StatusOK
		if c.upgraded {
			code = http.StatusSwitchingProtocols
		}
	}
	name := ""
	if b != nil {
		name = b.target.APIServiceName
	}
	h.onRequest(name, code, time.Since(start), c.err)
}

// serve does the work of ServeHTTP with c as the request's per-call state
// and returns the snapshot it used.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, c *proxyCall) *backend {
	b := h.current()
	if b == nil || b.target.Service == nil {
		http.NotFound(w, r)
		return b
	}
	if h.record {
		if c.hop = hopFrom(r.Context()); c.hop != nil {
			c.hop.APIService, c.hop.Available = b.target.APIServiceName, b.target.Available
			c.hop.ServerName = b.serverName
		}
	}
	if !b.target.Available {
		http.Error(w, msgServiceUnavailable, http.StatusServiceUnavailable)
		return b
	}
	if b.err != nil {
		c.setErr(b.err)
		http.Error(w, b.err.Error(), http.StatusInternalServerError)
		return b
	}
	user, ok := request.UserFrom(r.Context())
	if !ok {
		http.Error(w, msgMissingUser, http.StatusInternalServerError)
		return b
	}
	svc := b.target.Service
	host, err := resolveHost(h.resolver, svc)
	if err != nil {
		c.setErr(err)
		h.log.Error("error resolving service", "apiservice", b.target.APIServiceName,
			"namespace", svc.Namespace, "name", svc.Name, "err", err)
		http.Error(w, msgServiceUnavailable, http.StatusServiceUnavailable)
		return b
	}
	if isDiscoveryPath(r.URL.Path) {
		ctx, cancel := context.WithTimeout(c.Context, discoveryPathTimeout)
		defer cancel()
		c.Context = ctx
	}
	c.host, c.user = host, user
	if c.hop != nil {
		c.hop.Address = host
	}
	if forwardable(r) && !h.viaReverseProxy {
		h.forward(w, r, b, c)
	} else {
		b.rp.ServeHTTP(w, r.WithContext(c))
	}
	return b
}

// Do sends req to the backend as user, the way a client request would be
// proxied (decoded path, sorted query, identity and X-Forwarded-Host/
// Proto/Uri headers, no User-Agent unless req has one), through the
// Handler's verifying transport. It is for the aggregator's own calls
// (discovery and OpenAPI fetches, which upstream routes through the proxy
// handler). Only req's method, URL path and query, headers and body are
// used; ctx bounds the whole exchange, so callers set their own timeout.
// It does not follow redirects or touch the response.
//
// Errors: ErrNotProxied (no target or a local APIService),
// ErrServiceUnavailable (not Available), the transport build error, the
// resolver's typed error, or the transport error (*DialError when no
// connection was made). A nil user is an error (upstream's `missing user`).
func (h *Handler) Do(ctx context.Context, req *http.Request, user *authentication.UserInfo) (*http.Response, error) {
	b := h.current()
	switch {
	case b == nil || b.target.Service == nil:
		return nil, ErrNotProxied
	case !b.target.Available:
		return nil, ErrServiceUnavailable
	case b.err != nil:
		return nil, b.err
	case user == nil:
		return nil, errors.New(msgMissingUser)
	}
	svc := b.target.Service
	loc, err := h.resolver.ResolveEndpoint(svc.Namespace, svc.Name, svc.Port)
	if err != nil {
		return nil, err
	}
	out := req.Clone(ctx)
	out.RequestURI = ""
	// No client address: the aggregator's own requests carry no
	// X-Forwarded-For.
	out.RemoteAddr = ""
	rewriteRequest(out, out, loc.Host, user)
	return b.entry.rt.RoundTrip(out)
}

// isDiscoveryPath reports whether p is /apis/<group>/<version> with or
// without a trailing slash.
func isDiscoveryPath(p string) bool {
	t := strings.Trim(p, "/")
	return strings.HasPrefix(t, "apis/") && strings.Count(t, "/") == 2
}

// proxyCall is the state of one proxied request that the shared
// ReverseProxy's hooks need. It is the outgoing request's context: it
// wraps the inbound context (plus the discovery-path deadline) and answers
// Value(callKey{}) with itself, so Rewrite, ModifyResponse and
// ErrorHandler reach it from the request they are given (ReverseProxy
// derives the outbound request's context from it). Only the serving
// goroutine writes its fields; host and user are set before the
// ReverseProxy runs and are not changed afterwards.
type proxyCall struct {
	context.Context
	host     string // dialled host:port
	user     *authentication.UserInfo
	err      error // first error that ended the request
	upgraded bool  // the backend answered 101
	hop      *Hop  // the inspector's record (Options.RecordHops), or nil
	// url and vals are the outgoing request's URL and single-valued
	// header values on forward's path (one allocation with the call
	// instead of their own).
	url  url.URL
	vals [headerVals]string
	// rec is the writer handed to the ReverseProxy when Options.OnRequest
	// is set and the incoming writer is not already a fresh
	// request.StatusRecorder (unused otherwise). OnRequest gets the code the Handler wrote
	// (WrittenCode), not 101 for a hijack: a protocol switch that fails
	// after the hijack reports the error answer's 503.
	rec request.StatusRecorder
}

// callKey is the context key under which a proxyCall answers itself.
type callKey struct{}

// Value returns c for callKey and delegates every other key.
func (c *proxyCall) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// setErr records err unless an earlier error was recorded.
func (c *proxyCall) setErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

// callFrom returns the proxyCall that ctx descends from. Every request the
// shared ReverseProxy sees does, so a missing one is a programming error.
func callFrom(ctx context.Context) *proxyCall {
	return ctx.Value(callKey{}).(*proxyCall)
}

// rewrite turns the inbound request into the backend request. It runs
// inside httputil.ReverseProxy after hop-by-hop and client X-Forwarded-*
// headers are gone and before any other hook.
func (h *Handler) rewrite(pr *httputil.ProxyRequest) {
	c := callFrom(pr.In.Context())
	rewriteRequest(pr.Out, pr.In, c.host, c.user)
	c.recordRequest(pr.Out.Header)
}

// rewriteRequest makes out, a copy of in, the request to send to the
// backend at host (host:port) as user; both ServeHTTP (through rewrite)
// and Do use it, so these rules exist once:
//   - the URL is https://host + in's decoded path (no raw path, user
//     info, opaque part or fragment) + in's query re-encoded (encodeQuery),
//     and the Host header is host;
//   - SetIdentityHeaders(user): no Authorization, Impersonate-* or
//     client X-Remote-* header survives, the identity headers are set;
//   - setForwardedHeaders: X-Forwarded-For from in's client address (none
//     when in.RemoteAddr is empty), X-Forwarded-Host/Proto/Uri except on
//     an upgrade;
//   - no User-Agent unless the client sent one (Go's default is
//     suppressed, as httputil.ReverseProxy does after Rewrite).
//
// out and in may be the same request: everything read from in is read
// before out is changed.
func rewriteRequest(out, in *http.Request, host string, user *authentication.UserInfo) {
	rewriteRequestHeader(out, in, host, user, false, nil)
}

// rewriteRequestHeader is rewriteRequest; with stripped set out's header
// is known to hold no credential field (forwardHeader dropped them), so
// the identity fields are set without looking for them first. vals, when
// not nil, is room for the single-valued fields (headerVals strings) that
// out then keeps: the caller's per-request state instead of allocations.
func rewriteRequestHeader(out, in *http.Request, host string, user *authentication.UserInfo, stripped bool, vals *[headerVals]string) {
	if vals == nil {
		vals = new([headerVals]string)
	}
	p, query := in.URL.Path, encodeQuery(in.URL.RawQuery)
	u := out.URL
	u.Scheme = "https"
	u.Opaque = ""
	u.User = nil
	u.Host = host
	u.Path = p
	u.RawPath = ""
	u.OmitHost = false
	u.ForceQuery = false
	u.RawQuery = query
	u.Fragment = ""
	u.RawFragment = ""
	out.Host = host
	if out.Header == nil {
		out.Header = http.Header{}
	}
	if !stripped {
		stripCredentials(out.Header)
	}
	setIdentity(out.Header, user, vals[0:2:2])
	setForwardedHeaders(out.Header, in, host, p, isUpgrade(out.Header), vals[2:6:6])
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = []string{""} // suppress Go's default
	}
}

// modifyResponse removes CORS headers, rejects or rewrites redirects and
// then runs Options.ModifyResponse.
func (h *Handler) modifyResponse(resp *http.Response) error {
	c := callFrom(resp.Request.Context())
	if resp.StatusCode == http.StatusSwitchingProtocols {
		c.upgraded = true
	} else {
		for _, k := range corsHeaders {
			delete(resp.Header, k)
		}
		if loc := resp.Header.Get("Location"); loc != "" {
			if !h.redirects && resp.StatusCode >= 300 && resp.StatusCode < 400 {
				rejectRedirect(resp)
			} else {
				resp.Header.Set("Location", rewriteLocation(loc, c.host))
			}
		}
	}
	if h.modify != nil {
		if err := h.modify(resp); err != nil {
			return err
		}
	}
	c.recordResponse(resp)
	return nil
}

// rejectRedirect replaces resp with upstream's 502 redirect refusal.
func rejectRedirect(resp *http.Response) {
	resp.Body.Close()
	*resp = http.Response{
		Status:        "502 Bad Gateway",
		StatusCode:    http.StatusBadGateway,
		Proto:         resp.Proto,
		ProtoMajor:    resp.ProtoMajor,
		ProtoMinor:    resp.ProtoMinor,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(msgRedirectRejected)),
		ContentLength: int64(len(msgRedirectRejected)),
		Request:       resp.Request,
	}
}

// errorHandler answers a transport error (upstream's responder.Error in
// handler_proxy.go: every error is a 503).
func (h *Handler) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	c := callFrom(r.Context())
	c.setErr(err)
	if c.hop != nil && c.hop.Err == "" {
		c.hop.Err = err.Error()
	}
	if h.intercept != nil && h.intercept(w, r, err) {
		return
	}
	if h.onError != nil {
		h.onError(w, r, err)
		return
	}
	if !errors.Is(err, context.Canceled) {
		h.log.Info("error proxying request", "host", c.host, "path", r.URL.Path, "err", err)
	}
	var de *DialError
	if isUpgrade(r.Header) && errors.As(err, &de) {
		http.Error(w, msgDialBackendPrefix+err.Error(), http.StatusServiceUnavailable)
		return
	}
	http.Error(w, msgReachPrefix+err.Error(), http.StatusServiceUnavailable)
}

// copyBufferSize is the size of the ReverseProxy copy buffers, in bytes.
const copyBufferSize = 32 << 10

// bufferPool recycles the 32 KiB copy buffers of httputil.ReverseProxy.
// It pools array pointers, so Put converts the slice back to its array
// instead of allocating a new pointer for it.
type bufferPool struct{ p sync.Pool }

// Get returns a pooled 32 KiB buffer or a new one.
func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[copyBufferSize]byte); ok {
		return v[:]
	}
	return new([copyBufferSize]byte)[:]
}

// Put returns buf to the pool; a buffer of another size is dropped.
func (b *bufferPool) Put(buf []byte) {
	if cap(buf) != copyBufferSize {
		return
	}
	b.p.Put((*[copyBufferSize]byte)(buf[:copyBufferSize]))
}

var (
	_ http.Handler        = (*Handler)(nil)
	_ httputil.BufferPool = (*bufferPool)(nil)
	_ ServiceResolver     = ResolverFunc(serviceDNSResolver)
)

// The front-proxy (requestheader) identity headers a backend trusts when
// the request comes with the front-proxy client certificate
// (client-go/transport/round_trippers.go SetAuthProxyHeaders).
const (
	HeaderRemoteUser        = "X-Remote-User"
	HeaderRemoteUID         = "X-Remote-Uid"
	HeaderRemoteGroup       = "X-Remote-Group"
	HeaderRemoteExtraPrefix = "X-Remote-Extra-"
)

// SetIdentityHeaders makes h carry exactly u's identity and no client
// credential: it deletes Authorization, every Impersonate-* header and
// every X-Remote-* header (whatever their case), then sets X-Remote-User
// (even when the name is empty, as upstream does), X-Remote-Uid when u has
// a UID, one X-Remote-Group field per group in order, and one
// X-Remote-Extra-<escaped key> field per extra value (keys in sorted
// order; see ExtraHeaderName for the escaping). A nil u only strips.
func SetIdentityHeaders(h http.Header, u *authentication.UserInfo) {
	stripCredentials(h)
	setIdentity(h, u, nil)
}

// stripCredentials deletes every field isCredentialField names from h.
func stripCredentials(h http.Header) {
	for k := range h {
		if isCredentialField(k) {
			delete(h, k)
		}
	}
}

// headerVals is how many single-valued fields rewriteRequestHeader sets
// at most: X-Remote-User and X-Remote-Uid (setIdentity), X-Forwarded-For,
// -Uri, -Host and -Proto (setForwardedHeaders).
const headerVals = 6

// isCredentialField reports whether the field k is one SetIdentityHeaders
// strips: Authorization, Impersonate-* or X-Remote-*, in any case.
func isCredentialField(k string) bool {
	return hasPrefixFold(k, "X-Remote-") || hasPrefixFold(k, "Impersonate-") || strings.EqualFold(k, "Authorization")
}

// setIdentity is SetIdentityHeaders after the strip: it sets u's identity
// fields on h, which carries no credential field (nil u: nothing). vals
// (2 strings, or nil to allocate them) backs X-Remote-User and
// X-Remote-Uid.
func setIdentity(h http.Header, u *authentication.UserInfo, vals []string) {
	if u == nil {
		return
	}
	// X-Remote-User and X-Remote-Uid share one backing array; the
	// three-index slices keep an append to one from reaching the other.
	if vals == nil {
		vals = make([]string, 2)
	}
	vals[0], vals[1] = u.Username, u.UID
	h[HeaderRemoteUser] = vals[0:1:1]
	if u.UID != "" {
		h[HeaderRemoteUID] = vals[1:2:2]
	}
	if n := len(u.Groups); n > 0 {
		// Shared with the user, which nobody changes once authenticated;
		// the full slice expression makes an append copy.
		h[HeaderRemoteGroup] = u.Groups[:n:n]
	}
	switch len(u.Extra) {
	case 0:
	case 1: // the common case (the x509 credential id): nothing to sort
		for k, v := range u.Extra {
			setExtraHeader(h, k, v)
		}
	default:
		// Sorted, so that keys whose header names fold together append in
		// a fixed order.
		keys := make([]string, 0, len(u.Extra))
		for k := range u.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			setExtraHeader(h, k, u.Extra[k])
		}
	}
}

// setExtraHeader adds the values of the extra key to h.
func setExtraHeader(h http.Header, key string, values []string) {
	if len(values) == 0 {
		return
	}
	name := cachedExtraHeaderName(key)
	if prev, ok := h[name]; ok {
		h[name] = append(prev[:len(prev):len(prev)], values...)
		return
	}
	// Shared with the user, which nobody changes once authenticated; the
	// full slice expression makes an append copy.
	h[name] = values[:len(values):len(values)]
}

// extraHeaderNames memoises ExtraHeaderName for the few extra keys users
// carry (the credential id above all), so that the proxy does not escape
// and canonicalise the same key on every request; at most
// maxExtraHeaderNames keys are kept, since extra keys can come from clients
// (impersonation, front-proxy headers).
var (
	extraHeaderNames     sync.Map // key → header name
	extraHeaderNameCount atomic.Int32
)

const maxExtraHeaderNames = 256

func cachedExtraHeaderName(key string) string {
	if v, ok := extraHeaderNames.Load(key); ok {
		return v.(string)
	}
	name := ExtraHeaderName(key)
	if extraHeaderNameCount.Load() < maxExtraHeaderNames {
		if _, loaded := extraHeaderNames.LoadOrStore(key, name); !loaded {
			extraHeaderNameCount.Add(1)
		}
	}
	return name
}

// ExtraHeaderName returns the canonical header name that carries the user
// extra key: "X-Remote-Extra-" + the key with every byte that is not an
// RFC 7230 token character, and '%' itself, written as %XX (upper-case
// hex), then put in Go's canonical form, which lower-cases letters not
// following '-' (so "/" ends up as "%2f"):
// "authentication.kubernetes.io/credential-id" →
// "X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id".
// Mirrors headerKeyEscape in client-go/transport/round_trippers.go.
func ExtraHeaderName(key string) string {
	var b strings.Builder
	b.Grow(len(HeaderRemoteExtraPrefix) + len(key) + 8)
	b.WriteString(HeaderRemoteExtraPrefix)
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '%' || !isTokenByte(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return http.CanonicalHeaderKey(b.String())
}

// isTokenByte reports whether c is an RFC 7230 tchar.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// setForwardedHeaders sets the X-Forwarded-* headers upstream's proxy sends
// (apimachinery/pkg/util/proxy/transport.go and httputil):
// X-Forwarded-For = client-sent values + the client IP; and, except on an
// upgrade request, X-Forwarded-Host = the dialled host:port,
// X-Forwarded-Proto = https and X-Forwarded-Uri = the cleaned, escaped
// target path. Client-sent X-Forwarded-Host/Proto/Uri never survive.
//
// vals (4 strings) backs the single values.
func setForwardedHeaders(out http.Header, in *http.Request, host, targetPath string, upgrade bool, vals []string) {
	// The single values share one backing array (the caller's); the
	// three-index slices keep an append to one header from reaching the
	// next.
	if ip, _, err := net.SplitHostPort(in.RemoteAddr); err == nil {
		if prior := in.Header["X-Forwarded-For"]; len(prior) > 0 {
			ip = strings.Join(prior, ", ") + ", " + ip
		}
		vals[0] = ip
		out["X-Forwarded-For"] = vals[0:1:1]
	} else {
		delete(out, "X-Forwarded-For")
	}
	delete(out, "X-Forwarded-Uri")
	if upgrade {
		delete(out, "X-Forwarded-Host")
		delete(out, "X-Forwarded-Proto")
		return
	}
	vals[1], vals[2], vals[3] = forwardedURI(targetPath), host, "https"
	out["X-Forwarded-Uri"] = vals[1:2:2]
	out["X-Forwarded-Host"] = vals[2:3:3]
	out["X-Forwarded-Proto"] = vals[3:4:4]
}

// forwardedURI returns the X-Forwarded-Uri value for a decoded path: the
// escaped path, cleaned, with a trailing '/' kept (upstream joins it with
// path.Join, so "/" becomes "//").
func forwardedURI(p string) string {
	u := url.URL{Path: p}
	s := u.EscapedPath()
	if s != "" {
		s = path.Clean(s) // path.Join("", s) without its copies
	}
	if strings.HasSuffix(p, "/") {
		s += "/"
	}
	return s
}

// encodeQuery re-encodes a raw query as upstream forwards it: parsed and
// re-encoded with sorted keys and form encoding; pairs Go's parser rejects
// (such as ones containing ';') are dropped (FINDINGS §3, c10).
func encodeQuery(raw string) string {
	if raw == "" {
		return ""
	}
	v, _ := url.ParseQuery(raw)
	return v.Encode()
}

// corsHeaders are removed from backend responses
// (apimachinery/pkg/util/proxy/transport.go corsRemovingTransport).
var corsHeaders = [...]string{
	"Access-Control-Allow-Credentials",
	"Access-Control-Allow-Headers",
	"Access-Control-Allow-Methods",
	"Access-Control-Allow-Origin",
}

// rewriteLocation returns the Location value upstream sends on: an
// absolute path with no host, or a URL on the backend's own host, is
// pointed at https://<backend host><path>; other hosts, relative references
// and unparsable values are left alone.
func rewriteLocation(loc, backendHost string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	if u.Host != "" && u.Host != backendHost {
		return loc
	}
	if !strings.HasPrefix(u.Path, "/") {
		return loc
	}
	u.Scheme = "https"
	u.Host = backendHost
	return u.String()
}
