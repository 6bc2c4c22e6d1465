package demo

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/rest"
	"github.com/aggsim/aggsim/registry/storage"
)

// Options configures a Backend. A zero field means the default stated on
// it; NewBackend checks them all.
type Options struct {
	// GetCertificate returns the serving certificate (required), e.g. a
	// certs.DynamicCertificate's GetCertificate or StaticCertificate.
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// RequestHeaderClientCA returns the front-proxy CA pool
	// (--requestheader-client-ca-file); required.
	RequestHeaderClientCA func() *x509.CertPool
	// RequestHeaderAllowedNames are the accepted CNs of the front-proxy
	// client certificate (--requestheader-allowed-names). nil means
	// [front-proxy-client]; an empty non-nil slice accepts any CN.
	RequestHeaderAllowedNames []string
	// ClientCA optionally also authenticates plain client certificates (CN
	// = user, O = groups), as --client-ca-file does; nil disables them.
	ClientCA func() *x509.CertPool
	// Storage holds flunders and fischers; nil means a new memory store,
	// closed by Close. A given Storage is not closed.
	Storage storage.Storage
	// Logger receives the backend's logs; nil discards them.
	Logger *slog.Logger
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
	// RecordLimit is how many requests the Recorder keeps; zero means
	// DefaultRecordLimit.
	RecordLimit int
}

// StaticCertificate adapts a fixed certificate to Options.GetCertificate.
func StaticCertificate(c tls.Certificate) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &c, nil }
}

// Backend is the demo wardle.example.com API server: discovery, the REST
// API of flunders and fischers, requestheader authentication and the
// request Recorder. Use Handler in-process, or Start to serve TLS on a
// loopback port. A Backend must not be copied.
type Backend struct {
	opts     Options
	api      *rest.API
	recorder *Recorder
	handler  http.Handler
	logger   *slog.Logger

	// failStatus, when non-zero, is the code every API request is
	// answered with (DebugFailPath).
	failStatus atomic.Int32

	mu       sync.Mutex // guards srv, ln and ownStore
	ownStore bool       // Close closes opts.Storage
	srv      *http.Server
	ln       net.Listener
	serveErr chan error
}

var _ http.Handler = (*Backend)(nil)

// NewBackend builds a Backend. Errors: a missing GetCertificate or
// RequestHeaderClientCA.
func NewBackend(opts Options) (*Backend, error) {
	if opts.GetCertificate == nil {
		return nil, errors.New("demo: Options.GetCertificate is required")
	}
	if opts.RequestHeaderClientCA == nil {
		return nil, errors.New("demo: Options.RequestHeaderClientCA is required")
	}
	if opts.RequestHeaderAllowedNames == nil {
		opts.RequestHeaderAllowedNames = []string{certs.FrontProxyClientCN}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	b := &Backend{opts: opts, logger: logger, recorder: NewRecorder(opts.RecordLimit)}
	st := opts.Storage
	if st == nil {
		st, b.ownStore = storage.NewMemory(), true
	}
	b.opts.Storage = st
	b.api = rest.NewAPI(st, Strategies(opts.Clock), registry.StoreOptions{Clock: opts.Clock, Logger: logger})

	docs := newDiscoveryDocs()
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == DebugRequestsPath {
			b.recorder.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == DebugFailPath {
			b.serveDebugFail(w, r)
			return
		}
		if code := b.failStatus.Load(); code != 0 {
			// Told to fail (DebugFailPath): every API request, discovery
			// included, so the aggregator marks the APIServices unavailable.
			negotiation.WriteStatus(w, r, meta.NewStatusError(int(code), failReasons[code],
				fmt.Sprintf("injected failure: %d %s", code, http.StatusText(int(code)))))
			return
		}
		if docs.serve(w, r) || serveOpenAPI(w, r) { // openapi.go
			return
		}
		b.api.ServeHTTP(w, r)
	})
	authn := aggregator.AuthnOptions{
		ClientCA: opts.ClientCA,
		RequestHeader: &aggregator.RequestHeaderOptions{
			ClientCA:     opts.RequestHeaderClientCA,
			AllowedNames: opts.RequestHeaderAllowedNames,
		},
	}
	authed := aggregator.WithAuthentication(b.recorder.noteUser(mux), authn, logger)
	b.handler = b.recorder.wrap(withHealth(withConversion(withPizzaAdmission(authed)))) // pizza.go, pizza_admission.go
	return b, nil
}

