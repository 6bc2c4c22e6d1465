package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ServiceResolver turns an APIService's spec.service (namespace, name,
// port) into the URL of one backend endpoint, scheme https, path empty.
// It mirrors kube-aggregator/pkg/apiserver/resolvers.go. Implementations
// are called on every proxied request and must be fast and safe for
// concurrent use.
type ServiceResolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// ResolverFunc adapts a function to ServiceResolver.
type ResolverFunc func(namespace, name string, port int32) (*url.URL, error)

// ResolveEndpoint calls f.
func (f ResolverFunc) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return f(namespace, name, port)
}

// ServiceLister reads the Services and Endpoints the resolver needs. The
// aggregator adapts the registry's core objects to it. A missing object is
// reported either as (nil, nil) or as an error that matches
// meta.ErrNotFound under errors.Is (any NotFound *meta.StatusError does); any other error is passed through
// wrapped.
type ServiceLister interface {
	GetService(namespace, name string) (*Service, error)
	GetEndpoints(namespace, name string) (*Endpoints, error)
}

// ServiceType is a core/v1 Service spec.type.
type ServiceType string

// The Service types of core/v1. An empty type means ClusterIP (the API
// server's default).
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// Service is the part of a core/v1 Service the resolver reads.
type Service struct {
	// Type is spec.type; "" means ClusterIP.
	Type ServiceType
	// ExternalName is spec.externalName, used when Type is ExternalName.
	ExternalName string
	// Ports is spec.ports. Ignored for ExternalName services.
	Ports []ServicePort
}

// ServicePort is one entry of a Service's spec.ports.
type ServicePort struct {
	// Name is the port's name; "" for the single unnamed port.
	Name string
	// Port is the port number the Service exposes (matched against the
	// APIService's spec.service.port).
	Port int32
	// TargetPort is spec.ports[].targetPort as written, a number or a
	// container port name. Informational: the port number actually dialled
	// comes from the Endpoints.
	TargetPort string
}

// Endpoints is the part of a core/v1 Endpoints object the resolver reads.
type Endpoints struct {
	Subsets []EndpointSubset
}

// EndpointSubset is a group of ready addresses sharing a set of ports.
// Not-ready addresses are not represented: they are never dialled.
type EndpointSubset struct {
	Addresses []EndpointAddress
	Ports     []EndpointPort
	// hostPorts are the addresses joined with each port, "ip:port"
	// (bracketed IPv6), at [port index*len(Addresses)+address index]:
	// built once per Endpoints change by ServiceCache.SetEndpoints, so
	// that resolving a proxied request formats nothing. nil elsewhere.
	hostPorts []string
}

