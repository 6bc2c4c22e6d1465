package aggregatortest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Defaults of BackendOptions.
const (
	// DefaultNamespace is BackendOptions.Namespace when empty.
	DefaultNamespace = "default"
	// DefaultGroupPriorityMinimum is BackendOptions.GroupPriorityMinimum
	// when zero (the value of the sample-apiserver's APIService).
	DefaultGroupPriorityMinimum = 1000
	// DefaultVersionPriority is BackendOptions.VersionPriority when zero.
	DefaultVersionPriority = 15
	// DefaultRegisterTimeout is BackendOptions.Timeout when zero.
	DefaultRegisterTimeout = 10 * time.Second
	// ServicePortName is the name of the Service port (443) and of the
	// Endpoints port that RegisterBackend creates.
	ServicePortName = "https"
)

// AggregatedDiscoveryAccept is the Accept header of an aggregated
// discovery request (apidiscovery.k8s.io/v2), as client-go sends it.
const AggregatedDiscoveryAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// BackendOptions describes an aggregated API server to register with a
// Server. Give exactly one of Handler and Address.
type BackendOptions struct {
	// Handler serves the backend. RegisterBackend serves it over TLS (HTTP/2
	// and HTTP/1.1) on 127.0.0.1:0 with a certificate for
	// <Service>.<Namespace>.svc signed by a fresh CA, and requests (but
	// does not verify) a client certificate, so RequireFrontProxy can check
	// the aggregator's. It must answer GET /apis/<Group>/<version> with a
	// 2xx APIResourceList for every version, as the aggregator's
	// availability probe and discovery require. When both Handler and
	// Address are empty, a handler serving an empty APIResourceList for
	// each version (and 404 otherwise) is used.
	Handler http.Handler
	// Address is the host:port of a TLS server the test started itself
	// (host 127.0.0.1, ::1 or localhost); its certificate must be valid for
	// <Service>.<Namespace>.svc and chain to CAPEM. Fault injection needs
	// Handler and is not available with Address.
	Address string
	// CAPEM is the CA bundle that verifies Address's certificate (the
	// APIServices' spec.caBundle); required with Address, ignored with
	// Handler.
	CAPEM []byte

	// Group is the API group served (required, not the legacy core group).
	Group string
	// Versions are the versions served; one APIService
	// "<version>.<Group>" is created for each (at least one is required).
	Versions []string
	// GroupPriorityMinimum is every APIService's spec.groupPriorityMinimum;
	// zero means DefaultGroupPriorityMinimum.
	GroupPriorityMinimum int32
	// VersionPriority is every APIService's spec.versionPriority (the
	// versions are then ordered kube-aware, v2 before v1 before v1beta1);
	// zero means DefaultVersionPriority.
	VersionPriority int32
	// Service names the Service in front of the backend; empty means the
	// group with dots replaced by dashes ("widgets.example.com" ->
	// "widgets-example-com"), cut to 63 characters.
	Service string
	// Namespace holds the Service and Endpoints and is created if missing;
	// empty means DefaultNamespace.
	Namespace string
	// Timeout bounds the wait for every APIService to become Available
	// and to show in aggregated discovery; zero means
	// DefaultRegisterTimeout.
	Timeout time.Duration
}

// Backend is an aggregated API server registered with a Server. Its fault
// injection methods change how it answers from the next request on; they
// are safe for concurrent use. It must not be copied.
type Backend struct {
	// URL is https://<host>:<port> of the backend itself (not through the
	// aggregator).
	URL string
	// ServerName is <service>.<namespace>.svc, the name the aggregator
	// verifies the serving certificate for (and sends as SNI).
	ServerName string
	// CAPEM is the CA bundle written to every APIService's spec.caBundle.
	CAPEM []byte
	// Group, Versions, Service and Namespace are as registered, defaults
	// applied.
	Group     string
	Versions  []string
	Service   string
	Namespace string
	// APIServices are the names of the APIServices created, in Versions
	// order.
	APIServices []string

	srv  *Server
	port int32
	ip   string

	// The fields below are nil/zero for an Address backend.
	httpServer *http.Server
	serveDone  chan struct{}
	goodCert   *tls.Certificate
	wrongCert  *tls.Certificate
	faults     atomic.Pointer[faultState]
	faultMu    sync.Mutex // serialises fault changes (read-modify-store of faults)

	closeOnce sync.Once
}

