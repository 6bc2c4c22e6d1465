package proxy

import (
	"testing"
)

// TestResolveHostFromServiceCache: over a ServiceCache the resolver
// answers the host:port SetEndpoints formatted once (IPv6 bracketed, the
// endpoint port of the subset's port named like the service port), leaves
// the caller's Endpoints as they were, and a resolution allocates nothing.
func TestResolveHostFromServiceCache(t *testing.T) {
	c := NewServiceCache()
	r := NewEndpointServiceResolver(c).(*endpointResolver)
	c.SetService("ns", "svc", &Service{Ports: []ServicePort{{Name: "metrics", Port: 9090}, {Name: "https", Port: 443}}})
	eps := &Endpoints{Subsets: []EndpointSubset{{
		Addresses: []EndpointAddress{{IP: "::1"}},
		Ports:     []EndpointPort{{Name: "metrics", Port: 9091}, {Name: "https", Port: 8443}},
	}}}
	c.SetEndpoints("ns", "svc", eps)
	if eps.Subsets[0].hostPorts != nil {
		t.Errorf("SetEndpoints changed the caller's subsets: %q", eps.Subsets[0].hostPorts)
	}
	for _, tc := range []struct {
		port int32
		want string
	}{{443, "[::1]:8443"}, {9090, "[::1]:9091"}} {
		if got, err := r.resolveHost("ns", "svc", tc.port); err != nil || got != tc.want {
			t.Errorf("resolveHost(%d) = %q, %v; want %q", tc.port, got, err, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = r.resolveHost("ns", "svc", 443) }); n != 0 {
		t.Errorf("resolveHost allocates %v times, want 0", n)
	}

	// A lister other than ServiceCache: formatted per call, same answer.
	other := NewEndpointServiceResolver(staticLister{svc: &Service{Ports: []ServicePort{{Name: "https", Port: 443}}}, eps: eps}).(*endpointResolver)
	if got, err := other.resolveHost("ns", "svc", 443); err != nil || got != "[::1]:8443" {
		t.Errorf("other lister: %q, %v", got, err)
	}

	// ExternalName: the name at the APIService's port.
	c.SetService("ns", "ext", &Service{Type: ServiceTypeExternalName, ExternalName: "api.example"})
	if got, err := r.resolveHost("ns", "ext", 1); err != nil || got != "api.example:1" {
		t.Errorf("ExternalName: %q, %v", got, err)
	}
}

// staticLister answers one Service and one Endpoints for every name.
type staticLister struct {
	svc *Service
	eps *Endpoints
}

func (l staticLister) GetService(string, string) (*Service, error)     { return l.svc, nil }
func (l staticLister) GetEndpoints(string, string) (*Endpoints, error) { return l.eps, nil }
