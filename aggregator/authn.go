package aggregator

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// AuthnOptions configures request authentication, named after
// kube-apiserver's flags. Authenticators run in upstream's union order
// (k8s.io/kubernetes/pkg/kubeapiserver/authenticator/config.go): front-proxy
// request headers, then client certificates, then bearer tokens; the first
// success wins. If none succeeds and any failed with an error (an untrusted
// certificate, an unknown token), the answer is 401 even with Anonymous on,
// as upstream's fail-on-error union does. With no credentials at all the
// request is anonymous when Anonymous is set, else 401.
type AuthnOptions struct {
	// ClientCA returns the current --client-ca-file pool; it is called on
	// every request so a reloaded file takes effect at once. nil (or a nil
	// pool) disables client-certificate authentication.
	ClientCA func() *x509.CertPool
	// TokenFile holds --token-file's tokens; nil disables bearer tokens.
	TokenFile *TokenFile
	// ServiceAccountTokens authenticates ServiceAccount JWTs (after the
	// token file, as upstream's union orders them); nil disables them.
	ServiceAccountTokens TokenAuthenticator
	// RequestHeader enables front-proxy authentication
	// (--requestheader-*); nil disables it.
	RequestHeader *RequestHeaderOptions
	// Anonymous lets requests without credentials through as
	// system:anonymous in group system:unauthenticated (--anonymous-auth).
	// aggsim's default is false.
	Anonymous bool

	// verifier caches certificate verifications; newAuthenticator (the chain and
	// WithAuthentication) sets it; nil verifies every time.
	verifier *certVerifier
}

// RequestHeaderOptions configures front-proxy authentication
// (k8s.io/apiserver/pkg/authentication/request/headerrequest/requestheader.go).
// The identity comes from headers only when the client presents a
// certificate verified against ClientCA whose CN is in AllowedNames.
type RequestHeaderOptions struct {
	// ClientCA returns the current --requestheader-client-ca-file pool;
	// nil (or a nil pool) disables front-proxy authentication.
	ClientCA func() *x509.CertPool
	// AllowedNames are the accepted certificate common names
	// (--requestheader-allowed-names); empty accepts any CN.
	AllowedNames []string
	// UsernameHeaders are tried in order; the first non-empty one names the
	// user. nil means [X-Remote-User].
	UsernameHeaders []string
	// UIDHeaders: the first non-empty one is the UID. nil means [X-Remote-Uid].
	UIDHeaders []string
	// GroupHeaders: every non-empty value of each is a group, in order. nil
	// means [X-Remote-Group].
	GroupHeaders []string
	// ExtraHeaderPrefixes: `<prefix><escaped key>: value` adds an extra; the
	// key is lower-cased and %-unescaped. nil means [X-Remote-Extra-].
	ExtraHeaderPrefixes []string

	// verifier caches certificate verifications; set by newAuthenticator.
	verifier *certVerifier
	// resolved holds names() with defaults applied, computed once by
	// newAuthenticator instead of on every request.
	resolved *[4][]string
}

func orDefault(v []string, def string) []string {
	if v == nil {
		return []string{def}
	}
	return v
}

// The standard front-proxy headers, always removed from an authenticated
// request (apiserver/pkg/endpoints/filters/authentication.go).
var standardRequestHeaders = RequestHeaderOptions{
	UsernameHeaders:     []string{"X-Remote-User"},
	UIDHeaders:          []string{"X-Remote-Uid"},
	GroupHeaders:        []string{"X-Remote-Group"},
	ExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
}

func (o *RequestHeaderOptions) names() (user, uid, group, extra []string) {
	if n := o.resolved; n != nil {
		return n[0], n[1], n[2], n[3]
	}
	return orDefault(o.UsernameHeaders, "X-Remote-User"), orDefault(o.UIDHeaders, "X-Remote-Uid"),
		orDefault(o.GroupHeaders, "X-Remote-Group"), orDefault(o.ExtraHeaderPrefixes, "X-Remote-Extra-")
}

// errInvalidBearerToken is upstream's error for an unknown token.
var errInvalidBearerToken = errors.New("invalid bearer token")

