package aggregatortest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/storage"
)

// DefaultAvailabilityCheckInterval is how often a test Server re-probes
// every remote APIService unless WithAvailabilityCheckInterval says
// otherwise: 100 ms, so a backend that breaks shows as unavailable almost
// at once (upstream probes every 30 s, `aggsim serve` every second).
const DefaultAvailabilityCheckInterval = 100 * time.Millisecond

// startTimeout bounds how long NewServer waits for the aggregator's
// initial sync (/readyz ok); it takes milliseconds in practice.
const startTimeout = 30 * time.Second

// shutdownTimeout bounds how long Close waits for in-flight requests.
const shutdownTimeout = 5 * time.Second

// Option changes how Start and NewServer build a Server.
type Option func(*config)

type config struct {
	logger    *slog.Logger
	interval  time.Duration
	anonymous bool
	tokens    []string // CSV lines of a --token-auth-file
	tweaks    []func(*aggregator.Options)
	crds      []crdSource // WithCRDs, WithCRDObjects (crds.go)
}

// WithLogger sends the aggregator's logs (and the backends' TLS handshake
// errors, at debug level) to l. Without it they are discarded.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithAvailabilityCheckInterval sets how often every remote APIService is
// re-probed (aggregator.Options.AvailabilityCheckInterval); zero or less
// means DefaultAvailabilityCheckInterval. Probes also run whenever an
// APIService, Service or Endpoints object changes, whatever the interval.
// A long interval (time.Hour) keeps a backend's injected fault visible
// through the proxy instead of being replaced, at the next probe, by the
// aggregator's own 503 `service unavailable` (see Backend.FailWith).
func WithAvailabilityCheckInterval(d time.Duration) Option {
	return func(c *config) { c.interval = d }
}

// WithAnonymousAuth serves requests without credentials as
// system:anonymous (kube-apiserver's --anonymous-auth=true); by default
// they get 401.
func WithAnonymousAuth() Option { return func(c *config) { c.anonymous = true } }

// WithToken adds a static bearer token (a line of kube-apiserver's
// --token-auth-file) for user, with the given groups and no UID. It may be
// given many times.
func WithToken(token, user string, groups ...string) Option {
	return func(c *config) {
		line := token + "," + user + ","
		if len(groups) > 0 {
			line += `,"` + strings.Join(groups, ",") + `"`
		}
		c.tokens = append(c.tokens, line)
	}
}

// WithAggregatorOptions lets f change the aggregator.Options just before
// the aggregator is built (for example to set an Authorizer or
// RequestHeader). f must not replace Storage, ProxyClientCertificate or
// the CA functions, which the Server relies on.
func WithAggregatorOptions(f func(*aggregator.Options)) Option {
	return func(c *config) { c.tweaks = append(c.tweaks, f) }
}

// Server is an aggsim aggregation layer serving HTTPS (HTTP/2 and
// HTTP/1.1) on a free port of 127.0.0.1, with an in-memory store and a
// fresh PKI of its own, as httptest.Server is for a single handler. Start
// (or NewServer) returns it ready: /readyz answers ok and the built-in
// APIServices are registered. It must not be copied.
type Server struct {
	// URL is the base URL, https://127.0.0.1:<port>, with no trailing slash.
	URL string

	pki            *certs.PKI
	caPEM          []byte
	adminCertPEM   []byte
	adminKeyPEM    []byte
	adminCert      tls.Certificate
	caPool         *x509.CertPool
	fpCAPEM        []byte
	fpCertPEM      []byte
	fpKeyPEM       []byte
	kubeconfig     []byte
	kubeconfigPath string
	logger         *slog.Logger

	agg        *aggregator.Server
	store      *storage.Memory
	httpServer *http.Server
	client     *http.Client
	// closeIdleProxyConns drops the aggregator's idle connections to
	// backends (the listener it registered through
	// Options.OnProxyClientCertChange).
	closeIdleProxyConns func()

	cancelRun context.CancelFunc
	runDone   chan struct{}
	serveDone chan struct{}
	// removeDir is the directory Close deletes (NewServer's temporary
	// directory); empty for Start, whose t.TempDir the testing package
	// removes.
	removeDir string

	mu       sync.Mutex // guards backends and closed
	backends []*Backend
	closed   bool

	connMu sync.Mutex // guards conns
	// conns holds the state of every open client connection (HTTP/2
	// connections report Idle when no stream is open), so Close can close
	// idle ones at once instead of waiting for HTTP/2's 1 s GOAWAY grace.
	conns map[net.Conn]http.ConnState
}