// withHostPorts returns ss with hostPorts built.
func (ss EndpointSubset) withHostPorts() EndpointSubset {
	ss.hostPorts = make([]string, 0, len(ss.Ports)*len(ss.Addresses))
	for _, p := range ss.Ports {
		for _, a := range ss.Addresses {
			ss.hostPorts = append(ss.hostPorts, net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
		}
	}
	return ss
}

// EndpointAddress is one ready endpoint address.
type EndpointAddress struct {
	// IP is an IPv4 or IPv6 address (loopback allowed here).
	IP string
}

// EndpointPort is one port of an EndpointSubset.
type EndpointPort struct {
	// Name matches the ServicePort.Name it implements.
	Name string
	// Port is the port number to dial.
	Port int32
}

// NewEndpointServiceResolver returns the resolver the aggregator uses when
// it routes to endpoints (upstream's NewEndpointServiceResolver with
// ResolveEndpoint from apiserver/pkg/util/proxy/proxy.go, over Endpoints
// instead of EndpointSlices):
//
//   - Service missing: *ServiceNotFoundError.
//   - ExternalName: https://<externalName>:<port>; the Service's own ports
//     are ignored (FINDINGS §0).
//   - ClusterIP (or ""), NodePort, LoadBalancer: the service port whose
//     number is port (else *ServicePortError); its Endpoints (else
//     *EndpointsNotFoundError); a random ready address among the subsets
//     that carry a port named like the service port, dialled at that
//     endpoint port (else *MissingEndpointsError).
//   - Any other type: *UnsupportedServiceTypeError.
//
// The choice among addresses uses math/rand/v2; it is not reproducible.
func NewEndpointServiceResolver(lister ServiceLister) ServiceResolver {
	return &endpointResolver{lister: lister}
}

type endpointResolver struct {
	lister ServiceLister
}

func isNotFound(obj bool, err error) bool {
	return (err == nil && !obj) || errors.Is(err, meta.ErrNotFound)
}

// ResolveEndpoint implements ServiceResolver; see NewEndpointServiceResolver.
func (r *endpointResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	host, err := r.resolveHost(namespace, name, port)
	if err != nil {
		return nil, err
	}
	return &url.URL{Scheme: "https", Host: host}, nil
}

// resolveHost is ResolveEndpoint's host:port without the URL around it;
// the proxy handler calls it (resolveHost in resolvehost.go) so that a
// proxied request allocates nothing to find its backend address.
func (r *endpointResolver) resolveHost(namespace, name string, port int32) (string, error) {
	svc, err := r.lister.GetService(namespace, name)
	if isNotFound(svc != nil, err) {
		return "", &ServiceNotFoundError{Namespace: namespace, Name: name}
	}
	if err != nil {
		return "", fmt.Errorf("get service %s/%s: %w", namespace, name, err)
	}
	switch svc.Type {
	case ServiceTypeExternalName:
		return net.JoinHostPort(svc.ExternalName, strconv.Itoa(int(port))), nil
	case "", ServiceTypeClusterIP, ServiceTypeNodePort, ServiceTypeLoadBalancer:
	default:
		return "", &UnsupportedServiceTypeError{Type: svc.Type}
	}

	var sp *ServicePort
	for i := range svc.Ports {
		if svc.Ports[i].Port == port {
			sp = &svc.Ports[i]
			break
		}
	}
	if sp == nil {
		return "", &ServicePortError{Namespace: namespace, Name: name, Port: port}
	}

	eps, err := r.lister.GetEndpoints(namespace, name)
	if isNotFound(eps != nil, err) {
		return "", &EndpointsNotFoundError{Namespace: namespace, Name: name}
	}
	if err != nil {
		return "", fmt.Errorf("get endpoints %s/%s: %w", namespace, name, err)
	}

	// Count the candidates first, then pick one without allocating a list.
	total := 0
	for _, ss := range eps.Subsets {
		if _, ok := subsetPort(ss, sp.Name); ok {
			total += len(ss.Addresses)
		}
	}
	if total == 0 {
		return "", &MissingEndpointsError{Namespace: namespace, Name: name, PortName: sp.Name}
	}
	n := rand.IntN(total)
	for _, ss := range eps.Subsets {
		j := slices.IndexFunc(ss.Ports, func(p EndpointPort) bool { return p.Name == sp.Name })
		if j < 0 {
			continue
		}
		if n < len(ss.Addresses) {
			if ss.hostPorts != nil {
				return ss.hostPorts[j*len(ss.Addresses)+n], nil
			}
			return net.JoinHostPort(ss.Addresses[n].IP, strconv.Itoa(int(ss.Ports[j].Port))), nil
		}
		n -= len(ss.Addresses)
	}
	panic("unreachable: candidate count changed")
}

// subsetPort returns the number of the port named name in ss.
func subsetPort(ss EndpointSubset, name string) (int32, bool) {
	for _, p := range ss.Ports {
		if p.Name == name {
			return p.Port, true
		}
	}
	return 0, false
}

// httpsURL returns https://host:port, bracketing IPv6 literals.
func httpsURL(host string, port int32) *url.URL {
	return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, strconv.Itoa(int(port)))}
}

// serviceDNSResolver resolves to the Service's cluster DNS name; it is the
// documented default when Options.Resolver is nil.
func serviceDNSResolver(namespace, name string, port int32) (*url.URL, error) {
	return httpsURL(name+"."+namespace+".svc", port), nil
}

var _ ServiceResolver = (*endpointResolver)(nil)
var _ ServiceResolver = ResolverFunc(nil)

