package aggregator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"github.com/aggsim/aggsim/aggregator/admission"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/aggsim/aggsim/aggregator/openapiaggregator"
	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/discovery"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/authorization"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/rest"
	"github.com/aggsim/aggsim/registry/storage"
)

// KubeVersion is the Kubernetes release aggsim emulates; /version reports
// KubeVersion + "-aggsim." + Options.Version as gitVersion.
const KubeVersion = "v1.33.0"

// DefaultAvailabilityCheckInterval is how often a remote APIService is
// probed when Options.AvailabilityCheckInterval is zero. Upstream probes
// every 30 s; aggsim probes faster so a dead backend shows within 2 s.
const DefaultAvailabilityCheckInterval = time.Second

// Options configures a Server. A zero field means the default stated on it;
// New checks them all in one place.
type Options struct {
	// Storage holds every object (required). The Server does not close it.
	Storage storage.Storage
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
	// Version is aggsim's own version, shown in /version's gitVersion.
	// Empty means "dev".
	Version string
	// SecurePort is the port clients reach the server on; the
	// default/kubernetes Service targets it and its Endpoints name it
	// (kube-apiserver's --secure-port). 0 means the Server does not keep
	// that Service and those Endpoints.
	SecurePort int
	// AdvertiseAddress is the address of the default/kubernetes Endpoints
	// (kube-apiserver's --advertise-address); empty means 127.0.0.1.
	AdvertiseAddress string

	// ClientCA returns the current --client-ca-file pool (nil: no client
	// certificate authentication).
	ClientCA func() *x509.CertPool
	// ClientCAPEM returns the PEM of --client-ca-file, published in the
	// extension-apiserver-authentication ConfigMap. nil: not published.
	ClientCAPEM func() []byte
	// FrontProxyCAPEM returns the PEM of the front-proxy CA that signs the
	// proxy client certificate (a backend's --requestheader-client-ca-file).
	FrontProxyCAPEM func() []byte
	// TokenAuthFile is the --token-auth-file path; empty disables tokens.
	TokenAuthFile string
	// ServiceAccountTokens configures ServiceAccount tokens: the
	// serviceaccounts/token subresource, their authentication (bearer
	// token and TokenReview) and the issuer's OIDC discovery
	// (serviceaccount_token.go). Keys nil disables them.
	ServiceAccountTokens ServiceAccountTokenOptions
	// RequestHeader enables front-proxy authentication in front of aggsim.
	RequestHeader *RequestHeaderOptions
	// Anonymous serves requests without credentials as system:anonymous.
	Anonymous bool
	// AuthorizationMode is kube-apiserver's --authorization-mode: a comma
	// list of RBAC, AlwaysAllow and AlwaysDeny asked in order, the first
	// Allow or Deny winning (ParseAuthorizationModes); empty means
	// AlwaysAllow. Authorizer, when set, takes precedence.
	AuthorizationMode string
	// Authorizer decides every request (and SubjectAccessReviews).
	Authorizer Authorizer

	// ProxyClientCertificate is the front-proxy client certificate source
	// presented to backends (required for proxying to work).
	ProxyClientCertificate func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
	// OnProxyClientCertChange registers a callback run when the proxy
	// client certificate changes (certs.DynamicCertificate.AddListener);
	// the Server then drops idle backend connections. nil: never.
	OnProxyClientCertChange func(func())

	// AvailabilityCheckInterval is how often each remote APIService is
	// probed; zero means DefaultAvailabilityCheckInterval.
	AvailabilityCheckInterval time.Duration
	// RequestTimeout bounds non-long-running requests, proxied ones
	// included (kube-apiserver's --request-timeout); a request's ?timeout=
	// may only shorten it. Zero means DefaultRequestTimeout (60 s).
	RequestTimeout time.Duration
	// DiscoveryRefreshInterval is how often backends' discovery is
	// re-fetched; zero means 60 s (upstream).
	DiscoveryRefreshInterval time.Duration
	// APFEnsureInterval is how often the bootstrap FlowSchemas and
	// PriorityLevelConfigurations are put back (re-created, specs reset);
	// zero means a minute, as kube-apiserver (which has no flag for it).
	APFEnsureInterval time.Duration
	// ServeAggregatedV2Beta1 also answers apidiscovery.k8s.io/v2beta1.
	ServeAggregatedV2Beta1 bool
	// Profiling serves Go's profiles under /debug/pprof/ (net/http/pprof),
	// as kube-apiserver's --profiling does (default true there and in
	// aggsim serve); authorization applies as to any non-resource path.
	Profiling bool
	// Registerer receives aggsim's metrics; nil means a fresh registry of
	// the Server's own, served at /metrics.
	Registerer prometheus.Registerer
	// Gatherer serves /metrics; nil means the Server's own registry (or
	// Registerer when it is also a Gatherer).
	Gatherer prometheus.Gatherer
	// Controllers selects the controllers of kube-controller-manager that
	// aggsim runs, shaped as its --controllers flag: "*" enables those on
	// by default, "foo" enables foo, "-foo" disables it. Known:
	// KnownControllers. nil or empty means ["*"].
	Controllers []string
	// InspectorRingSize is how many requests the inspector keeps
	// (inspector.go, issue 18): every request through the chain is
	// recorded, proxied ones with their hop to the backend, and served at
	// DebugRequestsPath. 0 turns recording off (it then costs nothing).
	InspectorRingSize int

	// LeaderElection runs the controllers that must run once among
	// replicas sharing a store (namespace controller, ClusterRole
	// aggregation) only while this replica holds the Lease
	// kube-system/kube-controller-manager, as kube-controller-manager's
	// --leader-elect (leaderelection.go). false: this replica always runs
	// them and writes no Lease.
	LeaderElection bool

	// FeatureGates and RuntimeConfig are --feature-gates and
	// --runtime-config as ParseFeatureGates and ParseRuntimeConfig
	// return them (features.go); nil means upstream's defaults (every
	// alpha gate and group/version off).
	FeatureGates, RuntimeConfig map[string]bool
}

