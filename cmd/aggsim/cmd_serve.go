package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/internal/codepages"
	"github.com/aggsim/aggsim/internal/stackstart"
	"github.com/aggsim/aggsim/registry/storage"
)

// serveOptions are the flags of `aggsim serve`, named as kube-apiserver
// names them where the concept is the same.
type serveOptions struct {
	bindAddress string
	securePort  int
	dataDir     string
	storage     string
	etcd        etcdFlags

	tlsCertFile, tlsPrivateKeyFile string
	clientCAFile                   string
	tokenAuthFile                  string
	anonymousAuth                  bool

	serviceAccountIssuers        []string
	serviceAccountKeyFiles       []string
	serviceAccountSigningKeyFile string
	apiAudiences                 []string
	serviceAccountMaxTokenExpiry time.Duration
	serviceAccountJWKSURI        string

	requestheaderClientCAFile       string
	requestheaderAllowedNames       []string
	requestheaderUsernameHeaders    []string
	requestheaderUIDHeaders         []string
	requestheaderGroupHeaders       []string
	requestheaderExtraHeadersPrefix []string

	proxyClientCertFile, proxyClientKeyFile string
	authorizationMode                       string

	availabilityCheckInterval time.Duration
	requestTimeout            time.Duration
	discoveryRefreshInterval  time.Duration
	serveAggregatedV2Beta1    bool
	profiling                 bool
	releaseStartupPages       bool
	controllers               []string
	shutdownTimeout           time.Duration
	logLevel                  string
	demo                      bool
	inspector                 inspectorFlags // cmd_serve_inspector.go
	featureGates              []string       // --feature-gates, aggregator.ParseFeatureGates
	runtimeConfig             []string       // --runtime-config, aggregator.ParseRuntimeConfig
}