// Start starts a Server for the test and stops it with t.Cleanup. The PKI
// and kubeconfig live in t.TempDir(). Start calls t.Fatal when the server
// cannot start. Many Servers may run in parallel in one test binary: none
// uses a fixed port or global state.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := newServer(t.TempDir(), "", opts)
	if err != nil {
		t.Fatalf("aggregatortest: start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a Server outside of a test (in an Example, a TestMain
// or a tool). Its files live in a new temporary directory that Close
// removes; the caller must call Close. Errors: the PKI, the listener or
// the aggregator could not be set up, or it did not become ready within
// 30 s.
func NewServer(opts ...Option) (*Server, error) {
	dir, err := os.MkdirTemp("", "aggregatortest-")
	if err != nil {
		return nil, err
	}
	s, err := newServer(dir, dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func newServer(dir, removeDir string, opts []Option) (*Server, error) {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.interval <= 0 {
		cfg.interval = DefaultAvailabilityCheckInterval
	}
	logger := cfg.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// Both t.TempDir and NewServer's folder go away with the test: no
	// fsync of the ten PKI files.
	pki, err := certs.EnsurePKI(filepath.Join(dir, "pki"), certs.Options{Ephemeral: true})
	if err != nil {
		return nil, err
	}
	s := &Server{pki: pki, logger: logger, removeDir: removeDir}
	for _, f := range []struct {
		dst  *[]byte
		path string
	}{
		{&s.caPEM, pki.CACert}, {&s.adminCertPEM, pki.AdminCert}, {&s.adminKeyPEM, pki.AdminKey},
		{&s.fpCAPEM, pki.FrontProxyCACert}, {&s.fpCertPEM, pki.FrontProxyClientCert}, {&s.fpKeyPEM, pki.FrontProxyClientKey},
	} {
		if *f.dst, err = os.ReadFile(f.path); err != nil {
			return nil, err
		}
	}
	serving, err := tls.LoadX509KeyPair(pki.ServingCert, pki.ServingKey)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	proxyClient, err := tls.X509KeyPair(s.fpCertPEM, s.fpKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("front-proxy client certificate: %w", err)
	}
	if s.adminCert, err = tls.X509KeyPair(s.adminCertPEM, s.adminKeyPEM); err != nil {
		return nil, fmt.Errorf("admin certificate: %w", err)
	}
	s.caPool = pki.ClientCAPool

	aopts := aggregator.Options{
		Logger:                    logger,
		ClientCA:                  func() *x509.CertPool { return pki.ClientCAPool },
		ClientCAPEM:               func() []byte { return s.caPEM },
		FrontProxyCAPEM:           func() []byte { return s.fpCAPEM },
		Anonymous:                 cfg.anonymous,
		AvailabilityCheckInterval: cfg.interval,
		ProxyClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return &proxyClient, nil
		},
		OnProxyClientCertChange: func(f func()) { s.closeIdleProxyConns = f },
		Version:                 "aggregatortest",
	}
	if len(cfg.tokens) > 0 {
		aopts.TokenAuthFile = filepath.Join(dir, "tokens.csv")
		if err := os.WriteFile(aopts.TokenAuthFile, []byte(strings.Join(cfg.tokens, "\n")+"\n"), 0o600); err != nil {
			return nil, err
		}
	}
	for _, f := range cfg.tweaks {
		f(&aopts)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s.URL = "https://" + ln.Addr().String()
	aopts.SecurePort = ln.Addr().(*net.TCPAddr).Port // the default/kubernetes Service and Endpoints
	s.store = storage.NewMemory()
	aopts.Storage = s.store
	if s.agg, err = aggregator.New(aopts); err != nil {
		ln.Close()
		s.store.Close()
		return nil, err
	}
	s.conns = map[net.Conn]http.ConnState{}
	hs, err := aggregator.NewSecureServer(s.agg.Handler(), &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{serving},
		ClientAuth:   tls.RequestClientCert,
		NextProtos:   []string{"h2", "http/1.1"},
	}, slog.NewLogLogger(logger.Handler(), slog.LevelDebug))
	if err != nil {
		ln.Close()
		s.store.Close()
		return nil, err
	}
	hs.ConnState = s.trackConn
	s.httpServer = hs
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.httpServer.ServeTLS(ln, "", "")
	}()
	ctx, cancel := context.WithCancel(context.Background())
	s.cancelRun = cancel
	s.runDone = make(chan struct{})
	go func() {
		defer close(s.runDone)
		s.agg.Run(ctx)
	}()
	s.client = &http.Client{Transport: &http.Transport{
		TLSClientConfig:   s.AdminTLSConfig(),
		ForceAttemptHTTP2: true,
	}}

	if s.kubeconfig, err = certs.KubeconfigBytes(s.URL, s.caPEM, s.adminCertPEM, s.adminKeyPEM, ""); err != nil {
		s.Close()
		return nil, err
	}
	s.kubeconfigPath = filepath.Join(dir, certs.KubeconfigName)
	if err := os.WriteFile(s.kubeconfigPath, s.kubeconfig, 0o600); err != nil {
		s.Close()
		return nil, err
	}

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case <-s.agg.Ready():
	case <-timer.C:
		s.Close()
		return nil, fmt.Errorf("aggregator not ready after %s", startTimeout)
	}
	if err := s.installCRDs(cfg.crds); err != nil { // crds.go
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the Server: it closes every Backend added to it, ends open
// watches, stops listening, closes idle connections, waits up to 5 s for
// in-flight requests, stops the controllers and releases the store. It blocks until all of that is done and may be
// called more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	backends := s.backends
	s.backends = nil
	s.mu.Unlock()

	for _, b := range backends {
		b.Close()
	}
	s.agg.Shutdown() // ends watches so Shutdown below does not wait for them
	s.client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	shutdown := make(chan error, 1)
	go func() { shutdown <- s.httpServer.Shutdown(ctx) }()
	tick := time.NewTicker(2 * time.Millisecond)
wait:
	for {
		s.closeIdleConns()
		select {
		case err := <-shutdown:
			if err != nil {
				_ = s.httpServer.Close()
			}
			break wait
		case <-tick.C:
		}
	}
	tick.Stop()
	cancel()
	<-s.serveDone
	s.cancelRun()
	<-s.runDone
	s.client.CloseIdleConnections()
	s.store.Close()
	if s.removeDir != "" {
		os.RemoveAll(s.removeDir)
	}
}

// trackConn is the http.Server's ConnState hook.
func (s *Server) trackConn(c net.Conn, st http.ConnState) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if st == http.StateClosed || st == http.StateHijacked {
		delete(s.conns, c)
		return
	}
	s.conns[c] = st
}

// closeIdleConns closes every connection with no request in flight.
func (s *Server) closeIdleConns() {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	for c, st := range s.conns {
		if st == http.StateIdle || st == http.StateNew {
			_ = c.Close()
			delete(s.conns, c)
		}
	}
}

// CAPEM returns the PEM of the cluster CA: it signed the serving
// certificate (clients trust it) and is the client CA (--client-ca-file).
func (s *Server) CAPEM() []byte { return s.caPEM }

// AdminCertPEM returns the PEM of the admin client certificate
// (CN=aggsim-admin, O=system:masters).
func (s *Server) AdminCertPEM() []byte { return s.adminCertPEM }

// AdminKeyPEM returns the PEM of the admin client certificate's key.
func (s *Server) AdminKeyPEM() []byte { return s.adminKeyPEM }

// AdminTLSConfig returns a new client TLS configuration that trusts the
// Server's CA and presents the admin client certificate; the caller may
// change it.
func (s *Server) AdminTLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		RootCAs:      s.caPool,
		Certificates: []tls.Certificate{s.adminCert},
	}
}