// withHealth answers /healthz, /livez and /readyz with "ok" without
// authentication (upstream's always-allowed health paths); everything else
// goes to next.
func withHealth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/livez", "/readyz":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "ok")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP serves a request through the backend's full chain (recorder,
// health, authentication, discovery, REST API). Requests need r.TLS with
// the peer certificates to authenticate.
func (b *Backend) ServeHTTP(w http.ResponseWriter, r *http.Request) { b.handler.ServeHTTP(w, r) }

// Handler returns the backend's root handler (the Backend itself).
func (b *Backend) Handler() http.Handler { return b }

// API returns the backend's REST API, e.g. to read its stores.
func (b *Backend) API() *rest.API { return b.api }

// Recorder returns the request recorder.
func (b *Backend) Recorder() *Recorder { return b.recorder }

// TLSConfig returns the server TLS configuration Start uses: the serving
// certificate, client certificates requested (verified by the
// authentication filter, not the handshake), HTTP/2 and HTTP/1.1.
func (b *Backend) TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: b.opts.GetCertificate,
		ClientAuth:     tls.RequestClientCert,
		NextProtos:     []string{"h2", "http/1.1"},
	}
}

// Start listens on addr ("127.0.0.1:0" when empty) and serves TLS (HTTP/2
// and HTTP/1.1) in the background until Close. Errors: already started, or
// the listen failed.
func (b *Backend) Start(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.srv != nil {
		return errors.New("demo: backend already started")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("demo: listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           b,
		TLSConfig:         b.TLSConfig(),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(b.logger.Handler(), slog.LevelDebug),
	}
	if err := http2.ConfigureServer(srv, &http2.Server{}); err != nil {
		ln.Close()
		return err
	}
	b.srv, b.ln, b.serveErr = srv, ln, make(chan error, 1)
	go func() { b.serveErr <- srv.ServeTLS(ln, "", "") }()
	return nil
}

// Addr returns the address Start listens on, or nil before Start.
func (b *Backend) Addr() *net.TCPAddr {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ln == nil {
		return nil
	}
	return b.ln.Addr().(*net.TCPAddr)
}

// URL returns "https://<addr>" after Start, or "" before.
func (b *Backend) URL() string {
	a := b.Addr()
	if a == nil {
		return ""
	}
	return "https://" + a.String()
}

// Close ends every watch, stops serving (waiting up to 5 s for in-flight
// requests) and closes a storage NewBackend created. It is safe to call
// more than once and without Start.
func (b *Backend) Close() error {
	b.api.Shutdown()
	b.mu.Lock()
	srv := b.srv
	b.mu.Unlock()
	var err error
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err = srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
	}
	b.mu.Lock()
	own := b.ownStore
	b.ownStore = false
	b.mu.Unlock()
	if own {
		_ = b.opts.Storage.Close()
	}
	return err
}

// DebugFailPath tells the backend to fail: POST (or PUT)
// DebugFailPath?status=503 answers every API request, discovery included,
// with a 503 Status `injected failure: 503 Service Unavailable` (any code
// 400..599), so the aggregator's availability check marks the APIServices
// unavailable, as when a real backend breaks; status=0 restores it. Like
// DebugRequestsPath it needs the front-proxy client certificate. It
// answers 200 with the status now in force.
const DebugFailPath = "/debug/fail"

// failReasons are the Status reasons of the codes DebugFailPath is
// usually told to answer with ("" for the others).
var failReasons = map[int32]string{
	http.StatusServiceUnavailable:  meta.StatusReasonServiceUnavailable,
	http.StatusInternalServerError: meta.StatusReasonInternalError,
	http.StatusTooManyRequests:     "TooManyRequests",
}

func (b *Backend) serveDebugFail(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		w.Header().Set("Allow", "POST, PUT")
		negotiation.WriteStatus(w, r, meta.NewStatusError(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed, "use POST "+DebugFailPath+"?status=<code>"))
		return
	}
	code, err := strconv.Atoi(r.URL.Query().Get("status"))
	if err != nil || (code != 0 && (code < 400 || code > 599)) {
		negotiation.WriteStatus(w, r, meta.NewBadRequest("status must be 0 (healthy) or an HTTP code 400..599"))
		return
	}
	b.failStatus.Store(int32(code))
	b.logger.Info("demo backend failure injection", "status", code)
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, "{\"status\":%d}\n", code)
}