// ServiceCache is the ServiceLister the aggregator keeps current from its
// Service and Endpoints informers (SetService, DeleteService, SetEndpoints,
// DeleteEndpoints run in the informers' event handlers), so that resolving
// a backend on the request path reads this package's own maps and nothing
// of the store. A missing object is (nil, nil). Stored values are shared
// with readers and must not be modified after Set. Safe for concurrent
// use; readers take only a read lock and do not allocate.
type ServiceCache struct {
	mu        sync.RWMutex
	services  map[objectName]*Service
	endpoints map[objectName]*Endpoints
}

// objectName is a namespace/name key.
type objectName struct{ namespace, name string }

var _ ServiceLister = (*ServiceCache)(nil)

// NewServiceCache returns an empty ServiceCache.
func NewServiceCache() *ServiceCache {
	return &ServiceCache{services: map[objectName]*Service{}, endpoints: map[objectName]*Endpoints{}}
}

// SetService records the current state of Service namespace/name.
func (c *ServiceCache) SetService(namespace, name string, s *Service) {
	c.mu.Lock()
	c.services[objectName{namespace, name}] = s
	c.mu.Unlock()
}

// DeleteService forgets Service namespace/name.
func (c *ServiceCache) DeleteService(namespace, name string) {
	c.mu.Lock()
	delete(c.services, objectName{namespace, name})
	c.mu.Unlock()
}

// SetEndpoints records the current state of Endpoints namespace/name. The
// cache keeps a copy of e's subsets with each address's host:port per port
// formatted once (e itself is not changed).
func (c *ServiceCache) SetEndpoints(namespace, name string, e *Endpoints) {
	if e != nil {
		cp := *e
		cp.Subsets = make([]EndpointSubset, len(e.Subsets))
		for i, ss := range e.Subsets {
			cp.Subsets[i] = ss.withHostPorts()
		}
		e = &cp
	}
	c.mu.Lock()
	c.endpoints[objectName{namespace, name}] = e
	c.mu.Unlock()
}

// DeleteEndpoints forgets Endpoints namespace/name.
func (c *ServiceCache) DeleteEndpoints(namespace, name string) {
	c.mu.Lock()
	delete(c.endpoints, objectName{namespace, name})
	c.mu.Unlock()
}

// GetService implements ServiceLister: the Service, or nil when unknown.
func (c *ServiceCache) GetService(namespace, name string) (*Service, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.services[objectName{namespace, name}], nil
}

// GetEndpoints implements ServiceLister: the Endpoints, or nil when unknown.
func (c *ServiceCache) GetEndpoints(namespace, name string) (*Endpoints, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.endpoints[objectName{namespace, name}], nil
}

// Defaults of TransportOptions, as client-go and apimachinery set them
// (apimachinery/pkg/util/net/http.go SetTransportDefaults,
// client-go/transport/cache.go).
const (
	defaultDialTimeout         = 30 * time.Second
	defaultKeepAlive           = 30 * time.Second
	defaultTLSHandshakeTimeout = 10 * time.Second
	defaultIdleConnTimeout     = 90 * time.Second
	defaultMaxIdleConnsPerHost = 25
	defaultHTTP2ReadIdle       = 30 * time.Second
	defaultHTTP2PingTimeout    = 15 * time.Second
)

// TransportOptions configures Transports. A zero field means the default
// stated on it.
type TransportOptions struct {
	// GetClientCertificate returns the front-proxy client certificate
	// (--proxy-client-cert-file/--proxy-client-key-file) to present to
	// backends. It is called on every TLS handshake, so a reloading source
	// makes every new connection use the current certificate. nil means no
	// client certificate is presented.
	GetClientCertificate func(*tls.CertificateRequestInfo) (*tls.Certificate, error)
	// DialTimeout bounds the TCP dial; 0 means 30s.
	DialTimeout time.Duration
	// TLSHandshakeTimeout bounds the TLS handshake; 0 means 10s.
	TLSHandshakeTimeout time.Duration
	// DisableHTTP2 keeps every backend connection on HTTP/1.1 (upstream's
	// DISABLE_HTTP2 environment variable). false means HTTP/2 is offered
	// through ALPN and used when the backend accepts it.
	DisableHTTP2 bool

	// disableOwnHTTP2 sends every request through net/http's transports
	// (tests and benchmarks compare the two).
	disableOwnHTTP2 bool
}