// KnownControllers are the kube-controller-manager controllers aggsim
// runs, all on by default, by their canonical names (kube-controller-manager
// 1.33's cmd/kube-controller-manager/names): "namespace-controller"
// finalizes deleted namespaces (controller_namespace.go). Without it a
// deleted namespace stays Terminating, as with a bare kube-apiserver.
// "garbage-collector-controller" deletes dependents by ownerReferences and
// removes the orphan and foregroundDeletion finalizers (controller_gc.go);
// without it objects keep those finalizers, as with a bare kube-apiserver.
// "serviceaccount-controller" creates each namespace's default
// ServiceAccount (controller_serviceaccount.go).
var KnownControllers = []string{"namespace-controller", "garbage-collector-controller", ServiceAccountControllerName}

// ControllerAliases maps the older names kube-controller-manager 1.33 still
// accepts in --controllers to its canonical names ("namespace" for
// "namespace-controller"), as its ControllerAliases.
var ControllerAliases = map[string]string{"namespace": "namespace-controller", "garbagecollector": "garbage-collector-controller", "serviceaccount": ServiceAccountControllerName}

// canonicalController returns entry ("name" or "-name") with name replaced by
// its canonical name when it is an alias, keeping the "-" prefix, as
// kube-controller-manager's GenericControllerManagerConfigurationOptions
// ApplyTo does.
func canonicalController(entry string) string {
	name, disabled := strings.CutPrefix(entry, "-")
	if canonical, ok := ControllerAliases[name]; ok {
		name = canonical
	}
	if disabled {
		return "-" + name
	}
	return name
}

// ControllerEnabled reports whether controller name (canonical) is on for
// the --controllers list (kube-controller-manager's IsControllerEnabled on
// the list with aliases replaced: an explicit "name" or "-name" wins, else
// "*" enables it).
func ControllerEnabled(name string, list []string) bool {
	if len(list) == 0 {
		list = []string{"*"}
	}
	star := false
	for _, c := range list {
		switch canonicalController(c) {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			star = true
		}
	}
	return star
}

// ValidateControllers returns an error naming each entry of list that is
// neither a known controller nor an alias of one, with
// kube-controller-manager's message (controller-manager options/generic.go
// Validate): the name is quoted without its "-" prefix, and several errors
// are joined as k8s.io/apimachinery's aggregate error prints them ("[a, b]",
// a repeated message once).
func ValidateControllers(list []string) error {
	var msgs []string
	for _, c := range list {
		if c == "*" {
			continue
		}
		name := strings.TrimPrefix(c, "-")
		if !slices.Contains(KnownControllers, strings.TrimPrefix(canonicalController(name), "-")) {
			msg := fmt.Sprintf("%q is not in the list of known controllers", name)
			if !slices.Contains(msgs, msg) {
				msgs = append(msgs, msg)
			}
		}
	}
	switch len(msgs) {
	case 0:
		return nil
	case 1:
		return errors.New(msgs[0])
	}
	return errors.New("[" + strings.Join(msgs, ", ") + "]")
}