func (o *serveOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.bindAddress, "bind-address", "127.0.0.1", "IP address to serve HTTPS on")
	f.IntVar(&o.securePort, "secure-port", 6443, "port to serve HTTPS on; 0 picks a free port (the chosen address is printed)")
	f.StringVar(&o.dataDir, "data-dir", defaultDataDir(), "directory for the store, the generated PKI and the kubeconfig")
	f.StringVar(&o.storage, "storage", "bbolt", "storage backend: bbolt (one file in --data-dir), memory (lost on exit) or etcd (--etcd-servers; several replicas may share it)")
	o.etcd.addFlags(f)
	f.StringVar(&o.tlsCertFile, "tls-cert-file", "", "serving certificate (default: <data-dir>/pki/apiserver.crt)")
	f.StringVar(&o.tlsPrivateKeyFile, "tls-private-key-file", "", "serving key (default: <data-dir>/pki/apiserver.key)")
	f.StringVar(&o.clientCAFile, "client-ca-file", "", "CA bundle that verifies client certificates (default: <data-dir>/pki/ca.crt)")
	f.StringVar(&o.tokenAuthFile, "token-auth-file", "", "static bearer tokens, kube-apiserver's CSV format: token,user,uid,\"group1,group2\"")
	f.BoolVar(&o.anonymousAuth, "anonymous-auth", false, "serve unauthenticated requests as system:anonymous (otherwise 401)")
	f.StringArrayVar(&o.serviceAccountIssuers, "service-account-issuer", []string{aggregator.DefaultServiceAccountIssuer}, "iss of ServiceAccount tokens; repeat it to also accept tokens of earlier issuers (the first one signs)")
	f.StringArrayVar(&o.serviceAccountKeyFiles, "service-account-key-file", nil, "PEM file of keys that verify ServiceAccount tokens, repeatable (default: <data-dir>/pki/sa.pub)")
	f.StringVar(&o.serviceAccountSigningKeyFile, "service-account-signing-key-file", "", "private key that signs ServiceAccount tokens (default: <data-dir>/pki/sa.key, an RSA key generated on first use)")
	f.StringSliceVar(&o.apiAudiences, "api-audiences", nil, "audiences a token must be meant for, and those of a TokenRequest naming none (default: the first --service-account-issuer)")
	f.DurationVar(&o.serviceAccountMaxTokenExpiry, "service-account-max-token-expiration", 0, "longest lifetime of a requested token; longer requests are shortened (0: no limit)")
	f.StringVar(&o.serviceAccountJWKSURI, "service-account-jwks-uri", "", "jwks_uri of /.well-known/openid-configuration (default: https://<address>:<port>/openid/v1/jwks)")
	f.StringVar(&o.requestheaderClientCAFile, "requestheader-client-ca-file", "", "CA bundle that verifies a front proxy in front of aggsim; empty disables request-header authentication")
	f.StringSliceVar(&o.requestheaderAllowedNames, "requestheader-allowed-names", nil, "common names a front proxy's client certificate may have (empty: any)")
	f.StringSliceVar(&o.requestheaderUsernameHeaders, "requestheader-username-headers", []string{"X-Remote-User"}, "request headers to take the user name from")
	f.StringSliceVar(&o.requestheaderUIDHeaders, "requestheader-uid-headers", []string{"X-Remote-Uid"}, "request headers to take the user UID from")
	f.StringSliceVar(&o.requestheaderGroupHeaders, "requestheader-group-headers", []string{"X-Remote-Group"}, "request headers to take groups from")
	f.StringSliceVar(&o.requestheaderExtraHeadersPrefix, "requestheader-extra-headers-prefix", []string{"X-Remote-Extra-"}, "request header prefixes to take extra user attributes from")
	f.StringVar(&o.proxyClientCertFile, "proxy-client-cert-file", "", "front-proxy client certificate presented to backends (default: <data-dir>/pki/front-proxy-client.crt); reloaded when it changes")
	f.StringVar(&o.proxyClientKeyFile, "proxy-client-key-file", "", "front-proxy client key (default: <data-dir>/pki/front-proxy-client.key)")
	f.StringVar(&o.authorizationMode, "authorization-mode", "AlwaysAllow", "comma-separated authorizers asked in order, the first decision winning: RBAC, AlwaysAllow, AlwaysDeny (system:masters is always allowed first); --demo defaults to RBAC")
	f.DurationVar(&o.requestTimeout, "request-timeout", aggregator.DefaultRequestTimeout, "bound on non-long-running requests (not watch, exec, attach, port-forward, log, proxy); a request's ?timeout= may only shorten it")
	f.DurationVar(&o.availabilityCheckInterval, "availability-check-interval", aggregator.DefaultAvailabilityCheckInterval, "how often each remote APIService is probed (upstream: 30s)")
	f.DurationVar(&o.discoveryRefreshInterval, "discovery-refresh-interval", 60*time.Second, "how often backends' discovery documents are re-fetched (upstream: 60s)")
	f.StringSliceVar(&o.controllers, "controllers", []string{"*"}, "kube-controller-manager controllers to run, as its --controllers: '*' enables all on by default, 'foo' enables foo, '-foo' disables it. Known: "+strings.Join(aggregator.KnownControllers, ", ")+" (aliases namespace, serviceaccount; '-namespace': a deleted namespace stays Terminating, as with a bare kube-apiserver; '-serviceaccount': namespaces get no default ServiceAccount)")
	f.BoolVar(&o.serveAggregatedV2Beta1, "serve-aggregated-discovery-v2beta1", false, "also answer aggregated discovery v2beta1 (kube-apiserver 1.33 answers 406)")
	f.BoolVar(&o.profiling, "profiling", true, "serve Go's profiles under /debug/pprof/ (as kube-apiserver's --profiling)")
	f.BoolVar(&o.releaseStartupPages, "release-startup-pages", true, "a second after ready, drop the pages of aggsim's binary that start-up mapped from the process's page tables: they stay in the page cache and the idle server maps again those it uses (idle RSS about 17 instead of 33 MB); false keeps them mapped")
	f.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long in-flight requests may take to finish on SIGINT/SIGTERM")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.BoolVar(&o.demo, "demo", false, "also start the demo wardle.example.com backend and register it")
	f.StringArrayVar(&o.featureGates, "feature-gates", nil, "A set of key=value pairs that describe feature gates for alpha/experimental features, as kube-apiserver's. Known: AllAlpha=true|false (ALPHA - default=false), AllBeta=true|false (BETA - default=false), MutatingAdmissionPolicy=true|false (ALPHA - default=false; needs --runtime-config=admissionregistration.k8s.io/v1alpha1=true)")
	f.StringArrayVar(&o.runtimeConfig, "runtime-config", nil, "A set of key=value pairs that enable or disable built-in APIs, as kube-apiserver's: admissionregistration.k8s.io/v1alpha1=true serves MutatingAdmissionPolicies and their bindings; api/all and api/alpha switch it too")
	o.inspector.add(cmd)
}