// Client returns an HTTP client (HTTP/2 when possible) that trusts the
// Server and authenticates as the admin. It is shared: do not change it.
// Close closes its idle connections.
func (s *Server) Client() *http.Client { return s.client }

// Kubeconfig returns an admin kubeconfig for the Server (cluster, user
// and context "aggsim"), with the CA and the client certificate embedded.
// client-go loads it with clientcmd.RESTConfigFromKubeConfig.
func (s *Server) Kubeconfig() []byte { return s.kubeconfig }

// KubeconfigPath returns the path of a file holding Kubeconfig(), for
// `kubectl --kubeconfig` or KUBECONFIG.
func (s *Server) KubeconfigPath() string { return s.kubeconfigPath }

// FrontProxyCAPEM returns the PEM of the front-proxy CA: what a backend
// passes as --requestheader-client-ca-file (see RequireFrontProxy).
func (s *Server) FrontProxyCAPEM() []byte { return s.fpCAPEM }

// FrontProxyClientCertPEM returns the PEM of the front-proxy client
// certificate (CN=front-proxy-client) the Server presents to backends.
func (s *Server) FrontProxyClientCertPEM() []byte { return s.fpCertPEM }

// FrontProxyClientKeyPEM returns the PEM of the front-proxy client key.
func (s *Server) FrontProxyClientKeyPEM() []byte { return s.fpKeyPEM }