// Server is one aggsim: the local REST API, discovery, the router and the
// per-APIService proxies, kept in step with the store by controllers.
// Create it with New, serve Handler, run Run.
type Server struct {
	opts   Options
	logger *slog.Logger
	now    func() time.Time

	api        *rest.API
	discovery  *discovery.Manager
	mux        *Mux
	handler    http.Handler
	transports *proxy.Transports
	resolver   proxy.ServiceResolver
	// admission calls the admission webhooks on every write to the store
	// (admission_webhooks.go).
	admission *admission.Dispatcher

	apiServices *Informer
	services    *Informer
	endpoints   *Informer
	// flowSchemas and priorityLevels feed the APF consumer.
	flowSchemas    *Informer
	priorityLevels *Informer
	// namespaces feeds the namespace and serviceaccount controllers (nil
	// when both are off).
	namespaces   *Informer
	nsController *namespaceController
	// leader gates the run-once controllers (leaderelection.go).
	leader *leaderElector

	gc           *garbageCollector          // controller_gc.go; nil when off
	saController *serviceAccountsController // nil when disabled
	saTokens     *serviceAccountTokens      // ServiceAccount tokens (serviceaccount_token.go)
	oidc         *oidcDiscovery             // nil without token keys
	// apfProducer creates and keeps the bootstrap FlowSchemas and
	// PriorityLevelConfigurations; apfConsumer writes the FlowSchemas'
	// Dangling condition (controller_apf.go).
	apfProducer *apfProducer
	apfConsumer *apfConsumer

	// apiHandlers serves each APIService (router, proxy, discovery,
	// OpenAPI); the registration controller drives it
	// (controller_registration.go).
	apiHandlers  *apiHandlerManager
	registration registrationController
	// availability probes APIServices and writes their Available
	// condition (controller_availability.go).
	availability *availabilityController
	// prober checks APIServices for availability and explain.
	prober *discoveryProber
	// metrics holds the Prometheus collectors (metrics.go).
	metrics *metrics
	// openapi aggregates the backends' OpenAPI documents and serves
	// /openapi/v2 and /openapi/v3 (aggregator/openapiaggregator).
	openapi *openapiaggregator.Controller

	ready     chan struct{}
	readyOnce sync.Once
	// hooks are closed as Run gets through its start-up, which /healthz,
	// /livez and /readyz report under the names of kube-apiserver's
	// post-start hooks (health.go).
	hooks startHooks

	// rbac is the RBAC authorizer when --authorization-mode names RBAC
	// (nil otherwise), fed by rbacInformers.
	rbac          *RBACAuthorizer
	rbacInformers []*Informer
	// clusterRoles feeds aggregator, which keeps aggregated ClusterRoles'
	// rules (controller_aggregation.go).
	clusterRoles *Informer
	aggregator   *clusterRoleAggregator
	// crds feeds crdController (controller_crd.go): CRD conditions,
	// accepted names and the cleanup finalizer.
	crds          *Informer
	crdController *crdController
	// crdServing serves custom resources and their automanaged
	// APIServices (controller_crd_serving.go).
	crdServing *crdServing

	// reviews answers TokenReviews and access reviews
	// (reviews.go); extensionAuth writes the
	// extension-apiserver-authentication ConfigMap (extension_configmap.go).
	reviews *reviewHandler
	// builtin serves aggsim's own group/versions: the REST API plus the
	// review resources (reviews.go).
	builtin       *builtinAPI
	extensionAuth *extensionAuthWriter
	// inspector records requests; nil when Options.InspectorRingSize is 0.
	inspector *Inspector
}

