package proxy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"sync"

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
	svc, err := r.lister.GetService(namespace, name)
	if isNotFound(svc != nil, err) {
		return nil, &ServiceNotFoundError{Namespace: namespace, Name: name}
	}
	if err != nil {
		return nil, fmt.Errorf("get service %s/%s: %w", namespace, name, err)
	}
	switch svc.Type {
	case ServiceTypeExternalName:
		return httpsURL(svc.ExternalName, port), nil
	case "", ServiceTypeClusterIP, ServiceTypeNodePort, ServiceTypeLoadBalancer:
	default:
		return nil, &UnsupportedServiceTypeError{Type: svc.Type}
	}

	var sp *ServicePort
	for i := range svc.Ports {
		if svc.Ports[i].Port == port {
			sp = &svc.Ports[i]
			break
		}
	}
	if sp == nil {
		return nil, &ServicePortError{Namespace: namespace, Name: name, Port: port}
	}

	eps, err := r.lister.GetEndpoints(namespace, name)
	if isNotFound(eps != nil, err) {
		return nil, &EndpointsNotFoundError{Namespace: namespace, Name: name}
	}
	if err != nil {
		return nil, fmt.Errorf("get endpoints %s/%s: %w", namespace, name, err)
	}

	// Count the candidates first, then pick one without allocating a list.
	total := 0
	for _, ss := range eps.Subsets {
		if _, ok := subsetPort(ss, sp.Name); ok {
			total += len(ss.Addresses)
		}
	}
	if total == 0 {
		return nil, &MissingEndpointsError{Namespace: namespace, Name: name, PortName: sp.Name}
	}
	n := rand.IntN(total)
	for _, ss := range eps.Subsets {
		p, ok := subsetPort(ss, sp.Name)
		if !ok {
			continue
		}
		if n < len(ss.Addresses) {
			return httpsURL(ss.Addresses[n].IP, p), nil
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

// SetEndpoints records the current state of Endpoints namespace/name.
func (c *ServiceCache) SetEndpoints(namespace, name string, e *Endpoints) {
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
