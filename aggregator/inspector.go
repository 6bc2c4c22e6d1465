package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"maps"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// DefaultInspectorRingSize is how many requests the inspector keeps when
// Options.InspectorRingSize is not set by `aggsim serve`'s flag.
const DefaultInspectorRingSize = 500

// InspectedUser is a user as the inspector shows it.
type InspectedUser struct {
	Username string              `json:"username"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// InspectedCertificate is a client or serving certificate, by name only.
type InspectedCertificate struct {
	Subject string `json:"subject"`
	Issuer  string `json:"issuer,omitempty"`
}

// InspectedClient is what the client sent: its connection and its header
// (secrets redacted, see redactHeader).
type InspectedClient struct {
	RemoteAddr string `json:"remoteAddr,omitempty"`
	Protocol   string `json:"protocol,omitempty"`
	// Certificate is the client certificate the client presented, nil
	// without one.
	Certificate *InspectedCertificate `json:"certificate,omitempty"`
	// Header is the request header as the chain received it, plus the
	// Audit-Id aggsim gave a request that came without one.
	Header http.Header `json:"header"`
}

// InspectedAuthentication is who aggsim decided the caller is and how.
type InspectedAuthentication struct {
	// Method is how the user was authenticated: "x509 client certificate",
	// "bearer token", "ServiceAccount token", "front-proxy headers",
	// "anonymous", "in-process" (aggsim's own controllers) or "" when
	// authentication failed (Result then says so).
	Method string `json:"method,omitempty"`
	// User is the authenticated user; nil when authentication failed.
	User *InspectedUser `json:"user,omitempty"`
}

// InspectedImpersonation is present when the request asked to impersonate.
type InspectedImpersonation struct {
	// Requested are the Impersonate-* headers the client sent.
	Requested http.Header `json:"requested"`
	// User is the user the request ran as; nil when impersonation was
	// refused.
	User *InspectedUser `json:"user,omitempty"`
}

// InspectedAuthorization is the authorizer's decision for the request's
// attributes (as the effective user).
type InspectedAuthorization struct {
	// Decision is the authorizer's: "Allow", "Deny" or "NoOpinion" (which
	// is refused).
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// InspectedRoute is where the request went.
type InspectedRoute struct {
	// Kind is "local" (aggsim served it) or "proxied".
	Kind string `json:"kind"`
	// The fields below are set for proxied requests (see proxy.Hop).
	APIService string `json:"apiService,omitempty"`
	Available  bool   `json:"available,omitempty"`
	Address    string `json:"address,omitempty"`
	ServerName string `json:"serverName,omitempty"`
	// ClientCertificate is the front-proxy client certificate aggsim
	// presents to backends.
	ClientCertificate *InspectedCertificate `json:"clientCertificate,omitempty"`
	// BackendCertificate is the subject of the certificate the backend
	// presented.
	BackendCertificate string `json:"backendCertificate,omitempty"`
	// RemovedHeaders are the client's header fields not passed on:
	// credentials, Impersonate-*, client-sent X-Remote-*, hop-by-hop and
	// client X-Forwarded-*.
	RemovedHeaders []string `json:"removedHeaders,omitempty"`
	// SentHeader is the header sent to the backend.
	SentHeader http.Header `json:"sentHeader,omitempty"`
	// BackendCode and ResponseHeader are the backend's answer.
	BackendCode    int         `json:"backendCode,omitempty"`
	ResponseHeader http.Header `json:"responseHeader,omitempty"`
	// Error is the transport error that ended the exchange.
	Error string `json:"error,omitempty"`
}

// InspectedRequest is one request as the inspector recorded it: one entry
// of the ring GET /debug/aggsim/requests lists. It is recorded when the
// request ends (a watch when it closes). Once recorded it is never changed.
type InspectedRequest struct {
	// ID increases by one per recorded request, from 1.
	ID      uint64    `json:"id"`
	AuditID string    `json:"auditID"`
	Time    time.Time `json:"time"`
	Method  string    `json:"method"`
	// Verb is the Kubernetes verb (RequestInfo): get, list, watch, ...
	Verb string `json:"verb"`
	Path string `json:"path"`
	// Query is the raw query with secret-looking parameters redacted.
	Query string `json:"query,omitempty"`
	// GroupVersion is "<group>/<version>" ("v1" for the core group) of a
	// resource or API path; empty for other paths.
	GroupVersion   string                  `json:"groupVersion,omitempty"`
	Client         InspectedClient         `json:"client"`
	Authentication InspectedAuthentication `json:"authentication"`
	Impersonation  *InspectedImpersonation `json:"impersonation,omitempty"`
	Authorization  *InspectedAuthorization `json:"authorization,omitempty"`
	// StoppedAt names the step that refused the request:
	// "authentication", "impersonation" or "authorization"; empty when the
	// request reached its handler.
	StoppedAt string         `json:"stoppedAt,omitempty"`
	Route     InspectedRoute `json:"route"`
	// Code is the status code sent to the client.
	Code int `json:"code"`
	// LatencyMicros is the time in the chain, in microseconds.
	LatencyMicros int64 `json:"latencyMicros"`
}

// EffectiveUser is the user the request ran as (impersonated or
// authenticated); "" when authentication failed.
func (r *InspectedRequest) EffectiveUser() string {
	if r.Impersonation != nil && r.Impersonation.User != nil {
		return r.Impersonation.User.Username
	}
	if r.Authentication.User != nil {
		return r.Authentication.User.Username
	}
	return ""
}

// RequestFilter selects recorded requests; a zero field matches all.
type RequestFilter struct {
	// User matches the effective or the authenticated user name exactly.
	User string
	// GroupVersion matches InspectedRequest.GroupVersion exactly, or its
	// group when it has no '/'.
	GroupVersion string
	// Code is an exact code ("403") or a class ("4xx").
	Code string
	// After keeps only requests with a larger ID.
	After uint64
}

// ParseRequestFilter reads a RequestFilter from the query parameters user,
// groupVersion, code and after (an ID; a bad number counts as 0).
func ParseRequestFilter(q url.Values) RequestFilter {
	after, _ := strconv.ParseUint(q.Get("after"), 10, 64)
	return RequestFilter{User: q.Get("user"), GroupVersion: q.Get("groupVersion"), Code: q.Get("code"), After: after}
}

// Match reports whether r passes f.
func (f RequestFilter) Match(r *InspectedRequest) bool {
	if r.ID <= f.After {
		return false
	}
	if f.User != "" && r.EffectiveUser() != f.User && (r.Authentication.User == nil || r.Authentication.User.Username != f.User) {
		return false
	}
	if gv := f.GroupVersion; gv != "" && r.GroupVersion != gv {
		if strings.Contains(gv, "/") {
			return false
		}
		if g, _, _ := strings.Cut(r.GroupVersion, "/"); g != gv {
			return false
		}
	}
	if c := f.Code; c != "" {
		code := strconv.Itoa(r.Code)
		if len(c) == 3 && strings.HasSuffix(c, "xx") {
			return code[0] == c[0]
		}
		return code == c
	}
	return true
}

// Inspector records requests for the web inspector in a bounded ring
// (oldest dropped first) and tells subscribers about each as it is
// recorded. It is safe for concurrent use. aggsim's own; upstream has only
// its audit log.
type Inspector struct {
	proxyCert func(*tls.CertificateRequestInfo) (*tls.Certificate, error)

	mu     sync.Mutex
	ring   []*inspection // len == size; ring[next] is the oldest once full
	next   int
	seq    uint64
	subs   map[chan *InspectedRequest]struct{}
	certMu sync.Mutex
	certOf *tls.Certificate // the proxy client certificate cert describes
	cert   *InspectedCertificate
	// certs caches describe's answers by certificate.
	certs     sync.Map // *x509.Certificate → *InspectedCertificate
	certCount atomic.Int32
	// free and viewing recycle the inspections the ring drops
	// (inspector_recycle.go).
	free    sync.Pool // *inspection
	viewing int       // Requests calls reading ring entries outside mu; guarded by mu
}

// NewInspector returns an Inspector keeping the last size requests
// (size < 1 means 1). proxyCert is the front-proxy client certificate
// source (may be nil), described in proxied requests.
func NewInspector(size int, proxyCert func(*tls.CertificateRequestInfo) (*tls.Certificate, error)) *Inspector {
	if size < 1 {
		size = 1
	}
	return &Inspector{ring: make([]*inspection, size), proxyCert: proxyCert, subs: map[chan *InspectedRequest]struct{}{}}
}

// Size is the ring's capacity.
func (in *Inspector) Size() int { return len(in.ring) }

// Requests returns the recorded requests that f matches, oldest first.
// Each call builds them anew from the ring's compact records (see view).
func (in *Inspector) Requests(f RequestFilter) []*InspectedRequest {
	in.mu.Lock()
	n := len(in.ring)
	recs := make([]*inspection, 0, n)
	for i := 0; i < n; i++ {
		if ins := in.ring[(in.next+i)%n]; ins != nil && ins.rec.ID > f.After {
			recs = append(recs, ins)
		}
	}
	in.viewing++ // no entry is recycled while the views are built
	in.mu.Unlock()
	defer in.doneViewing()
	out := []*InspectedRequest{}
	for _, ins := range recs {
		if r := ins.view(); f.Match(r) {
			out = append(out, r)
		}
	}
	return out
}

// Subscribe returns a channel that receives each request recorded from
// now on, and the function that ends the subscription. A subscriber that
// does not keep up misses requests (the channel holds 256); it can list
// them with RequestFilter.After.
func (in *Inspector) Subscribe() (<-chan *InspectedRequest, func()) {
	ch := make(chan *InspectedRequest, 256)
	in.mu.Lock()
	in.subs[ch] = struct{}{}
	in.mu.Unlock()
	return ch, func() {
		in.mu.Lock()
		delete(in.subs, ch)
		in.mu.Unlock()
	}
}

// add records ins, giving it the next ID; subscribers get its view.
func (in *Inspector) add(ins *inspection) {
	in.mu.Lock()
	in.seq++
	ins.rec.ID = in.seq
	in.recycle(in.ring[in.next])
	in.ring[in.next] = ins
	in.next = (in.next + 1) % len(in.ring)
	if len(in.subs) > 0 {
		r := ins.view()
		for ch := range in.subs {
			select {
			case ch <- r:
			default:
			}
		}
	}
	in.mu.Unlock()
}

// inspection is one request's record while the chain serves it, and then
// in the ring. It keeps what the serving goroutine has at hand as it is
// (strings, the exchange's own header maps, the client header as a flat
// list); view builds the InspectedRequest, with everything derived from
// those (the group/version, the header maps, the redacted copies, the
// removed fields), only when the inspector is read (issue 21).
type inspection struct {
	rec InspectedRequest // without the fields view derives
	hop proxy.Hop
	// client is the client's header as the chain received it (secrets
	// already redacted); clientNil is set when that header was nil.
	client    headerFields
	clientNil bool
	// clientBuf backs client when the client sent at most
	// len(clientBuf) fields.
	clientBuf [inlineHeaderFields]headerField
	// group and version are the RequestInfo's, for GroupVersion.
	group, version string
	// sent and answered are the headers exchanged with the backend (the
	// hop's maps, which nothing changes once the request is over);
	// redacted by view.
	sent, answered http.Header
	proxied        bool
	// stage is the step running: authentication, impersonation,
	// authorization, or "" once the handler runs.
	stage string
	// The record's pointers point here, so that the record and its parts
	// are one allocation (the ring keeps the whole inspection anyway).
	authnUser, runAsUser InspectedUser
	authz                InspectedAuthorization
}

// begin starts st's record: called by the chain before authentication.
func (in *Inspector) begin(st *requestState, r *http.Request, ri *request.RequestInfo, proxied bool) {
	ins := in.newInspection()
	ins.proxied, ins.stage = proxied, "authentication"
	rec := &ins.rec
	rec.AuditID, rec.Time, rec.Method = st.rec.id, st.start, r.Method
	rec.Verb, rec.Path, rec.Query = ri.Verb, r.URL.Path, redactQuery(r.URL.RawQuery)
	ins.group, ins.version = ri.APIGroup, ri.APIVersion
	// A flat copy sharing the values: the chain deletes fields from
	// r.Header (credentials, Impersonate-*) but never changes a value.
	var impersonates bool
	ins.client, impersonates = snapshotHeader(r.Header, ins.clientBuf[:])
	ins.clientNil = r.Header == nil
	rec.Client = InspectedClient{RemoteAddr: r.RemoteAddr, Protocol: r.Proto}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		rec.Client.Certificate = in.describe(r.TLS.PeerCertificates[0])
	}
	if impersonates {
		req := http.Header{}
		for k, v := range r.Header {
			if strings.HasPrefix(k, "Impersonate-") {
				req[k] = v
			}
		}
		rec.Impersonation = &InspectedImpersonation{Requested: req}
	}
	st.insp = ins
}

// authenticated notes the authenticated user u of r.
func (ins *inspection) authenticated(r *http.Request, u *authentication.UserInfo) {
	ins.rec.Authentication = InspectedAuthentication{Method: authnMethod(r, ins.client, u), User: inspectedUser(&ins.authnUser, u)}
	ins.stage = "impersonation"
}

// impersonated notes the user r runs as after impersonation and returns
// the authorization record to fill.
func (ins *inspection) impersonated(r *http.Request) *InspectedAuthorization {
	if ins.rec.Impersonation != nil {
		u, _ := request.UserFrom(r.Context())
		ins.rec.Impersonation.User = inspectedUser(&ins.runAsUser, u)
	}
	ins.stage = "authorization"
	ins.rec.Authorization = &ins.authz
	return ins.rec.Authorization
}

// authnMethod tells how u was authenticated from what r carried.
func authnMethod(r *http.Request, h headerFields, u *authentication.UserInfo) string {
	if v, ok := r.Context().Value(inProcessUserKey{}).(*authentication.UserInfo); ok && v == u {
		return "in-process"
	}
	if u.Username == UserAnonymous {
		return "anonymous"
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		if r.TLS.PeerCertificates[0].Subject.CommonName == u.Username {
			// Checked first: the front-proxy headers name another user
			// than the proxy's certificate, so they cannot match here.
			return "x509 client certificate"
		}
		if slices.ContainsFunc(standardRequestHeaders.UsernameHeaders, func(k string) bool { return h.get(k) == u.Username && u.Username != "" }) {
			return "front-proxy headers"
		}
	}
	if strings.HasPrefix(h.get("Authorization"), "Bearer ") { // kept by redactHeader
		if strings.HasPrefix(u.Username, serviceAccountUsernamePrefix) {
			return "ServiceAccount token"
		}
		return "bearer token"
	}
	return "front-proxy headers"
}

// finish completes st's record and adds it to the ring: the chain's
// deferred call.
func (in *Inspector) finish(st *requestState, r *http.Request) {
	ins := st.insp
	rec := &ins.rec
	rec.Code = st.sw.Code()
	switch {
	case !st.completed:
		rec.Code = http.StatusInternalServerError
	case rec.Code == 0:
		rec.Code = http.StatusOK
	}
	rec.LatencyMicros = time.Since(st.start).Microseconds()
	rec.StoppedAt = ins.stage
	if rec.Impersonation != nil && rec.Impersonation.User == nil && rec.StoppedAt == "" {
		rec.Impersonation = nil // the Impersonate-* headers named nobody
	}
	rec.Route = InspectedRoute{Kind: "local"}
	if ins.proxied && ins.stage == "" {
		h := &ins.hop
		rec.Route = InspectedRoute{Kind: "proxied", APIService: h.APIService, Available: h.Available, Address: h.Address,
			ServerName: h.ServerName, BackendCode: h.Code, Error: h.Err}
		if h.BackendCertificate != nil {
			rec.Route.BackendCertificate = in.describe(h.BackendCertificate).Subject
		}
		if h.RequestHeader != nil {
			// The maps are the exchange's own, which nothing changes once
			// the request is over: view redacts them when read.
			ins.sent, ins.answered = h.RequestHeader, h.ResponseHeader
			rec.Route.ClientCertificate = in.proxyCertificate()
		}
	}
	// The ring keeps the whole inspection: drop the hop's references (the
	// backend's certificate; the maps are in sent and answered).
	ins.hop = proxy.Hop{}
	in.add(ins)
}

// view builds the InspectedRequest ins records: a copy of rec with the
// group/version, the client's header, and for a proxied request the
// redacted headers sent and answered and the client fields removed. The
// users, the impersonation and the authorization are copies too (the
// record's point into ins, which the Inspector reuses once the ring drops
// it); their values (groups, extra, headers) are shared, and nothing
// changes them.
func (ins *inspection) view() *InspectedRequest {
	r := ins.rec
	r.Authentication.User = copyOf(r.Authentication.User)
	r.Authorization = copyOf(r.Authorization)
	if r.Impersonation != nil {
		imp := *r.Impersonation
		imp.User = copyOf(imp.User)
		r.Impersonation = &imp
	}
	if ins.version != "" {
		r.GroupVersion = ins.version
		if ins.group != "" {
			r.GroupVersion = ins.group + "/" + ins.version
		}
	}
	if !ins.clientNil {
		r.Client.Header = ins.client.header()
	}
	if ins.sent != nil {
		r.Route.SentHeader = redactHeader(ins.sent, false)
		r.Route.ResponseHeader = redactHeader(ins.answered, false)
		r.Route.RemovedHeaders = removedHeaders(r.Client.Header, ins.sent)
	}
	return &r
}

// headerField is one field of a header: its name and values.
type headerField struct {
	name   string
	values []string
}

// headerFields is a header as a flat list, in no particular order.
type headerFields []headerField

// snapshotHeader returns h's fields (values shared with h) with secrets
// redacted as redactHeader redacts them, nil for an empty h, and whether
// h asks for impersonation (asksImpersonation), found in the same pass.
// The fields go into buf[:0] when they fit in its capacity (the
// inspection's own array: no allocation of their own for the few fields
// most clients send).
func snapshotHeader(h http.Header, buf headerFields) (fields headerFields, impersonates bool) {
	if len(h) == 0 {
		return nil, false
	}
	out := buf[:0]
	if cap(buf) < len(h) {
		out = make(headerFields, 0, len(h))
	}
	for k, vv := range h {
		if secretHeader(k) {
			vv = redactedValues(k, vv)
		}
		if strings.HasPrefix(k, impersonatePrefix) {
			impersonates = true
		}
		out = append(out, headerField{k, vv})
	}
	return out, impersonates
}

// inlineHeaderFields is how many client header fields an inspection
// keeps without an allocation of their own: Go's HTTP/2 client sends
// three (Accept-Encoding, User-Agent and the caller's Accept), kubectl
// five, and the chain adds Audit-Id.
const inlineHeaderFields = 6

// get is http.Header.Get: the first value of the field name (any case).
func (f headerFields) get(name string) string {
	name = textproto.CanonicalMIMEHeaderKey(name)
	for _, hf := range f {
		if hf.name == name && len(hf.values) > 0 {
			return hf.values[0]
		}
	}
	return ""
}

// header returns f as an http.Header (never nil).
func (f headerFields) header() http.Header {
	h := make(http.Header, len(f))
	for _, hf := range f {
		h[hf.name] = hf.values
	}
	return h
}

// describe names c, from a cache: the same certificate (one per TLS
// connection) comes with every request on it, and formatting a
// distinguished name allocates.
func (in *Inspector) describe(c *x509.Certificate) *InspectedCertificate {
	if v, ok := in.certs.Load(c); ok {
		return v.(*InspectedCertificate)
	}
	d := &InspectedCertificate{Subject: c.Subject.String(), Issuer: c.Issuer.String()}
	if in.certCount.Add(1) > maxDescribedCerts { // start over rather than grow
		in.certs.Clear()
		in.certCount.Store(1)
	}
	in.certs.Store(c, d)
	return d
}

// maxDescribedCerts bounds Inspector.certs.
const maxDescribedCerts = 256

// proxyCertificate describes the current front-proxy client certificate.
func (in *Inspector) proxyCertificate() *InspectedCertificate {
	if in.proxyCert == nil {
		return nil
	}
	c, err := in.proxyCert(anyCertificateRequest)
	if err != nil || c == nil || len(c.Certificate) == 0 {
		return nil
	}
	in.certMu.Lock()
	defer in.certMu.Unlock()
	if in.certOf != c {
		leaf := c.Leaf
		if leaf == nil {
			if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
				return nil
			}
		}
		in.certOf, in.cert = c, &InspectedCertificate{Subject: leaf.Subject.String(), Issuer: leaf.Issuer.String()}
	}
	return in.cert
}

// anyCertificateRequest is the request proxyCertificate asks the
// certificate source with (shared, read only: a new one per proxied
// request cost an allocation).
var anyCertificateRequest = &tls.CertificateRequestInfo{}

// removedHeaders lists, sorted, the client's header fields that were not
// passed on as they came: absent from sent, or identity headers the proxy
// always replaces (X-Remote-*).
func removedHeaders(client, sent http.Header) []string {
	var out []string
	for k := range client {
		if _, ok := sent[k]; !ok || hasPrefixFold(k, "X-Remote-") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// inspectedUser fills into with u and returns it; nil when u is nil.
func inspectedUser(into *InspectedUser, u *authentication.UserInfo) *InspectedUser {
	if u == nil {
		return nil
	}
	*into = InspectedUser{Username: u.Username, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
	return into
}

// redacted replaces a secret.
const redacted = "<redacted>"

// bearerRedacted is a redacted bearer token (shared: records never change).
var bearerRedacted = []string{"Bearer " + redacted}

// redactHeader returns h with secrets replaced: Authorization and
// Proxy-Authorization keep only their scheme ("Bearer <redacted>"), Cookie
// and Set-Cookie and every field whose name mentions a token, secret,
// password or API or private key are replaced whole. With own set h is
// the caller's copy and is changed in place; otherwise h is returned as
// it is when it holds no secret, else a copy (sharing the other values).
func redactHeader(h http.Header, own bool) http.Header {
	if h == nil {
		return nil
	}
	out, copied := h, own
	for k, vv := range h {
		if !secretHeader(k) {
			continue
		}
		if !copied {
			out, copied = maps.Clone(h), true
		}
		out[k] = redactedValues(k, vv)
	}
	return out
}

// redactedValues returns the values of the secret field k (see
// redactHeader) with the secrets replaced.
func redactedValues(k string, vv []string) []string {
	lk := strings.ToLower(k)
	switch {
	case len(vv) == 1 && strings.HasPrefix(vv[0], "Bearer ") && (lk == "authorization" || lk == "proxy-authorization"):
		return bearerRedacted // the common case, without allocating
	case lk == "authorization" || lk == "proxy-authorization":
		r := make([]string, len(vv))
		for i, v := range vv {
			scheme, _, ok := strings.Cut(v, " ")
			if ok {
				r[i] = scheme + " " + redacted
			} else {
				r[i] = redacted
			}
		}
		return r
	default:
		return []string{redacted}
	}
}

// secretNames memoises secretHeader for the header names seen (at most
// maxSecretNames, since clients choose names).
var (
	secretNames     sync.Map // canonical name → bool
	secretNameCount atomic.Int32
)

const maxSecretNames = 1024

// secretHeader reports whether the field k carries a secret (see
// redactHeader).
func secretHeader(k string) bool {
	switch k { // the fields of most exchanges, without a map lookup
	case "Accept", "Accept-Encoding", "User-Agent", "Audit-Id", "Content-Type", "Content-Length", "Date",
		"Cache-Control", "X-Remote-User", "X-Remote-Group", "X-Remote-Uid", "X-Forwarded-For", "X-Forwarded-Host",
		"X-Forwarded-Proto", "X-Forwarded-Uri", "X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id",
		"X-Content-Type-Options", "X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid":
		return false
	}
	if v, ok := secretNames.Load(k); ok {
		return v.(bool)
	}
	lk := strings.ToLower(k)
	secret := lk == "authorization" || lk == "proxy-authorization" || lk == "cookie" || lk == "set-cookie" || isSecretName(lk)
	if secretNameCount.Load() < maxSecretNames {
		if _, loaded := secretNames.LoadOrStore(k, secret); !loaded {
			secretNameCount.Add(1)
		}
	}
	return secret
}

// isSecretName reports whether a lower-case header or parameter name
// looks like it carries a secret.
func isSecretName(lk string) bool {
	for _, s := range []string{"token", "secret", "password", "passwd", "apikey", "api-key", "private-key"} {
		if strings.Contains(lk, s) {
			return true
		}
	}
	return false
}

// redactQuery replaces the values of secret-looking query parameters.
func redactQuery(raw string) string {
	if raw == "" || !isSecretName(strings.ToLower(raw)) {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if ok && isSecretName(strings.ToLower(k)) {
			parts[i] = k + "=" + url.QueryEscape(redacted)
		}
	}
	return strings.Join(parts, "&")
}