// New assembles a Server. Errors: a missing Storage, an unknown
// AuthorizationMode, an unreadable TokenAuthFile, invalid discovery options.
func New(opts Options) (*Server, error) {
	if opts.Storage == nil {
		return nil, errors.New("aggregator: Options.Storage is required")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	now := opts.Clock
	if now == nil {
		now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if err := ValidateControllers(opts.Controllers); err != nil {
		return nil, err
	}
	if err := ValidateFeatureConfig(opts); err != nil { // features_server.go
		return nil, err
	}
	if opts.AvailabilityCheckInterval == 0 {
		opts.AvailabilityCheckInterval = DefaultAvailabilityCheckInterval
	}
	var rbacAuthz *RBACAuthorizer
	authz := opts.Authorizer
	if authz == nil {
		modes, err := ParseAuthorizationModes(opts.AuthorizationMode)
		if err != nil {
			return nil, err
		}
		if slices.Contains(modes, ModeRBAC) {
			rbacAuthz = NewRBACAuthorizer()
		}
		authz = authorizerFor(modes, rbacAuthz)
	}
	var tokens *TokenFile
	if opts.TokenAuthFile != "" {
		var err error
		if tokens, err = LoadTokenFile(opts.TokenAuthFile); err != nil {
			return nil, err
		}
	}

	if err := ensureServiceIPRange(opts.Storage); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, logger: logger, now: now, ready: make(chan struct{}), hooks: newStartHooks(), rbac: rbacAuthz}
	s.admission = newAdmissionDispatcher(s)
	var admit func(context.Context, registry.ResourceInfo, meta.Object, meta.Object) error
	if rbacAuthz != nil { // escalation prevention (rbac_escalation.go)
		admit = rbacEscalationCheck(authz, rbacAuthz)
	}
	s.api = rest.NewAPI(opts.Storage, append(registry.Strategies(now), append(registry.ReviewStrategies(), alphaStrategies(opts, now)...)...), registry.StoreOptions{
		Clock:     now,
		Logger:    logger,
		Admit:     admit,
		Admission: s.admission,
		NamespaceTerminating: func(ctx context.Context, ns string) (bool, bool, error) {
			obj, err := s.api.Store(meta.GroupResource{Resource: "namespaces"}).Get(ctx, "", ns)
			if err == nil {
				return true, obj.(*core.Namespace).Status.Phase == core.NamespaceTerminating, nil
			}
			var se *meta.StatusError
			if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
				return false, false, nil
			}
			return false, false, err
		},
	})
	s.apiServices = NewInformer(s.api.Store(apiServicesResource), logger)
	s.services = NewInformer(s.api.Store(meta.GroupResource{Resource: "services"}), logger)
	s.endpoints = NewInformer(s.api.Store(meta.GroupResource{Resource: "endpoints"}), logger)
	s.flowSchemas = NewInformer(s.api.Store(flowSchemasResource), logger)
	s.priorityLevels = NewInformer(s.api.Store(priorityLevelsResource), logger)
	s.crds = NewInformer(s.api.Store(crdResource), logger) // controller_crd.go
	if rbacAuthz != nil {                                  // RBAC objects feed the authorizer's index
		for _, res := range rbacResources {
			inf := NewInformer(s.api.Store(res), logger)
			inf.AddHandler(rbacAuthz.OnChange)
			s.rbacInformers = append(s.rbacInformers, inf)
			if res.Resource == "clusterroles" {
				s.clusterRoles = inf // one list of the ClusterRoles, not two
			}
		}
	}
	// ClusterRole aggregation (controller_aggregation.go), in every mode:
	// on the authorizer's ClusterRole informer, or one of its own
	if s.clusterRoles == nil {
		s.clusterRoles = NewInformer(s.api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"}), logger)
	}
	s.aggregator = newClusterRoleAggregator(s.clusterRoles, loopback{api: s.api}, logger)
	loop := loopback{api: s.api}
	s.apfProducer = &apfProducer{api: s.api, client: loop, logger: logger, now: now, interval: opts.APFEnsureInterval}
	if s.apfProducer.interval <= 0 {
		s.apfProducer.interval = apfEnsureInterval
	}
	s.apfConsumer = newAPFConsumer(s.flowSchemas, s.priorityLevels, loop, logger, now)

	s.transports = proxy.NewTransports(proxy.TransportOptions{GetClientCertificate: opts.ProxyClientCertificate})
	if opts.OnProxyClientCertChange != nil {
		opts.OnProxyClientCertChange(s.transports.CloseIdleConnections)
	}
	backends := proxy.NewServiceCache()
	feedServiceCache(backends, s.services, s.endpoints)
	s.resolver = proxy.NewEndpointServiceResolver(backends)

	coreResources, _ := s.api.APIResourceList("", "v1")
	apiregResources, _ := s.api.APIResourceList(apiregistration.GroupAPIRegistration, "v1")
	refresh := opts.DiscoveryRefreshInterval
	dm, err := discovery.New(discovery.Options{
		Fetcher:                  discovery.FetcherFunc(s.fetchDiscovery),
		Logger:                   logger,
		RefreshInterval:          refresh,
		ServeV2Beta1:             opts.ServeAggregatedV2Beta1,
		APIRegistrationResources: apiregResources,
		CoreResources:            coreResources,
		OnRebuild: func(d time.Duration) {
			s.onDiscoveryRebuild(d) // metrics.go
			if s.gc != nil {
				s.gc.requestResync() // new kinds for the garbage collector
			}
		},
	})
	if err != nil {
		return nil, err
	}
	s.discovery = dm
	s.openapi = openapiaggregator.NewController(s.fetchOpenAPI, logger, now) // OpenAPI aggregation (aggregator/openapiaggregator)
	// the alpha group/versions --runtime-config enabled (features_server.go)
	if admissionRegistrationV1Alpha1(opts) {
		s.openapi.SetLocalAlphaV3(registry.OpenAPIV3AlphaGroupVersions)
	}

	s.metrics = newMetrics(opts.Registerer, opts.Gatherer)
	if opts.InspectorRingSize > 0 { // inspector.go
		s.inspector = NewInspector(opts.InspectorRingSize, opts.ProxyClientCertificate)
	}
	s.mux = NewMux(logger)
	s.installStaticRoutes()
	// Review resources and the extension-apiserver-authentication writer.
	s.reviews = newReviewHandler(tokens, authz, logger, now)
	var impersonators []string
	if rbacAuthz != nil {
		// RBAC decides who may impersonate (cluster-admin, and
		// system:masters ahead of it), as upstream
		impersonators = []string{}
		s.reviews.authz = ImpersonationAuthorizer{ImpersonatorGroups: impersonators, Delegate: authz}
	}
	s.saTokens = newServiceAccountTokens(opts.ServiceAccountTokens, serviceAccountGetter(s.api), now) // serviceaccount_token.go
	s.reviews.saTokens = s.saTokens
	s.reviews.audiences = s.saTokens.opts.APIAudiences
	s.builtin = &builtinAPI{API: s.api, reviews: s.reviews}
	if opts.ServiceAccountTokens.Keys != nil {
		s.builtin.tokenRequests = &tokenRequestHandler{tokens: s.saTokens, now: now}
		s.oidc = newOIDCDiscovery(s.saTokens, opts.AdvertiseAddress, opts.SecurePort)
		s.installOIDCRoutes()
	}
	s.extensionAuth = newExtensionAuthWriter(s)
	s.apiHandlers = &apiHandlerManager{
		router: s.mux, local: s.builtin, newProxy: s.newProxyHandler,
		discovery: s.discovery, openapi: s.openapi, groupHandler: s.groupHandler,
	}
	s.registration = registrationController{lister: s.apiServices, handlers: s.apiHandlers}
	s.apiServices.AddHandler(s.registration.onChange)
	// CRDs: serving and automanaged APIServices, then conditions and
	// cleanup (controller_crd_serving.go, controller_crd.go)
	s.crdServing = newCRDServing(s.crds, s.apiServices, s.api, s.api.Store(apiServicesResource), s.registration.sync, s.openapi, logger, now)
	s.crdServing.conversion = newCRDConversion(s.admission.Poster(), logger) // crd_conversion.go
	s.crdController = newCRDController(s.crds, s.api.Store(crdResource), s.crdServing, logger, now)
	s.prober = &discoveryProber{services: s.services, endpoints: s.endpoints, resolver: s.resolver, transport: s.transports.ProbeTransport}
	s.availability = newAvailabilityController(availabilityConfig{
		apiServices: s.apiServices, services: s.services, endpoints: s.endpoints,
		prober: s.prober, status: rest.ObjectWriter{Store: s.api.Store(apiServicesResource), Manager: "kube-apiserver"}, metrics: s.metrics,
		logger: logger, now: now, interval: opts.AvailabilityCheckInterval,
	})

	s.handler = BuildHandlerChain(s.mux, ChainOptions{
		Authn: AuthnOptions{
			ClientCA:             opts.ClientCA,
			TokenFile:            tokens,
			ServiceAccountTokens: s.saTokens.authenticator(),
			RequestHeader:        opts.RequestHeader,
			Anonymous:            opts.Anonymous,
		},
		Authorizer:         authz,
		ImpersonatorGroups: impersonators,
		RequestTimeout:     opts.RequestTimeout,
		Observer:           requestMetrics{s}, // request metrics, metrics.go
		Inspector:          s.inspector,
		Logger:             logger,
	})
	s.leader = alwaysLeader()
	if opts.LeaderElection {
		s.leader = newLeaderElector(s.api.Store(meta.GroupResource{Group: registry.GroupCoordination, Resource: "leases"}), logger, now)
	}
	s.aggregator.leading = s.leader.Leading
	s.leader.OnStartedLeading(s.aggregator.kickOnce)
	nsEnabled, saEnabled := ControllerEnabled("namespace-controller", opts.Controllers), ControllerEnabled(ServiceAccountControllerName, opts.Controllers)
	if nsEnabled || saEnabled { // one namespace informer for both controllers
		s.namespaces = NewInformer(s.api.Store(meta.GroupResource{Resource: "namespaces"}), logger)
	}
	if nsEnabled {
		s.nsController = newNamespaceController(s.handler, s.namespaces, logger, now)
		s.nsController.leading = s.leader.Leading
		s.leader.OnStartedLeading(s.nsController.requeueAll)
		// A blocked namespace may go on once an APIService changes
		// (turns Available, is deleted) or discovery is rebuilt.
		s.apiServices.AddHandler(func(_, _ meta.Object) { s.nsController.requeueAll() })
	}
	if ControllerEnabled("garbage-collector-controller", opts.Controllers) { // controller_gc.go
		s.gc = newGarbageCollector(s.handler, s.api, logger) // re-reads discovery on its rebuilds (OnRebuild above)
	}
	if saEnabled { // controller_serviceaccount.go
		s.saController = newServiceAccountsController(s.namespaces,
			NewInformer(s.api.Store(meta.GroupResource{Resource: "serviceaccounts"}), logger),
			loopback{api: s.api, userAgent: serviceAccountControllerUserAgent}, logger)
	}
	return s, nil
}

var apiServicesResource = meta.GroupResource{Group: apiregistration.GroupAPIRegistration, Resource: "apiservices"}

// Handler returns the server's root handler: the filter chain around the
// router.
func (s *Server) Handler() http.Handler { return s.handler }

// API returns the local REST API (the store of every local resource).
func (s *Server) API() *rest.API { return s.api }

// GitVersion is the Kubernetes-like version /version reports.
func (s *Server) GitVersion() string { return KubeVersion + "-aggsim." + s.opts.Version }

// Ready is closed once the initial sync of APIServices, Services,
// Endpoints and discovery is done (/readyz turns ok).
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Run starts the informers and controllers and blocks until ctx ends.
func (s *Server) Run(ctx context.Context) {
	// The bootstrap objects are written together (see ensureObjects), in
	// as few transactions as the store can (bootstrap_batch.go).
	ctx = withWriteExpecter(ctx, s.opts.Storage)
	// Unsynced until ready on a fresh bbolt store (store_persist.go).
	ctx = storage.WithStartupWrites(ctx)
	bootCtx := ctx // the bootstrap writes' (generated bytes on a fresh store: bootstrap_stored.go)
	if freshStore(ctx, s.api.Store(meta.GroupResource{Resource: "namespaces"})) {
		bootCtx = withFreshStore(ctx)
	}
	var boot sync.WaitGroup
	boot.Add(5)
	namespacesDone := make(chan struct{})
	// The bootstrap RBAC policy (127 objects, rbac_bootstrap.go) is in
	// place before /readyz turns ok, in every mode, as kube-apiserver's
	// rbac/bootstrap-roles hook: a client that waits for readiness finds
	// the roles (written after ready, one start in five showed 37 of 66
	// ClusterRoles right after /readyz).
	go func() {
		defer boot.Done()
		if err := s.ensureBootstrapPolicy(bootCtx, namespacesDone); err != nil && ctx.Err() == nil { // rbac_bootstrap.go
			s.logger.Error("write the bootstrap RBAC policy", "err", err)
		}
	}()
	go func() {
		defer boot.Done()
		// Created here when missing; the Endpoints are brought up to
		// date (a new port) below, off the readiness path, as upstream's
		// endpoint reconciler after start (the Service is never updated).
		if err := s.ensureKubernetesService(ctx, false); err != nil { // kubernetes_service.go
			s.logger.Error("create the kubernetes Service", "err", err)
		}
	}()
	go func() {
		defer boot.Done()
		if err := s.apfProducer.createMissing(bootCtx); err != nil {
			s.logger.Error("create APF bootstrap configuration", "err", err)
		}
	}()
	go func() {
		defer boot.Done()
		defer close(namespacesDone)
		if err := s.ensureSystemNamespaces(bootCtx); err != nil {
			s.logger.Error("create system namespaces", "err", err)
			return
		}
		close(s.hooks.systemNamespaces)
	}()
	go func() {
		defer boot.Done()
		if err := s.ensureLocalAPIServices(bootCtx); err != nil {
			s.logger.Error("register local APIServices", "err", err)
			return
		}
		close(s.hooks.autoregistration)
	}()
	boot.Wait()
	persisted := s.persistStoreAsync() // beside the informers' first lists (store_persist.go)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.ensureKubernetesService(ctx, true); err != nil && ctx.Err() == nil {
			s.logger.Error("update the kubernetes Service's Endpoints", "err", err)
		}
	}()
	for _, run := range []func(context.Context){s.crds.Run, s.crdController.Run, s.crdServing.Run} { // controller_crd*.go
		wg.Add(1)
		go func() { defer wg.Done(); run(ctx) }()
	}
	for _, inf := range append([]*Informer{s.services, s.endpoints, s.apiServices}, s.rbacInformers...) {
		wg.Add(1)
		go func() { defer wg.Done(); inf.Run(ctx) }()
	}
	close(s.hooks.informers)
	wg.Add(1)
	go func() { defer wg.Done(); s.discovery.Run(ctx) }()
	wg.Add(1)
	go func() { defer wg.Done(); s.availability.Run(ctx) }()
	wg.Add(1) // OpenAPI aggregation (aggregator/openapiaggregator)
	go func() { defer wg.Done(); s.openapi.Run(ctx) }()
	wg.Add(1)
	go func() { defer wg.Done(); s.extensionAuth.Run(ctx) }()
	// What is not needed for readiness starts once ready, so it does not
	// compete with the start-up for the CPU: the APF configuration
	// producer and consumer (controller_apf.go) with their informers, the
	// lease (leaderelection.go) and the namespace controller (gated per
	// pass by s.leader.Leading). The garbage collector and the default
	// ServiceAccounts wait for this replica to lead as well; once started
	// they keep running: after a lost lease two replicas may act on the
	// same objects for a while, which preconditioned deletes and creates
	// that meet AlreadyExists make harmless (upstream's controller manager
	// exits instead).
	runs := []func(context.Context){s.flowSchemas.Run, s.priorityLevels.Run, s.apfConsumer.Run, s.apfProducer.Run, s.aggregator.Run}
	if !slices.Contains(s.rbacInformers, s.clusterRoles) { // else it runs with them, before ready
		runs = append(runs, s.clusterRoles.Run)
	}
	if s.opts.LeaderElection {
		runs = append(runs, s.leader.Run)
	}
	if s.namespaces != nil {
		runs = append(runs, s.namespaces.Run)
	}
	if s.nsController != nil {
		runs = append(runs, s.nsController.Run)
	}
	laneCtx := withStartLane(ctx, startLaneWait) // their first passes one at a time (start_lane.go)
	goAfter(laneCtx, &wg, runs, s.ready)
	var leaderRuns []func(context.Context)
	if s.gc != nil { // controller_gc.go
		leaderRuns = append(leaderRuns, s.gc.Run)
	}
	if s.saController != nil { // controller_serviceaccount.go
		leaderRuns = append(leaderRuns, s.saController.Run)
	}
	goAfter(laneCtx, &wg, leaderRuns, s.ready, s.leader.Started())
	close(s.hooks.controllers)
	go func() {
		synced := []<-chan struct{}{s.services.Synced(), s.endpoints.Synced(), s.apiServices.Synced(), s.discovery.Synced()}
		for _, inf := range s.rbacInformers { // RBAC decides nothing before its index is loaded
			synced = append(synced, inf.Synced())
		}
		for _, ch := range synced {
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
		if !waitPersisted(ctx, persisted) { // store_persist.go
			return
		}
		s.readyOnce.Do(func() { close(s.ready) })
	}()
	<-ctx.Done()
	s.hooks.shutdown()
	s.api.Shutdown()
	wg.Wait()
}