// TLSConfig is what distinguishes one backend transport from another: the
// APIService's spec.caBundle, the verification name and
// spec.insecureSkipTLSVerify. It mirrors the TLS part of
// BuildTransportConfig
// (kube-aggregator/pkg/controllers/status/remote/remote_available_controller.go).
type TLSConfig struct {
	// CABundle is PEM; empty means the system roots verify the backend.
	CABundle []byte
	// ServerName is the SNI and verification name, <service>.<namespace>.svc.
	ServerName string
	// Insecure skips verification of the backend's serving certificate.
	Insecure bool
}

type transportKey struct {
	caBundle   string
	serverName string
	insecure   bool
}

// Transports caches backend transports per distinct TLSConfig, shared by
// every Handler built with it, as client-go's transport cache is shared by
// all APIServices. It is safe for concurrent use; do not copy it.
type Transports struct {
	opts TransportOptions

	// gen counts CloseIdleConnections calls; a Handler whose snapshot was
	// built for an older generation rebuilds it before serving.
	gen atomic.Uint64

	mu    sync.Mutex // guards cache, probe and every entry's refs
	cache map[transportKey]*transportEntry
	probe *backendTransport // lazily built, dropped with the cache
}

// transportEntry is one cached transport with the number of Handler
// snapshots using it.
type transportEntry struct {
	key  transportKey
	rt   *backendTransport
	refs int  // guarded by Transports.mu
	live bool // guarded by Transports.mu: still in Transports.cache
}

// NewTransports returns an empty transport cache.
func NewTransports(opts TransportOptions) *Transports {
	if opts.DialTimeout == 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	if opts.TLSHandshakeTimeout == 0 {
		opts.TLSHandshakeTimeout = defaultTLSHandshakeTimeout
	}
	return &Transports{opts: opts, cache: map[transportKey]*transportEntry{}}
}

// generation returns the current cache generation.
func (t *Transports) generation() uint64 { return t.gen.Load() }

// acquire returns the shared transport for cfg, building it on first use,
// and counts a reference that release gives back. A caBundle that is not
// PEM fails with upstream's message
// `unable to load root certificates: unable to parse bytes as PEM block`.
func (t *Transports) acquire(cfg TLSConfig) (*transportEntry, error) {
	key := transportKey{caBundle: string(cfg.CABundle), serverName: cfg.ServerName, insecure: cfg.Insecure}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.cache[key]; ok {
		e.refs++
		return e, nil
	}
	tlsCfg, err := t.clientTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	e := &transportEntry{key: key, rt: t.newBackendTransport(tlsCfg), refs: 1, live: true}
	t.cache[key] = e
	return e, nil
}

// release gives back a reference taken by acquire. The last reference
// drops the entry from the cache and closes its idle connections.
func (t *Transports) release(e *transportEntry) {
	if e == nil {
		return
	}
	t.mu.Lock()
	e.refs--
	drop := e.refs == 0
	if drop && e.live {
		delete(t.cache, e.key)
		e.live = false
	}
	t.mu.Unlock()
	if drop {
		e.rt.CloseIdleConnections()
	}
}

// CloseIdleConnections drops every cached transport, closing their idle
// connections; requests in flight finish on their connections. Call it
// when the front-proxy client certificate changes: the next request of
// every Handler builds a new transport, so it opens a new connection and
// presents the new certificate (upstream drops its cached transports the
// same way when the proxy certificate is reloaded).
func (t *Transports) CloseIdleConnections() {
	t.mu.Lock()
	old := t.cache
	probe := t.probe
	t.cache = map[transportKey]*transportEntry{}
	t.probe = nil
	for _, e := range old {
		e.live = false
	}
	t.gen.Add(1)
	t.mu.Unlock()
	for _, e := range old {
		e.rt.CloseIdleConnections()
	}
	if probe != nil {
		probe.CloseIdleConnections()
	}
}

// ProbeTransport returns the round tripper the availability controller
// uses for its GET /apis/<group>/<version> checks. Like upstream's probe it
// presents the front-proxy client certificate but does NOT verify the
// backend's serving certificate, and its SNI is the dialled host name
// (none for an IP address) (FINDINGS §2). It follows CloseIdleConnections:
// the returned value always uses the current probe transport.
func (t *Transports) ProbeTransport() http.RoundTripper { return probeRoundTripper{t} }