// defaultDataDir is <user state dir>/aggsim: $XDG_STATE_HOME/aggsim or
// ~/.local/state/aggsim.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "aggsim")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "aggsim")
	}
	return ".aggsim"
}

func newServeCommand() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the aggregation layer: the APIService store, discovery and the proxy",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.demo && !cmd.Flags().Changed("authorization-mode") { // the demo runs as a cluster does (cmd_demo.go)
				o.authorizationMode = aggregator.ModeRBAC
			}
			return runServe(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.addFlags(cmd)
	return cmd
}

func parseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	return l, err
}

// runServe starts aggsim and blocks until ctx ends, then shuts down
// gracefully: stop accepting, finish in-flight requests (bounded by
// --shutdown-timeout), close watches, close the store.
func runServe(ctx context.Context, o *serveOptions, out, errOut io.Writer) error {
	level, err := parseLogLevel(o.logLevel)
	if err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	featureGates, err := aggregator.ParseFeatureGates(o.featureGates)
	if err != nil {
		return err // kube-apiserver's texts: unrecognized feature gate: Nope
	}
	runtimeConfig, err := aggregator.ParseRuntimeConfig(o.runtimeConfig)
	if err != nil {
		return err
	}
	if err := aggregator.ValidateFeatureConfig(aggregator.Options{FeatureGates: featureGates, RuntimeConfig: runtimeConfig}); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: level}))
	started := time.Now()
	restoreGC := startupGC() // startup_gc.go
	defer restoreGC()

	dataDir, err := filepath.Abs(o.dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("create --data-dir: %w", err)
	}
	phases := newStartupPhases(started)
	pkiDir := filepath.Join(dataDir, "pki")
	// The port first: aggregator.New, made while the PKI is prepared, needs
	// it. Connections wait in the listen backlog until the kubeconfig exists.
	ln, err := net.Listen("tcp", net.JoinHostPort(o.bindAddress, strconv.Itoa(o.securePort)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	host := hostForURL(o.bindAddress, addr.Port)
	server := "https://" + host

	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()

	aopts := aggregator.Options{
		Logger:                    logger,
		Anonymous:                 o.anonymousAuth,
		AvailabilityCheckInterval: o.availabilityCheckInterval,
		RequestTimeout:            o.requestTimeout,
		DiscoveryRefreshInterval:  o.discoveryRefreshInterval,
		ServeAggregatedV2Beta1:    o.serveAggregatedV2Beta1,
		Profiling:                 o.profiling,
		Controllers:               o.controllers,
		LeaderElection:            o.storage == "etcd", // replicas may share the store (serve_etcd.go)
		AuthorizationMode:         o.authorizationMode,
		TokenAuthFile:             o.tokenAuthFile,
		ServiceAccountTokens: aggregator.ServiceAccountTokenOptions{
			Keys:          certs.NewServiceAccountKeys(pkiDir, o.serviceAccountSigningKeyFile, o.serviceAccountKeyFiles),
			Issuers:       o.serviceAccountIssuers,
			APIAudiences:  o.apiAudiences,
			MaxExpiration: o.serviceAccountMaxTokenExpiry,
			JWKSURI:       o.serviceAccountJWKSURI,
		},
		Version:           version,
		InspectorRingSize: o.inspector.ringSize,
		FeatureGates:      featureGates,
		RuntimeConfig:     runtimeConfig,
		// The default/kubernetes Service and Endpoints point at this address.
		SecurePort: addr.Port,
	}
	aopts.AdvertiseAddress, _, _ = net.SplitHostPort(host)
	lc := &lateCerts{} // the PKI's certificate holders, loaded once it exists (serve_start.go)
	lc.bind(&aopts)
	if o.requestheaderClientCAFile != "" {
		rhCA, err := certs.NewDynamicCAFile(o.requestheaderClientCAFile, certs.ReloadOptions{Logger: logger})
		if err != nil {
			ln.Close()
			return fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		go rhCA.Run(runCtx)
		aopts.RequestHeader = &aggregator.RequestHeaderOptions{
			ClientCA:            rhCA.Pool,
			AllowedNames:        o.requestheaderAllowedNames,
			UsernameHeaders:     o.requestheaderUsernameHeaders,
			UIDHeaders:          o.requestheaderUIDHeaders,
			GroupHeaders:        o.requestheaderGroupHeaders,
			ExtraHeaderPrefixes: o.requestheaderExtraHeadersPrefix,
		}
	}
	// aggregator.New runs once the store is open, while the PKI is
	// prepared; the certificate files are read once the PKI exists.
	var srv *aggregator.Server
	pki, st, err := o.prepareStart(pkiDir, dataDir, certs.Options{ExtraIPs: extraServingIPs(o.bindAddress)}, logger, phases.mark,
		func(st storage.Storage) (err error) {
			opts := aopts
			opts.Storage = st
			srv, err = aggregator.New(opts)
			return err
		},
		func(pki *certs.PKI) error { return lc.load(o, pki, logger) }) // serve_start.go
	if err != nil {
		ln.Close()
		return err
	}
	defer st.Close()
	lc.start(runCtx)
	serving := lc.serving
	phases.mark("aggregator")

	httpServer, err := aggregator.NewSecureServer(srv.Handler(), &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: serving.GetCertificate,
		ClientAuth:     tls.RequestClientCert,
		NextProtos:     []string{"h2", "http/1.1"},
	}, slog.NewLogLogger(logger.Handler(), slog.LevelDebug))
	if err != nil {
		return err
	}
	// The bootstrap writes start while the kubeconfig is written;
	// connections wait in the listen backlog until the kubeconfig exists,
	// so whoever the server answers finds it.
	runDone := make(chan struct{})
	go func() { defer close(runDone); srv.Run(runCtx) }()
	kubeconfigPath := filepath.Join(dataDir, certs.KubeconfigName)
	if _, err := pki.WriteServeKubeconfig(kubeconfigPath, server); err != nil {
		cancelRun()
		select {
		case <-runDone:
		case <-time.After(3 * time.Second):
		}
		ln.Close()
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	srvErr := make(chan error, 1)
	go func() { srvErr <- httpServer.ServeTLS(ln, "", "") }()
	inspectorURL, stopInspector, err := startInspector(o.inspector, srv, server, logger)
	if err != nil {
		return err
	}
	phases.mark("listen")

	if o.demo {
		if err := startDemo(ctx, runCtx, srv, pki, dataDir, out, logger); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	select {
	case <-srv.Ready():
	case <-ctx.Done():
	}
	phases.mark("ready")
	restoreGC()
	go releaseStartupMemory(runCtx, o.releaseStartupPages, logger) // and keeps new goroutines' stacks at 8 KiB (internal/stackstart)
	logger.Debug("start-up phases", phases.attrs()...)
	fmt.Fprintf(out, "aggsim %s (Kubernetes %s) serving on %s\n", version, kubeGitVersion(), server)
	fmt.Fprintf(out, "data dir: %s (storage: %s)\n", dataDir, o.storage)
	fmt.Fprintf(out, "ready in %s\n", time.Since(started).Round(time.Millisecond))
	printInspector(out, inspectorURL)
	fmt.Fprintf(out, "export KUBECONFIG=%s\n", kubeconfigPath)

	select {
	case <-ctx.Done():
	case err := <-srvErr:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	logger.Info("shutting down", "timeout", o.shutdownTimeout)
	srv.Shutdown() // ends watches so Shutdown below does not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	stopInspector(sctx)
	if err := httpServer.Shutdown(sctx); err != nil {
		logger.Warn("in-flight requests did not finish in time", "err", err)
		_ = httpServer.Close()
	}
	cancelRun()
	select { // the controllers stop (a held Lease is released) before the store closes
	case <-runDone:
	case <-time.After(3 * time.Second):
	}
	return nil
}

// extraServingIPs adds the bind address to the serving certificate's SANs
// when it is a specific address.
func extraServingIPs(bind string) []net.IP {
	ip := net.ParseIP(bind)
	if ip == nil || ip.IsUnspecified() {
		return nil
	}
	return []net.IP{ip}
}

func hostForURL(bind string, port int) string {
	host := bind
	if ip := net.ParseIP(bind); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if strings.Contains(bind, ":") {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// startupPhases records how long each start-up step of runServe took, for
// the debug log line "start-up phases" (--log-level debug), which is how
// start-up time is profiled (issue 21).
type startupPhases struct {
	last  time.Time
	names []string
	took  []time.Duration
}

func newStartupPhases(start time.Time) *startupPhases { return &startupPhases{last: start} }

// mark ends the phase name now.
func (p *startupPhases) mark(name string) {
	now := time.Now()
	p.names = append(p.names, name)
	p.took = append(p.took, now.Sub(p.last))
	p.last = now
}

// attrs returns the phases as slog key/value pairs, in order.
func (p *startupPhases) attrs() []any {
	out := make([]any, 0, 2*len(p.names))
	for i, n := range p.names {
		out = append(out, n, p.took[i].Round(10*time.Microsecond).String())
	}
	return out
}

// releaseStartupMemory returns the heap that start-up used and freed (the
// OpenAPI documents are built, from larger intermediate values, just after
// ready) to the operating system once, a second after ready: without it
// the idle process keeps its start-up peak in RSS until the runtime's
// scavenger gets to it, minutes later. One forced GC of a few MiB of live
// heap, off the serving path. It also runs the stack ballast
// (stackstart.KeepSettling, until ctx ends): sized at ready, resized just
// before that GC to the goroutines the controllers have started by then,
// so that the GC returns the replaced ballast's stack too (issue 21). With
// pages (--release-startup-pages), the binary's pages that start-up mapped
// are then dropped from the page tables (releaseStartupPages).
func releaseStartupMemory(ctx context.Context, pages bool, logger *slog.Logger) {
	stackstart.KeepSettling(ctx, time.After(time.Second), func() {
		debug.FreeOSMemory()
		if pages {
			releaseStartupPages(logger)
		}
	})
}

// releaseStartupPages drops the pages of aggsim's executable that are
// mapped (start-up's package initialisation, certificate generation and
// bootstrap faulted in about 23 MB of them) from the process's page
// tables; they stay in the page cache, and the idle server maps again the
// ones it uses (internal/codepages, issue 21). Only logged: a failure
// changes nothing the server does.
func releaseStartupPages(logger *slog.Logger) {
	start := time.Now()
	st, err := codepages.Release()
	took := time.Since(start).Round(10 * time.Microsecond)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
	case err != nil:
		logger.Debug("release start-up pages of the executable", "err", err)
	default:
		logger.Debug("released start-up pages of the executable", "mappings", st.Mappings, "released_kB", st.Released>>10, "kept_kB", st.Kept>>10, "took", took)
	}
}