// goAfter runs each of runs in its own goroutine (counted in wg) once
// every channel of after is closed, or none of them if ctx ends first.
func goAfter(ctx context.Context, wg *sync.WaitGroup, runs []func(context.Context), after ...<-chan struct{}) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, ch := range after {
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
		for _, run := range runs {
			wg.Add(1)
			go func() { defer wg.Done(); run(ctx) }()
		}
	}()
}

// Shutdown ends every open watch so an http.Server's Shutdown does not
// wait for them, and turns /readyz's shutdown check failed.
func (s *Server) Shutdown() {
	s.hooks.shutdown()
	s.api.Shutdown()
}

// localAPIServices are the APIServices kube-apiserver's autoregister
// controller creates for the groups it serves itself (label
// kube-aggregator.kubernetes.io/automanaged: onstart), limited to the groups
// aggsim serves. apiregistration.k8s.io has none, as upstream.
func (s *Server) localAPIServices() []*apiregistration.APIService {
	prio := map[string][2]int32{"": {18000, 1}, // group -> gpm, vp (builtin-priorities.txt)
		// groups of the delegated-authentication surface (builtin-priorities.txt):
		authentication.GroupAuthentication: {17700, 15}, authorization.GroupAuthorization: {17600, 15},
		registry.GroupAdmissionRegistration: {16700, 15}, registry.GroupFlowControl: {16100, 21},
		registry.GroupRBAC: {17000, 15}, registry.GroupCoordination: {16500, 15}, registry.GroupAPIExtensions: {16700, 15},
	}
	var out []*apiregistration.APIService
	for _, gv := range s.api.GroupVersions() {
		if gv.Group == apiregistration.GroupAPIRegistration {
			continue
		}
		p, ok := prio[gv.Group]
		if !ok {
			p = [2]int32{16000, 15}
		}
		if gv.Version == "v1alpha1" {
			p[1] = 9 // builtin-priorities: v1alpha1.admissionregistration.k8s.io
		}
		out = append(out, &apiregistration.APIService{
			TypeMeta: meta.TypeMeta{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1"},
			ObjectMeta: meta.ObjectMeta{
				Name:   gv.Version + "." + gv.Group,
				Labels: map[string]string{"kube-aggregator.kubernetes.io/automanaged": "onstart"},
			},
			Spec: apiregistration.APIServiceSpec{Group: gv.Group, Version: gv.Version, GroupPriorityMinimum: p[0], VersionPriority: p[1]},
		})
	}
	return out
}

// systemNamespaces exist from the start, as kube-apiserver's
// system-namespaces controller creates them (plus "default").
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// ensureSystemNamespaces creates the missing system namespaces, owned by
// manager "kube-apiserver" as upstream's controller creates them.
func (s *Server) ensureSystemNamespaces(ctx context.Context) error {
	objs := systemNamespaceObjects() // rbac_bootstrap_fields.go
	return ensureObjects(ctx, rest.ObjectWriter{Store: s.api.Store(meta.GroupResource{Resource: "namespaces"}), Manager: "kube-apiserver", CreateFields: bootstrapCreateFields("namespaces")}, "namespace", objs, nil)
}

// ensureLocalAPIServices creates the automanaged local APIServices that
// are missing (upstream's autoregister controller, onstart mode), owned by
// manager "kube-apiserver" as upstream's controller creates them.
func (s *Server) ensureLocalAPIServices(ctx context.Context) error {
	var objs []meta.Object
	for _, a := range s.localAPIServices() {
		objs = append(objs, a)
	}
	return ensureObjects(ctx, rest.ObjectWriter{Store: s.api.Store(apiServicesResource), Manager: "kube-apiserver", CreateFields: bootstrapCreateFields("apiservices")}, "apiservice", objs, nil)
}

// serviceIPRangeKey holds the service IP range, as kube-apiserver's service
// IP allocator records its RangeAllocation in etcd.
const serviceIPRangeKey = "/registry/ranges/serviceips"

// ensureServiceIPRange writes the service IP range record of a fresh store
// (registry.ServiceClusterIPRange, from which Services' cluster IPs are
// derived), before the REST stores are made. kube-apiserver writes its
// allocator's record first, so its watch caches begin at revision 2 of a
// fresh etcd and a watch from resourceVersion 1 answers 410 `too old
// resource version: 1 (2)`; aggsim's stores begin where the store is when
// they are made, so the same holds. Errors are the store's.
func ensureServiceIPRange(st storage.Storage) error {
	ctx, cancel := context.WithTimeout(storage.WithStartupWrites(context.Background()), 30*time.Second)
	defer cancel()
	if _, err := st.Get(ctx, serviceIPRangeKey); !errors.Is(err, storage.ErrKeyNotFound) {
		return err
	}
	rec := `{"kind":"RangeAllocation","apiVersion":"v1","metadata":{"creationTimestamp":null},"range":"` + registry.ServiceClusterIPRange + `","data":""}`
	if _, err := st.Create(ctx, serviceIPRangeKey, []byte(rec)); err != nil && !errors.Is(err, storage.ErrKeyExists) {
		return fmt.Errorf("aggregator: record the service IP range: %w", err)
	}
	return nil
}

// installStaticRoutes registers what does not depend on APIServices.
func (s *Server) installStaticRoutes() {
	m := s.mux
	m.Legacy(http.HandlerFunc(s.serveLegacy))
	m.Handle("/apis", prompt(http.HandlerFunc(s.discovery.ServeAPIs)))
	m.Handle("/apis/", prompt(http.HandlerFunc(s.discovery.ServeAPIs)))
	g := apiregistration.GroupAPIRegistration
	m.Handle("/apis/"+g, s.groupHandler(g))
	m.UnlistedHandle("/apis/"+g+"/", s.groupHandler(g)) // not in / upstream
	m.Builtin(g, "v1", s.api)
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		negotiation.WriteStatus(w, r, meta.NewPathNotFound())
	})
	groups := map[string]bool{}
	for _, gv := range s.api.GroupVersions() {
		if gv.Group != "" && !groups[gv.Group] {
			groups[gv.Group] = true
			m.LocalGroup(gv.Group, notFound)
		}
	}
	m.Handle("/version", prompt(http.HandlerFunc(s.serveVersion)))
	m.UnlistedHandle("/version/", prompt(http.HandlerFunc(s.serveVersion))) // not in / upstream
	s.installHealthRoutes()
	s.installOpenAPIRoutes()
	s.installMetricsAndDebugRoutes() // /metrics, /debug/aggsim/apiservices (metrics.go, explain.go)
	s.installInspectorRoutes()       // /debug/aggsim/requests, discovery (inspector_api.go)
}