// AuthenticateRequest runs the configured authenticators on r and returns
// the user (with system:authenticated added as upstream's
// AuthenticatedGroupAdder does), false with a nil error when r carries no
// usable credentials, or an error when a credential was presented and
// rejected. On success of the front-proxy authenticator its headers are
// removed from r.Header; on success of a bearer token the Authorization
// header is. Anonymous is not applied here; see WithAuthentication.
func (o *AuthnOptions) AuthenticateRequest(r *http.Request) (*authentication.UserInfo, bool, error) {
	var errs []error
	try := func(f func(*http.Request) (*authentication.UserInfo, bool, error)) *authentication.UserInfo {
		u, ok, err := f(r)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if ok {
			return u
		}
		return nil
	}
	var u *authentication.UserInfo
	if o.RequestHeader != nil && o.RequestHeader.ClientCA != nil {
		u = try(o.RequestHeader.authenticate)
	}
	if u == nil && o.ClientCA != nil {
		u = try(o.authenticateCert)
	}
	if u == nil && (o.TokenFile != nil || o.ServiceAccountTokens != nil) {
		u = try(o.authenticateToken)
	}
	if u == nil {
		return nil, false, errors.Join(errs...)
	}
	return addAuthenticatedGroup(u), true, nil
}

func addAuthenticatedGroup(u *authentication.UserInfo) *authentication.UserInfo {
	if u.Username == UserAnonymous {
		return u
	}
	for _, g := range u.Groups {
		if g == GroupAuthenticated || g == GroupUnauthenticated {
			return u
		}
	}
	groups := make([]string, 0, len(u.Groups)+1)
	groups = append(append(groups, u.Groups...), GroupAuthenticated)
	cp := *u
	cp.Groups = groups
	return &cp
}