type probeRoundTripper struct{ t *Transports }

// RoundTrip sends req through the current probe transport, building it on
// first use.
func (p probeRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	p.t.mu.Lock()
	rt := p.t.probe
	if rt == nil {
		rt = p.t.newBackendTransport(&tls.Config{
			MinVersion:           tls.VersionTLS12,
			InsecureSkipVerify:   true, //nolint:gosec // upstream's probe does not verify; FINDINGS §2.
			GetClientCertificate: p.t.opts.GetClientCertificate,
		})
		p.t.probe = rt
	}
	p.t.mu.Unlock()
	return rt.RoundTrip(req)
}

// clientTLSConfig builds the backend TLS client configuration.
func (t *Transports) clientTLSConfig(cfg TLSConfig) (*tls.Config, error) {
	c := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         cfg.ServerName,
		InsecureSkipVerify: cfg.Insecure, //nolint:gosec // spec.insecureSkipTLSVerify.
	}
	if t.opts.GetClientCertificate != nil {
		c.GetClientCertificate = t.opts.GetClientCertificate
	}
	if len(cfg.CABundle) > 0 {
		if cfg.Insecure {
			// client-go refuses this combination; validation prevents it.
			return nil, errors.New("specifying a root certificates file with the insecure flag is not allowed")
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CABundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		c.RootCAs = pool
	}
	return c, nil
}

// backendTransport sends normal requests through an HTTP/2-capable
// transport and upgrade requests (Connection: Upgrade) through an
// HTTP/1.1-only one, since an HTTP/2 stream cannot switch protocols
// (upstream forces ALPN http/1.1 for upgrades,
// apimachinery/pkg/util/proxy/dial.go).
type backendTransport struct {
	main    *http.Transport
	upgrade *http.Transport
	// h2 sends the plain GETs to HTTP/2 backends (h2conn.go); nil when
	// HTTP/2 is disabled or an HTTP proxy may be in the way.
	h2 *h2Client
}