// RegisterBackend serves opts.Handler (or uses opts.Address), creates the
// Namespace, a ClusterIP Service with port 443 named "https", Endpoints
// with the backend's real address and port, and one APIService per
// version with the real caBundle, then returns once every APIService is
// Available and every version shows in aggregated discovery with
// freshness Current, so clients see the group at once. It calls t.Fatal,
// with the aggregator's explanation of the APIService, when that does not
// happen within opts.Timeout. The backend is closed by t.Cleanup (its
// APIServices stay registered and turn unavailable).
func (s *Server) RegisterBackend(t testing.TB, opts BackendOptions) *Backend {
	t.Helper()
	b, err := s.AddBackend(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// AddBackend is RegisterBackend without a testing.TB: it returns the error
// (with the explanation when an APIService did not become Available)
// instead of failing a test. The Backend is closed by Close, or by the
// Server's Close. ctx bounds the wait in addition to opts.Timeout.
func (s *Server) AddBackend(ctx context.Context, opts BackendOptions) (*Backend, error) {
	if err := opts.complete(); err != nil {
		return nil, err
	}
	b := &Backend{
		srv:        s,
		Group:      opts.Group,
		Versions:   append([]string(nil), opts.Versions...),
		Service:    opts.Service,
		Namespace:  opts.Namespace,
		ServerName: opts.Service + "." + opts.Namespace + ".svc",
	}
	for _, v := range opts.Versions {
		b.APIServices = append(b.APIServices, apiregistration.APIServiceName(opts.Group, v))
	}
	if err := s.addBackend(b); err != nil {
		return nil, err
	}
	var err error
	if opts.Address != "" {
		err = b.useAddress(opts.Address, opts.CAPEM)
	} else {
		handler := opts.Handler
		if handler == nil {
			handler = emptyDiscoveryHandler(opts.Group, opts.Versions)
		}
		err = b.serve(handler, s.logger)
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	if err := b.register(ctx, opts); err != nil {
		b.Close()
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := b.waitReady(wctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// complete validates o and applies the defaults.
func (o *BackendOptions) complete() error {
	if o.Group == "" {
		return errors.New("aggregatortest: BackendOptions.Group is required")
	}
	if len(o.Versions) == 0 {
		return errors.New("aggregatortest: BackendOptions.Versions needs at least one version")
	}
	if o.Handler != nil && o.Address != "" {
		return errors.New("aggregatortest: BackendOptions: give Handler or Address, not both")
	}
	if o.Address != "" && len(o.CAPEM) == 0 {
		return errors.New("aggregatortest: BackendOptions.CAPEM is required with Address")
	}
	if o.Service == "" {
		o.Service = serviceNameFor(o.Group)
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.GroupPriorityMinimum == 0 {
		o.GroupPriorityMinimum = DefaultGroupPriorityMinimum
	}
	if o.VersionPriority == 0 {
		o.VersionPriority = DefaultVersionPriority
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRegisterTimeout
	}
	return nil
}

// serviceNameFor turns a group into a DNS-1035 label: lower case, dots and
// other characters to dashes, a leading "svc-" if it does not start with
// a letter, at most 63 characters, no trailing dash.
func serviceNameFor(group string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(group) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	name := b.String()
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		name = "svc-" + name
	}
	if len(name) > 63 {
		name = name[:63]
	}
	return strings.TrimRight(name, "-")
}

// serve starts the TLS server for h on 127.0.0.1:0.
func (b *Backend) serve(h http.Handler, logger *slog.Logger) error {
	bc, err := certs.IssueBackend(certs.BackendOptions{Service: b.Service, Namespace: b.Namespace})
	if err != nil {
		return err
	}
	good, err := bc.Serving.TLSCertificate()
	if err != nil {
		return err
	}
	wrongName := "not-" + b.ServerName
	wrongKP, err := bc.CA.IssueServing(wrongName, []string{wrongName}, nil)
	if err != nil {
		return err
	}
	wrong, err := wrongKP.TLSCertificate()
	if err != nil {
		return err
	}
	b.goodCert, b.wrongCert, b.CAPEM = &good, &wrong, bc.CA.CertPEM
	b.faults.Store(&faultState{})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("aggregatortest: backend listen: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	b.ip, b.port = "127.0.0.1", int32(addr.Port)
	b.URL = "https://" + ln.Addr().String()
	b.httpServer = &http.Server{
		Handler:           b.faultHandler(h),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		TLSConfig: &tls.Config{
			MinVersion:     tls.VersionTLS12,
			GetCertificate: b.getCertificate,
			ClientAuth:     tls.RequestClientCert,
			NextProtos:     []string{"h2", "http/1.1"},
		},
	}
	b.serveDone = make(chan struct{})
	go func() {
		defer close(b.serveDone)
		_ = b.httpServer.ServeTLS(ln, "", "")
	}()
	return nil
}

// useAddress points the Backend at a server the test started.
func (b *Backend) useAddress(address string, caPEM []byte) error {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("aggregatortest: BackendOptions.Address: %w", err)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return fmt.Errorf("aggregatortest: BackendOptions.Address: bad port %q", portStr)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("aggregatortest: BackendOptions.Address: host %q is not a loopback IP or localhost", host)
	}
	b.ip, b.port = ip.String(), int32(port)
	b.URL = "https://" + net.JoinHostPort(b.ip, portStr)
	b.CAPEM = caPEM
	return nil
}

// register creates the Namespace, Service, Endpoints and APIServices.
func (b *Backend) register(ctx context.Context, opts BackendOptions) error {
	if err := b.createService(ctx); err != nil {
		return err
	}
	api := b.srv.agg.API()
	port := int32(443)
	for i, v := range b.Versions {
		a := &apiregistration.APIService{
			TypeMeta:   meta.TypeMeta{Kind: "APIService", APIVersion: "apiregistration.k8s.io/v1"},
			ObjectMeta: meta.ObjectMeta{Name: b.APIServices[i]},
			Spec: apiregistration.APIServiceSpec{
				Service:              &apiregistration.ServiceReference{Namespace: b.Namespace, Name: b.Service, Port: &port},
				Group:                b.Group,
				Version:              v,
				CABundle:             b.CAPEM,
				GroupPriorityMinimum: opts.GroupPriorityMinimum,
				VersionPriority:      opts.VersionPriority,
			},
		}
		if _, err := api.Store(apiServicesResource).Create(ctx, a); err != nil {
			return fmt.Errorf("aggregatortest: create apiservice %q: %w", a.Name, err)
		}
	}
	return nil
}

// createService creates the Namespace (unless it exists), a ClusterIP
// Service with port 443 named ServicePortName targeting the backend's
// port, and Endpoints at its real address: what routes an APIService or
// a webhook's service reference to the backend.
func (b *Backend) createService(ctx context.Context) error {
	api := b.srv.agg.API()
	tm := func(kind string) meta.TypeMeta { return meta.TypeMeta{Kind: kind, APIVersion: "v1"} }
	ns := &core.Namespace{TypeMeta: tm("Namespace"), ObjectMeta: meta.ObjectMeta{Name: b.Namespace}}
	if _, err := api.Store(meta.GroupResource{Resource: "namespaces"}).Create(ctx, ns); err != nil && !errors.Is(err, meta.ErrAlreadyExists) {
		return fmt.Errorf("aggregatortest: create namespace %q: %w", b.Namespace, err)
	}
	om := meta.ObjectMeta{Name: b.Service, Namespace: b.Namespace}
	svc := &core.Service{TypeMeta: tm("Service"), ObjectMeta: om, Spec: core.ServiceSpec{
		Type: core.ServiceTypeClusterIP,
		Ports: []core.ServicePort{{
			Name: ServicePortName, Protocol: core.ProtocolTCP, Port: 443, TargetPort: core.FromInt(b.port),
		}},
	}}
	if _, err := api.Store(meta.GroupResource{Resource: "services"}).Create(ctx, svc); err != nil {
		return fmt.Errorf("aggregatortest: create service %s/%s: %w", b.Namespace, b.Service, err)
	}
	ep := &core.Endpoints{TypeMeta: tm("Endpoints"), ObjectMeta: om, Subsets: []core.EndpointSubset{{
		Addresses: []core.EndpointAddress{{IP: b.ip}},
		Ports:     []core.EndpointPort{{Name: ServicePortName, Port: b.port, Protocol: core.ProtocolTCP}},
	}}}
	if _, err := api.Store(meta.GroupResource{Resource: "endpoints"}).Create(ctx, ep); err != nil {
		return fmt.Errorf("aggregatortest: create endpoints %s/%s: %w", b.Namespace, b.Service, err)
	}
	return nil
}

var apiServicesResource = meta.GroupResource{Group: apiregistration.GroupAPIRegistration, Resource: "apiservices"}

// readiness is what one look at the Server found about a Backend.
type readiness struct {
	// unavailable is the first APIService that is not Available, or "".
	unavailable string
	// discovery says what aggregated discovery lacks, or "".
	discovery string
}

func (r readiness) ready() bool { return r.unavailable == "" && r.discovery == "" }

// check looks once: every APIService Available, and every version listed
// in aggregated /apis with freshness other than Stale.
func (b *Backend) check(ctx context.Context) (readiness, error) {
	store := b.srv.agg.API().Store(apiServicesResource)
	for _, name := range b.APIServices {
		obj, err := store.Get(ctx, "", name)
		if err != nil {
			return readiness{}, err
		}
		if !obj.(*apiregistration.APIService).IsAvailable() {
			return readiness{unavailable: name}, nil
		}
	}
	msg, err := b.srv.discoveryGap(ctx, b.Group, b.Versions)
	return readiness{discovery: msg}, err
}

// waitReady polls check until ready or ctx ends; the error then carries
// the explanation.
func (b *Backend) waitReady(ctx context.Context) error {
	var last readiness
	err := poll(ctx, func() (bool, error) {
		r, err := b.check(ctx)
		if err != nil {
			return false, err
		}
		last = r
		return r.ready(), nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() == nil {
		return fmt.Errorf("aggregatortest: register %s: %w", b.Group, err)
	}
	if last.unavailable != "" {
		return fmt.Errorf("aggregatortest: APIService %s did not become Available: %w\n%s",
			last.unavailable, ctx.Err(), b.srv.Explain(last.unavailable))
	}
	if last.discovery != "" {
		return fmt.Errorf("aggregatortest: group %s is Available but not in aggregated discovery: %w: %s\n%s",
			b.Group, ctx.Err(), last.discovery, b.srv.Explain(b.APIServices[0]))
	}
	return fmt.Errorf("aggregatortest: register %s: %w", b.Group, ctx.Err())
}

// WaitAvailable waits until every APIService of b is Available (as after
// Restore, once the next probe passed) and fails the test with the
// explanation after DefaultRegisterTimeout.
func (b *Backend) WaitAvailable(t testing.TB) {
	t.Helper()
	b.waitCondition(t, true)
}

// WaitUnavailable waits until some APIService of b is not Available (as
// after a fault, once the next probe failed) and fails the test after
// DefaultRegisterTimeout.
func (b *Backend) WaitUnavailable(t testing.TB) {
	t.Helper()
	b.waitCondition(t, false)
}

func (b *Backend) waitCondition(t testing.TB, want bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultRegisterTimeout)
	defer cancel()
	var last readiness
	err := poll(ctx, func() (bool, error) {
		r, err := b.check(ctx)
		last = r
		if want {
			return r.ready(), err
		}
		return r.unavailable != "", err
	})
	if err == nil {
		return
	}
	name := last.unavailable
	if name == "" {
		name = b.APIServices[0]
	}
	t.Fatalf("aggregatortest: waiting for %s available=%v: %v\n%s", b.Group, want, err, b.srv.Explain(name))
}

// poll calls cond until it reports true, fails, or ctx ends, sleeping
// 1 ms at first and up to 20 ms between calls.
func poll(ctx context.Context, cond func() (bool, error)) error {
	delay := time.Millisecond
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		if delay < 20*time.Millisecond {
			delay *= 2
		}
	}
}

// discoveryGap GETs aggregated /apis and returns what it lacks of
// group/versions ("" when every version is listed and not Stale).
func (s *Server) discoveryGap(ctx context.Context, group string, versions []string) (string, error) {
	served, err := s.AggregatedVersions(ctx, group)
	if err != nil {
		return "", err
	}
	if len(served) == 0 {
		return "group is not listed", nil
	}
	for _, want := range versions {
		switch {
		case slices.Contains(served, want+" Stale"):
			return "version " + want + " is Stale", nil
		case !slices.Contains(served, want+" Current"):
			return "version " + want + " is not listed", nil
		}
	}
	return "", nil
}

// AggregatedVersions GETs /apis from s as aggregated discovery
// (AggregatedDiscoveryAccept) and returns "<version> <freshness>" for each
// version of group, in the order served ("v1beta1 Current", "v1 Stale");
// a freshness the document omits reads "Current". It returns nil when
// group is not listed, and an error when the request fails, the status is
// not 200 or the body is not a discovery document.
func (s *Server) AggregatedVersions(ctx context.Context, group string) ([]string, error) {
	g, err := s.aggregatedGroup(ctx, group)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range g {
		f := v.Freshness
		if f == "" {
			f = "Current"
		}
		out = append(out, v.Version+" "+f)
	}
	return out, nil
}

// aggregatedVersion is what the test helpers read of one version of an
// APIGroupDiscovery.
type aggregatedVersion struct {
	Version   string `json:"version"`
	Freshness string `json:"freshness"`
	Resources []struct {
		Resource string `json:"resource"`
	} `json:"resources"`
}

// aggregatedGroup GETs /apis from s as aggregated discovery and returns
// the versions of group in the order served (nil when group is not
// listed); an error when the request fails, the status is not 200 or the
// body is not a discovery document.
func (s *Server) aggregatedGroup(ctx context.Context, group string) ([]aggregatedVersion, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/apis", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", AggregatedDiscoveryAccept)
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /apis (aggregated): %d %s", resp.StatusCode, body)
	}
	var doc struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Versions []aggregatedVersion `json:"versions"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("GET /apis (aggregated): %w", err)
	}
	for _, it := range doc.Items {
		if it.Metadata.Name == group {
			return it.Versions, nil
		}
	}
	return nil, nil
}

// emptyDiscoveryHandler answers GET /apis/<group>/<version> with an empty
// APIResourceList for each version and 404 otherwise.
func emptyDiscoveryHandler(group string, versions []string) http.Handler {
	mux := http.NewServeMux()
	for _, v := range versions {
		gv := group + "/" + v
		body := []byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"` + gv + `","resources":[]}` + "\n")
		mux.HandleFunc("GET /apis/"+gv, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		})
	}
	return mux
}

// Close stops the backend's TLS server (closing its connections) and
// waits for it. For an Address backend it does nothing: the test owns that
// server. The Namespace, Service, Endpoints and APIServices stay; the
// APIServices turn unavailable at the next probe. Close may be called more
// than once.
func (b *Backend) Close() {
	b.closeOnce.Do(func() {
		if b.httpServer == nil {
			return
		}
		_ = b.httpServer.Close()
		<-b.serveDone
	})
}