// installOIDCRoutes serves ServiceAccount issuer discovery
// (serviceaccount_oidc.go), with and without a trailing slash as
// kube-apiserver answers both (captured: 200); "/" lists the two paths.
func (s *Server) installOIDCRoutes() {
	for path, h := range map[string]http.HandlerFunc{pathOIDCConfiguration: s.oidc.ServeConfiguration, pathOIDCJWKS: s.oidc.ServeJWKS} {
		s.mux.Handle(path, prompt(h))
		s.mux.UnlistedHandle(path+"/", prompt(h))
	}
}

// serveLegacy serves the /api tree while the v1. APIService is local:
// /api and /api/ are discovery (aggregated when asked for, else
// APIVersions), everything below is the built-in REST API.
func (s *Server) serveLegacy(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api" || r.URL.Path == "/api/" {
		s.serveAPIRoot(w, r)
		return
	}
	s.builtin.ServeHTTP(w, r)
}

// serveAPIRoot answers /api: aggregated discovery when asked for, else
// APIVersions.
func (s *Server) serveAPIRoot(w http.ResponseWriter, r *http.Request) {
	s.discovery.ServeAPI(w, r)
}

func (s *Server) groupHandler(group string) http.Handler {
	return prompt(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.discovery.ServeGroup(w, r, group)
	}))
}