// PKI describes the Server's PKI directory: the path of every certificate
// and key (kubeadm file names).
func (s *Server) PKI() *certs.PKI { return s.pki }

// Aggregator returns the aggregator.Server behind s, for what this package
// does not wrap (its registry.API, ExplainAPIService, ...).
func (s *Server) Aggregator() *aggregator.Server { return s.agg }

// RequireFrontProxy is RequireFrontProxy(h, s.FrontProxyCAPEM()).
func (s *Server) RequireFrontProxy(h http.Handler) http.Handler {
	return RequireFrontProxy(h, s.fpCAPEM)
}

// Explain returns aggsim's explanation of why the APIService name is or
// is not Available (aggregator.Server.ExplainAPIService in text form). It
// may take up to ~10 s against a backend that does not answer; an error
// is returned as text.
func (s *Server) Explain(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	e, err := s.agg.ExplainAPIService(ctx, name)
	if err != nil {
		return "explain " + name + ": " + err.Error()
	}
	var b strings.Builder
	if err := e.WriteText(&b); err != nil {
		return "explain " + name + ": " + err.Error()
	}
	return b.String()
}

// addBackend records b so that Close closes it; it fails once s is closed.
func (s *Server) addBackend(b *Backend) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("aggregatortest: server is closed")
	}
	s.backends = append(s.backends, b)
	return nil
}

// dropProxyConns closes the aggregator's idle connections to backends, so
// that the next proxied request dials (and handshakes) again.
func (s *Server) dropProxyConns() {
	if s.closeIdleProxyConns != nil {
		s.closeIdleProxyConns()
	}
	if s.agg != nil { // and to admission webhooks (webhook.go)
		s.agg.AdmissionWebhooks().CloseIdleConnections()
	}
}