// verifyClientCert checks r's client certificate chain against pool for
// client-auth usage, as upstream's x509 Verifier does.
func verifyClientCert(r *http.Request, pool *x509.CertPool) (*x509.Certificate, error) {
	leaf := r.TLS.PeerCertificates[0]
	opts := x509.VerifyOptions{
		Roots:         pool,
		Intermediates: x509.NewCertPool(),
		CurrentTime:   time.Now(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	for _, c := range r.TLS.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := leaf.Verify(opts); err != nil {
		return nil, fmt.Errorf("verifying certificate %s failed: %w", certIdentifier(leaf), err)
	}
	return leaf, nil
}

// certVerifyTTL bounds how long a successful verification is reused;
// certVerifyFailTTL how long a failed one is.
const (
	certVerifyTTL     = time.Minute
	certVerifyFailTTL = 10 * time.Second
)

// maxPoolsPerLeaf bounds how many CA pools one leaf's results are kept
// for; the oldest is dropped first. A request checks at most two (the
// requestheader CA and the client CA), and each reload of a CA file makes
// a new pool.
const maxPoolsPerLeaf = 4

// certVerifier remembers client-certificate verifications per parsed leaf
// certificate — in practice per TLS connection, since crypto/tls parses
// the peer's chain once per handshake and every request on the connection
// carries the same *x509.Certificate — so a client that sends many
// requests over a connection pays for one chain verification a minute
// instead of one per request (a P-256 signature check per request was a
// third of the proxy's CPU, and hashing the chain to find a cached result
// was the next cost). An entry is keyed by the leaf's weak pointer, so it
// does not keep the certificate alive and is removed when the certificate
// is collected; it also records the rest of the presented chain, so a
// leaf shared by two chains (a resumed session) is told apart. Results are
// kept per CA pool — a reloaded CA file is a new pool, so nothing verified
// against the old one is reused. A success expires after certVerifyTTL or
// at the leaf's NotAfter, whichever is first; a failure, with its error,
// after certVerifyFailTTL (so a certificate that is not yet valid is
// accepted at most that much later). A nil *certVerifier verifies every
// time.
type certVerifier struct {
	mu     sync.Mutex // guards byLeaf and every entry in it
	byLeaf map[weak.Pointer[x509.Certificate]]*leafEntry
}

// leafEntry is what is known about one parsed leaf certificate.
type leafEntry struct {
	rest    []weak.Pointer[x509.Certificate] // the chain presented after the leaf
	results []*leafResult                    // one per CA pool, oldest first
}

// leafResult is the verification of one chain against one CA pool.
type leafResult struct {
	pool *x509.CertPool
	exp  time.Time
	err  error // nil: verified
	// user is authenticateCert's user for the leaf (with
	// system:authenticated), built on first use; nil until then.
	user *authentication.UserInfo
}

func newCertVerifier() *certVerifier {
	return &certVerifier{byLeaf: map[weak.Pointer[x509.Certificate]]*leafEntry{}}
}

// sameChain reports whether rest holds exactly the certificates of chain.
func (e *leafEntry) sameChain(chain []*x509.Certificate) bool {
	if len(e.rest) != len(chain) {
		return false
	}
	for i, c := range chain {
		if e.rest[i] != weak.Make(c) {
			return false
		}
	}
	return true
}

// verify is verifyClientCert with the cache in front; it returns the
// cached result for r's chain against pool, verifying first when there is
// none or it expired.
func (v *certVerifier) verify(r *http.Request, pool *x509.CertPool) (*leafResult, error) {
	if v == nil {
		_, err := verifyClientCert(r, pool)
		return &leafResult{pool: pool, err: err}, err
	}
	chain := r.TLS.PeerCertificates
	now := requestTime(r)
	conn := connVerificationsFrom(r)
	if conn != nil {
		if res := conn.get(chain, pool, now); res != nil {
			return res, res.err
		}
	}
	key := weak.Make(chain[0])
	v.mu.Lock()
	e := v.byLeaf[key]
	if e != nil && e.sameChain(chain[1:]) {
		for _, res := range e.results {
			if res.pool == pool && now.Before(res.exp) {
				v.mu.Unlock()
				if conn != nil {
					conn.put(chain, pool, res)
				}
				return res, res.err
			}
		}
	}
	v.mu.Unlock()

	leaf, err := verifyClientCert(r, pool)
	res := &leafResult{pool: pool, exp: now.Add(certVerifyFailTTL), err: err}
	if err == nil {
		res.exp = now.Add(certVerifyTTL)
		if leaf.NotAfter.Before(res.exp) {
			res.exp = leaf.NotAfter
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	e, known := v.byLeaf[key]
	if !known {
		// The entry goes when the leaf does (the cleanup holds the weak
		// pointer, not the certificate).
		runtime.AddCleanup(chain[0], v.forget, key)
	}
	if e == nil || !e.sameChain(chain[1:]) {
		e = &leafEntry{rest: make([]weak.Pointer[x509.Certificate], len(chain)-1)}
		for i, c := range chain[1:] {
			e.rest[i] = weak.Make(c)
		}
		v.byLeaf[key] = e
	}
	e.results = slices.DeleteFunc(e.results, func(o *leafResult) bool { return o.pool == pool })
	if len(e.results) >= maxPoolsPerLeaf {
		e.results = slices.Delete(e.results, 0, 1)
	}
	e.results = append(e.results, res)
	if conn != nil {
		conn.put(chain, pool, res)
	}
	return res, err
}

// forget drops a collected leaf's entry.
func (v *certVerifier) forget(key weak.Pointer[x509.Certificate]) {
	v.mu.Lock()
	delete(v.byLeaf, key)
	v.mu.Unlock()
}

// verifyPeer returns the cached verification of r's client certificate
// chain against the pool clientCA returns now, or nil and no error when r
// carries no client certificate or clientCA returns no pool.
func (v *certVerifier) verifyPeer(r *http.Request, clientCA func() *x509.CertPool) (*leafResult, error) {
	if !hasPeerCert(r) {
		return nil, nil
	}
	pool := clientCA()
	if pool == nil {
		return nil, nil
	}
	return v.verify(r, pool)
}

// certUser returns authenticateCert's user for leaf, built once per result.
func (v *certVerifier) certUser(res *leafResult, leaf *x509.Certificate) *authentication.UserInfo {
	if v != nil {
		v.mu.Lock()
		defer v.mu.Unlock()
	}
	if res.user == nil {
		sum := sha256.Sum256(leaf.Raw)
		res.user = addAuthenticatedGroup(&authentication.UserInfo{
			Username: leaf.Subject.CommonName,
			Groups:   slices.Clone(leaf.Subject.Organization),
			Extra:    map[string][]string{ExtraCredentialID: {"X509SHA256=" + hex.EncodeToString(sum[:])}},
		})
	}
	return res.user
}

func certIdentifier(c *x509.Certificate) string {
	return fmt.Sprintf("SN=%s, SKID=%s, AKID=%s", c.SerialNumber, hexColon(c.SubjectKeyId), hexColon(c.AuthorityKeyId))
}

func hexColon(b []byte) string {
	if len(b) == 0 {
		return "<none>"
	}
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02X", x)
	}
	return strings.Join(parts, ":")
}

func hasPeerCert(r *http.Request) bool {
	return r.TLS != nil && len(r.TLS.PeerCertificates) > 0
}

// authenticateCert is upstream's x509 authenticator with
// CommonNameUserConversion: user = CN, groups = O, extra credential-id
// X509SHA256=<lower-case hex of the leaf's SHA-256>. A cert without CN
// authenticates nobody (no error).
//
// The user of a verified leaf is built once and shared by the requests
// that present it; nothing changes a UserInfo after authentication.
func (o *AuthnOptions) authenticateCert(r *http.Request) (*authentication.UserInfo, bool, error) {
	res, err := o.verifier.verifyPeer(r, o.ClientCA)
	if res == nil || err != nil {
		return nil, false, err
	}
	leaf := r.TLS.PeerCertificates[0]
	if leaf.Subject.CommonName == "" {
		return nil, false, nil
	}
	return o.verifier.certUser(res, leaf), true, nil
}

// authenticateToken is upstream's bearer-token authenticator over the token
// file, then ServiceAccount tokens; it removes Authorization on success.
func (o *AuthnOptions) authenticateToken(r *http.Request) (*authentication.UserInfo, bool, error) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	if auth == "" {
		return nil, false, nil
	}
	parts := strings.SplitN(auth, " ", 3)
	if len(parts) < 2 || strings.ToLower(parts[0]) != "bearer" {
		return nil, false, nil
	}
	token := parts[1]
	if token == "" {
		return nil, false, nil
	}
	u, ok := o.TokenFile.Lookup(token)
	if !ok && o.ServiceAccountTokens != nil {
		var err error
		if u, ok, err = o.ServiceAccountTokens.AuthenticateToken(r.Context(), token); err != nil {
			return nil, false, fmt.Errorf("[%w, %w]", errInvalidBearerToken, err)
		}
	}
	if !ok {
		return nil, false, errInvalidBearerToken
	}
	r.Header.Del("Authorization")
	return u, true, nil
}

// authenticate is upstream's requestheader authenticator behind its
// CA-and-CN verifier.
func (o *RequestHeaderOptions) authenticate(r *http.Request) (*authentication.UserInfo, bool, error) {
	res, err := o.verifier.verifyPeer(r, o.ClientCA)
	if res == nil || err != nil {
		return nil, false, err
	}
	leaf := r.TLS.PeerCertificates[0]
	if len(o.AllowedNames) > 0 && !slices.Contains(o.AllowedNames, leaf.Subject.CommonName) {
		return nil, false, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", leaf.Subject.CommonName)
	}
	userH, uidH, groupH, extraP := o.names()
	name := firstHeader(r.Header, userH)
	if name == "" {
		return nil, false, nil
	}
	u := &authentication.UserInfo{
		Username: name,
		UID:      firstHeader(r.Header, uidH),
		Groups:   allHeaders(r.Header, groupH),
		Extra:    extraHeaders(r.Header, extraP),
	}
	clearAuthHeaders(r.Header, userH, uidH, groupH, extraP)
	return u, true, nil
}

func firstHeader(h http.Header, names []string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

func allHeaders(h http.Header, names []string) []string {
	out := []string{}
	for _, n := range names {
		for _, v := range h[http.CanonicalHeaderKey(n)] {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// unescapeExtraKey undoes the proxy's %-escaping of extra keys; a key that
// does not unescape is used as is (upstream's unescapeExtraKey).
func unescapeExtraKey(k string) string {
	if u, err := url.PathUnescape(k); err == nil {
		return u
	}
	return k
}

func extraHeaders(h http.Header, prefixes []string) map[string][]string {
	out := map[string][]string{}
	for name, values := range h {
		for _, p := range prefixes {
			// Case-insensitive prefix test without lower-casing every header name.
			if len(name) < len(p) || !strings.EqualFold(name[:len(p)], p) {
				continue
			}
			k := unescapeExtraKey(strings.ToLower(name[len(p):]))
			out[k] = append(out[k], values...)
		}
	}
	return out
}

func clearAuthHeaders(h http.Header, userH, uidH, groupH, extraP []string) {
	for _, list := range [][]string{userH, uidH, groupH} {
		for _, n := range list {
			h.Del(n)
		}
	}
	for name := range h {
		for _, p := range extraP {
			if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
				delete(h, name)
				break
			}
		}
	}
}

// anonymousUser is upstream's anonymous authenticator's user.
func anonymousUser() *authentication.UserInfo {
	return &authentication.UserInfo{Username: UserAnonymous, Groups: []string{GroupUnauthenticated}}
}

// WithAuthentication authenticates every request with opts (see
// AuthnOptions) and puts the user into the context with registry.WithUser;
// it mirrors apiserver/pkg/endpoints/filters/authentication.go. Failures
// answer 401 Status `Unauthorized` (reason Unauthorized) and are logged at
// debug level. After success Authorization and every standard and configured
// front-proxy header (X-Remote-User, -Uid, -Group, -Extra-*) are removed
// from the request, so no client-sent identity header reaches a handler.
func WithAuthentication(h http.Handler, opts AuthnOptions, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	a := newAuthenticator(opts, logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := a.authenticate(w, r); ok {
			h.ServeHTTP(w, r)
		}
	})
}

// authenticator is the authentication step of the chain (and of
// WithAuthentication): opts with its verification cache and resolved
// header names.
type authenticator struct {
	opts   AuthnOptions
	logger *slog.Logger
	// credentials are the fields removed from an authenticated request.
	credentials *credentialFields
}

// newAuthenticator prepares opts for serving: one certificate cache for
// both verifiers, front-proxy header names resolved once.
func newAuthenticator(opts AuthnOptions, logger *slog.Logger) *authenticator {
	opts.verifier = newCertVerifier()
	if opts.RequestHeader != nil {
		rh := *opts.RequestHeader
		rh.verifier = opts.verifier
		u, uid, g, e := rh.names()
		rh.resolved = &[4][]string{u, uid, g, e}
		opts.RequestHeader = &rh
	}
	return &authenticator{opts: opts, logger: logger, credentials: newCredentialFields(opts.RequestHeader)}
}

// authenticate authenticates r. On success it returns r with the user in
// its context and every credential and front-proxy header removed; on
// failure it has answered 401 and returns false.
func (a *authenticator) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	u, ok, _ := a.authenticateUser(w, r)
	if !ok {
		return r, false
	}
	return r.WithContext(request.WithUser(r.Context(), u)), true
}

// authenticateUser is authenticate without putting the user into the
// context: it returns the user (and has noted it for the access log), or
// false once it has answered 401. impersonates tells whether r.Header,
// once the credentials are removed, asks for impersonation
// (asksImpersonation), found in the same pass.
func (a *authenticator) authenticateUser(w http.ResponseWriter, r *http.Request) (u *authentication.UserInfo, ok, impersonates bool) {
	opts := &a.opts
	if u, ok := r.Context().Value(inProcessUserKey{}).(*authentication.UserInfo); ok {
		// An in-process controller's request (withInProcessUser): only
		// code in this process can put a value into a request's context.
		noteUser(r.Context(), u, false)
		return u, true, asksImpersonation(r.Header)
	}
	u, ok, err := opts.AuthenticateRequest(r)
	if err == nil && !ok && opts.Anonymous {
		u, ok = anonymousUser(), true
	}
	if err != nil || !ok {
		if err != nil {
			a.logger.Debug("unable to authenticate the request", "err", err, "path", r.URL.Path)
		}
		closeUnauthenticatedHTTP2(w, r)
		negotiation.WriteStatus(w, r, newUnauthorized())
		return nil, false, false
	}
	if u.Username == UserAnonymous {
		closeUnauthenticatedHTTP2(w, r)
	}
	impersonates = a.credentials.clear(r.Header)
	noteUser(r.Context(), u, false)
	return u, true, impersonates
}

// closeUnauthenticatedHTTP2 ends an HTTP/2 connection after this response
// when its request was not authenticated (401) or is anonymous: Go's HTTP/2
// server answers "Connection: close" with a GOAWAY. HTTP/2 is cheap to
// abuse (CVE-2023-44487), so, as kube-apiserver does since 1.29
// (UnauthenticatedHTTP2DOSMitigation, filters/authentication.go),
// unauthenticated clients get no long-lived HTTP/2 connection.
func closeUnauthenticatedHTTP2(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 2 {
		w.Header().Set("Connection", "close")
	}
}

// newUnauthorized mirrors apierrors.NewUnauthorized("Unauthorized").
func newUnauthorized() *meta.StatusError {
	return meta.NewStatusError(http.StatusUnauthorized, meta.StatusReasonUnauthorized, "Unauthorized")
}

// TokenFile is the parsed content of kube-apiserver's --token-file: static
// bearer tokens mapped to users (mirrors
// k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go). It is
// immutable after parsing and safe for concurrent use.
type TokenFile struct {
	users map[string]*authentication.UserInfo
}

// LoadTokenFile reads and parses the token file at path; see ParseTokenFile.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open token file: %w", err)
	}
	defer f.Close()
	return ParseTokenFile(path, f, nil)
}

// ParseTokenFile parses kube-apiserver's token CSV from r: one record per
// line, `token,user,uid[,"group1,group2"]`, any further columns ignored.
// name is used in error messages. Errors name the line, e.g.
// `token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 3)`.
// As upstream does, a record with an empty token is skipped and a duplicate
// token replaces the earlier one; both are logged as warnings to logger (nil:
// not logged). A 4th column splits on "," into groups (an empty column gives
// one empty group, as upstream).
func ParseTokenFile(name string, r io.Reader, logger *slog.Logger) (*TokenFile, error) {
	reader := csv.NewReader(r)
	reader.FieldsPerRecord = -1
	tokens := map[string]*authentication.UserInfo{}
	recordNum := 0
	for {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("token file '%s': %w", name, err)
		}
		line, _ := reader.FieldPos(0)
		if len(record) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d (line %d)", name, len(record), line)
		}
		recordNum++
		if record[0] == "" {
			if logger != nil {
				logger.Warn(fmt.Sprintf("empty token has been found in token file '%s', record number '%d'", name, recordNum))
			}
			continue
		}
		u := &authentication.UserInfo{Username: record[1], UID: record[2]}
		if _, dup := tokens[record[0]]; dup && logger != nil {
			logger.Warn(fmt.Sprintf("duplicate token has been found in token file '%s', record number '%d'", name, recordNum))
		}
		if len(record) >= 4 {
			u.Groups = strings.Split(record[3], ",")
		}
		tokens[record[0]] = u
	}
	return &TokenFile{users: tokens}, nil
}

// Lookup returns a copy of the user token authenticates as (groups as in the
// file, without system:authenticated), or false.
func (t *TokenFile) Lookup(token string) (*authentication.UserInfo, bool) {
	if t == nil {
		return nil, false
	}
	u, ok := t.users[token]
	if !ok {
		return nil, false
	}
	cp := *u
	cp.Groups = slices.Clone(u.Groups)
	return &cp, true
}

// Len returns the number of distinct tokens.
func (t *TokenFile) Len() int {
	if t == nil {
		return 0
	}
	return len(t.users)
}

// inProcessUserKey is the context key of the identity of an in-process
// controller's request.
type inProcessUserKey struct{}

// withInProcessUser returns ctx under which a request sent to the handler
// chain in-process is authenticated as u, as kube-controller-manager's
// controllers authenticate with their service accounts' tokens
// (--use-service-account-credentials).
func withInProcessUser(ctx context.Context, u *authentication.UserInfo) context.Context {
	return context.WithValue(ctx, inProcessUserKey{}, u)
}