// RoundTrip picks the HTTP/1.1 transport for upgrades, the own HTTP/2
// path for the requests it takes (h2Eligible) when the backend speaks
// HTTP/2, else the main transport.
func (b *backendTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if isUpgrade(req.Header) {
		return b.upgrade.RoundTrip(req)
	}
	if b.h2 != nil && h2Eligible(req) {
		if res, err := b.h2.roundTrip(req); err != errH2Fallback {
			return res, err
		}
	}
	return b.main.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transports.
func (b *backendTransport) CloseIdleConnections() {
	b.main.CloseIdleConnections()
	b.upgrade.CloseIdleConnections()
	if b.h2 != nil {
		b.h2.closeIdle()
	}
}

// nextProtos is the ALPN list of the main backend transport: h2 and
// http/1.1, or only http/1.1 when HTTP/2 is disabled.
func (t *Transports) nextProtos() []string {
	if t.opts.DisableHTTP2 {
		return []string{"http/1.1"}
	}
	return []string{"h2", "http/1.1"}
}

func (t *Transports) newBackendTransport(tlsCfg *tls.Config) *backendTransport {
	h2 := !t.opts.DisableHTTP2
	mainCfg := tlsCfg.Clone()
	mainCfg.NextProtos = t.nextProtos()
	upCfg := tlsCfg.Clone()
	upCfg.NextProtos = []string{"http/1.1"}

	main := t.newHTTPTransport(mainCfg)
	if h2 {
		main.ForceAttemptHTTP2 = true
		main.HTTP2 = &http.HTTP2Config{SendPingTimeout: defaultHTTP2ReadIdle, PingTimeout: defaultHTTP2PingTimeout}
	} else {
		main.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	up := t.newHTTPTransport(upCfg)
	up.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	bt := &backendTransport{main: main, upgrade: up}
	if h2 && !t.opts.disableOwnHTTP2 {
		// A clone: the main transport sets its TLSClientConfig's
		// NextProtos on its first request, which may run while the own
		// path dials.
		bt.h2 = newH2Client(t.newTLSDialer(mainCfg.Clone()))
	}
	return bt
}

// newTLSDialer returns the dialer of every backend connection: TCP with
// DialTimeout, then the handshake with tlsCfg bounded by
// TLSHandshakeTimeout.
func (t *Transports) newTLSDialer(tlsCfg *tls.Config) *tlsDialer {
	return &tlsDialer{
		net:     &net.Dialer{Timeout: t.opts.DialTimeout, KeepAlive: defaultKeepAlive},
		tls:     tlsCfg,
		timeout: t.opts.TLSHandshakeTimeout,
	}
}

func (t *Transports) newHTTPTransport(tlsCfg *tls.Config) *http.Transport {
	d := t.newTLSDialer(tlsCfg)
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.dial,
		DialTLSContext:      d.dialTLS,
		TLSClientConfig:     tlsCfg, // used only through an HTTP proxy (CONNECT)
		TLSHandshakeTimeout: t.opts.TLSHandshakeTimeout,
		MaxIdleConnsPerHost: defaultMaxIdleConnsPerHost,
		IdleConnTimeout:     defaultIdleConnTimeout,
	}
}

// CaptureChain connects to the backend at addr (host:port) the way a
// Handler's transport does for ServerName serverName — same TCP dial and
// handshake timeouts, SNI serverName, the front-proxy client certificate
// (TransportOptions.GetClientCertificate), the same ALPN offer — but
// without verifying the serving certificate, and returns the certificate
// chain the backend presented, leaf first (certificates that do not parse
// are left out). The chain is returned even when the handshake fails after
// the backend sent it (for example when the backend then rejects the client
// certificate); the connection is closed before CaptureChain returns. ctx
// bounds the dial and the handshake. aggsim's APIService explanation uses
// it to verify the chain as the proxy would; it has no upstream
// counterpart (upstream's proxy transport,
// kube-aggregator/pkg/apiserver/handler_proxy.go, verifies during the
// handshake and keeps no chain).
//
// Errors: a *DialError wrapping the net error of the TCP dial or the
// crypto/tls error of the handshake (its message is theirs unchanged).
func (t *Transports) CaptureChain(ctx context.Context, addr, serverName string) ([]*x509.Certificate, error) {
	cfg, err := t.clientTLSConfig(TLSConfig{ServerName: serverName, Insecure: true})
	if err != nil {
		return nil, err // unreachable: only a caBundle can fail
	}
	cfg.NextProtos = t.nextProtos()
	var chain []*x509.Certificate
	cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		for _, der := range raw {
			if c, err := x509.ParseCertificate(der); err == nil {
				chain = append(chain, c)
			}
		}
		return nil
	}
	conn, err := t.newTLSDialer(cfg).dialTLS(ctx, "tcp", addr)
	if err != nil {
		return chain, err
	}
	conn.Close()
	return chain, nil
}

// tlsDialer dials TCP and does the TLS handshake itself so that every
// failure before the request is written becomes a *DialError.
type tlsDialer struct {
	net     *net.Dialer
	tls     *tls.Config
	timeout time.Duration
}

func (d *tlsDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.net.DialContext(ctx, network, addr)
	if err != nil {
		return nil, &DialError{Addr: addr, Err: err}
	}
	return c, nil
}

func (d *tlsDialer) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	raw, err := d.net.DialContext(ctx, network, addr)
	if err != nil {
		return nil, &DialError{Addr: addr, Err: err}
	}
	cfg := d.tls
	if cfg.ServerName == "" {
		// The probe transport: SNI is the dialled host, none for an IP.
		host, _, _ := net.SplitHostPort(addr)
		if net.ParseIP(host) == nil {
			cfg = cfg.Clone()
			cfg.ServerName = host
		}
	}
	tc := tls.Client(raw, cfg)
	hctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, &DialError{Addr: addr, Err: err}
	}
	return tc, nil
}

// isUpgrade reports whether h asks for a protocol switch
// (Connection: Upgrade plus an Upgrade header).
func isUpgrade(h http.Header) bool {
	if len(h["Upgrade"]) == 0 {
		return false
	}
	for _, v := range h["Connection"] {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return true
			}
		}
	}
	return false
}

var _ http.RoundTripper = (*backendTransport)(nil)
var _ http.RoundTripper = probeRoundTripper{}