// fetchDiscovery sends a discovery request to svc's backend through its
// proxy handler, as upstream's discovery manager does.
func (s *Server) fetchDiscovery(ctx context.Context, svc discovery.APIService, req *http.Request) (*http.Response, error) {
	h := s.apiHandlers.proxyHandler(svc.Name)
	if h == nil {
		return nil, proxy.ErrNotProxied
	}
	u, _ := request.UserFrom(req.Context())
	return h.Do(ctx, req, u)
}

// newProxyHandler returns the proxy handler of a new remote APIService.
// Proxied requests run without the timeout step's second goroutine (the
// chain knows them from the router): their handler answers a passed
// deadline with the timeout step's Status itself.
func (s *Server) newProxyHandler() *proxy.Handler {
	return proxy.NewHandler(proxy.Options{
		Resolver:   s.resolver,
		Transports: s.transports,
		Logger:     s.logger,
		OnRequest:  s.onProxyRequest,
		RecordHops: s.inspector != nil,
		InterceptError: func(w http.ResponseWriter, r *http.Request, _ error) bool {
			if !requestTimedOut(r.Context()) {
				return false
			}
			writeTimeoutStatus(w)
			return true
		},
	})
}

// feedServiceCache keeps c current from the Service and Endpoints
// informers, converting each object once per change to the view the
// resolver reads (only ready addresses; ports by name and number).
func feedServiceCache(c *proxy.ServiceCache, services, endpoints eventSource) {
	services.AddHandler(func(old, cur meta.Object) {
		if cur == nil {
			m := old.GetObjectMeta()
			c.DeleteService(m.Namespace, m.Name)
			return
		}
		svc := cur.(*core.Service)
		out := &proxy.Service{Type: proxy.ServiceType(svc.Spec.Type), ExternalName: svc.Spec.ExternalName}
		for _, p := range svc.Spec.Ports {
			out.Ports = append(out.Ports, proxy.ServicePort{Name: p.Name, Port: p.Port, TargetPort: p.TargetPort.String()})
		}
		c.SetService(svc.Namespace, svc.Name, out)
	})
	endpoints.AddHandler(func(old, cur meta.Object) {
		if cur == nil {
			m := old.GetObjectMeta()
			c.DeleteEndpoints(m.Namespace, m.Name)
			return
		}
		ep := cur.(*core.Endpoints)
		out := &proxy.Endpoints{}
		for _, ss := range ep.Subsets {
			var sub proxy.EndpointSubset
			for _, a := range ss.Addresses {
				sub.Addresses = append(sub.Addresses, proxy.EndpointAddress{IP: a.IP})
			}
			for _, p := range ss.Ports {
				sub.Ports = append(sub.Ports, proxy.EndpointPort{Name: p.Name, Port: p.Port})
			}
			out.Subsets = append(out.Subsets, sub)
		}
		c.SetEndpoints(ep.Namespace, ep.Name, out)
	})
}

// fetchOpenAPI sends an OpenAPI request to the backend of the APIService
// name through its proxy handler as system:aggregator, as upstream's
// OpenAPI downloaders do.
func (s *Server) fetchOpenAPI(ctx context.Context, name string, req *http.Request) (*http.Response, error) {
	h := s.apiHandlers.proxyHandler(name)
	if h == nil {
		return nil, proxy.ErrNotProxied
	}
	return h.Do(ctx, req, &authentication.UserInfo{Username: "system:aggregator"})
}

// installOpenAPIRoutes registers /openapi/v2, /openapi/v3 and
// /openapi/v3/<key>, served from s.openapi's snapshot.
func (s *Server) installOpenAPIRoutes() {
	c := s.openapi
	s.mux.Handle("/openapi/v2", prompt(http.HandlerFunc(c.ServeV2)))
	s.mux.Handle("/openapi/v3", prompt(http.HandlerFunc(c.ServeV3Index)))
	s.mux.HandlePrefix("/openapi/v3/", prompt(http.HandlerFunc(c.ServeV3Document)))
}
