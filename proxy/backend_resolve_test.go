package proxy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// fakeLister serves Services and Endpoints from maps keyed "ns/name".
type fakeLister struct {
	services  map[string]*Service
	endpoints map[string]*Endpoints
	err       error // returned by every call when set
}

func (f *fakeLister) GetService(ns, name string) (*Service, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.services[ns+"/"+name], nil
}

func (f *fakeLister) GetEndpoints(ns, name string) (*Endpoints, error) {
	if f.err != nil {
		return nil, f.err
	}
	if e, ok := f.endpoints[ns+"/"+name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("endpoints %q: %w", name, meta.ErrNotFound)
}

func httpsPort(name string, port int32) []ServicePort {
	return []ServicePort{{Name: name, Port: port, TargetPort: "8443"}}
}

// TestResolveEndpoint checks each resolution outcome, with the messages
// the availability conditions of FINDINGS §2 show.
func TestResolveEndpoint(t *testing.T) {
	l := &fakeLister{
		services: map[string]*Service{
			"wardle/ext":           {Type: ServiceTypeExternalName, ExternalName: "localhost", Ports: httpsPort("https", 1)},
			"wardle/ext6":          {Type: ServiceTypeExternalName, ExternalName: "::1"},
			"wardle/cip-noport":    {Type: ServiceTypeClusterIP, Ports: httpsPort("https", 443)},
			"wardle/cip-noep":      {Ports: httpsPort("https", 8443)},
			"wardle/cip-emptyep":   {Type: ServiceTypeClusterIP, Ports: httpsPort("https", 8443)},
			"wardle/cip-otherport": {Type: ServiceTypeNodePort, Ports: httpsPort("https", 8443)},
			"wardle/cip-ok":        {Type: ServiceTypeLoadBalancer, Ports: append(httpsPort("metrics", 9090), httpsPort("https", 8443)...)},
			"wardle/weird":         {Type: "Headless"},
		},
		endpoints: map[string]*Endpoints{
			"wardle/cip-emptyep": {Subsets: []EndpointSubset{{Ports: []EndpointPort{{Name: "https", Port: 9443}}}}},
			"wardle/cip-otherport": {Subsets: []EndpointSubset{{
				Addresses: []EndpointAddress{{IP: "127.0.0.1"}}, Ports: []EndpointPort{{Name: "http", Port: 9443}}}}},
			"wardle/cip-ok": {Subsets: []EndpointSubset{
				{Addresses: []EndpointAddress{{IP: "127.0.0.9"}}, Ports: []EndpointPort{{Name: "metrics", Port: 9091}}},
				{Addresses: []EndpointAddress{{IP: "::1"}}, Ports: []EndpointPort{{Name: "metrics", Port: 9091}, {Name: "https", Port: 9443}}},
			}},
		},
	}
	r := NewEndpointServiceResolver(l)
	cases := []struct {
		name    string
		port    int32
		want    string
		wantErr string
		errType any
	}{
		{name: "nosuchsvc", port: 443, wantErr: `service/nosuchsvc in "wardle" is not present`, errType: new(*ServiceNotFoundError)},
		{name: "ext", port: 8443, want: "https://localhost:8443"},
		{name: "ext6", port: 8443, want: "https://[::1]:8443"},
		{name: "cip-noport", port: 8443, wantErr: `service/cip-noport in "wardle" is not listening on port 8443`, errType: new(*ServicePortError)},
		{name: "cip-noep", port: 8443, wantErr: `cannot find endpoints for service/cip-noep in "wardle"`, errType: new(*EndpointsNotFoundError)},
		{name: "cip-emptyep", port: 8443, wantErr: `endpoints for service/cip-emptyep in "wardle" have no addresses with port name "https"`, errType: new(*MissingEndpointsError)},
		{name: "cip-otherport", port: 8443, wantErr: `endpoints for service/cip-otherport in "wardle" have no addresses with port name "https"`, errType: new(*MissingEndpointsError)},
		{name: "cip-ok", port: 8443, want: "https://[::1]:9443"},
		{name: "weird", port: 443, wantErr: `unsupported service type "Headless"`, errType: new(*UnsupportedServiceTypeError)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := r.ResolveEndpoint("wardle", tc.name, tc.port)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if !errors.As(err, tc.errType) {
					t.Errorf("err is %T, want %T", err, tc.errType)
				}
				return
			}
			if err != nil || u.String() != tc.want {
				t.Fatalf("got %v, %v; want %s", u, err, tc.want)
			}
		})
	}
}

// TestResolveEndpointPicksAmongReady: every ready address carrying the
// named port can be chosen, and nothing else.
func TestResolveEndpointPicksAmongReady(t *testing.T) {
	l := &fakeLister{
		services: map[string]*Service{"ns/svc": {Ports: httpsPort("", 443)}},
		endpoints: map[string]*Endpoints{"ns/svc": {Subsets: []EndpointSubset{
			{Addresses: []EndpointAddress{{IP: "127.0.0.1"}, {IP: "127.0.0.2"}}, Ports: []EndpointPort{{Port: 8443}}},
			{Addresses: []EndpointAddress{{IP: "127.0.0.3"}}, Ports: []EndpointPort{{Name: "other", Port: 1}}},
			{Addresses: []EndpointAddress{{IP: "127.0.0.4"}}, Ports: []EndpointPort{{Port: 9443}}},
		}}},
	}
	r := NewEndpointServiceResolver(l)
	seen := map[string]bool{}
	for i := 0; i < 400; i++ {
		u, err := r.ResolveEndpoint("ns", "svc", 443)
		if err != nil {
			t.Fatal(err)
		}
		seen[u.Host] = true
	}
	want := map[string]bool{"127.0.0.1:8443": true, "127.0.0.2:8443": true, "127.0.0.4:9443": true}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("chosen endpoints %v, want %v", seen, want)
	}
}

// TestResolveEndpointListerErrors: a lister error other than not-found is
// passed through wrapped; ErrNotFound means the Service is missing.
func TestResolveEndpointListerErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := NewEndpointServiceResolver(&fakeLister{err: boom}).ResolveEndpoint("ns", "svc", 443)
	if !errors.Is(err, boom) || err.Error() != "get service ns/svc: boom" {
		t.Errorf("err = %v", err)
	}
	// The store's own NotFound StatusError, as the aggregator's lister
	// passes it on, means the Service is missing, like the sentinel.
	for _, nfErr := range []error{meta.ErrNotFound, meta.NewNotFound(meta.GroupResource{Resource: "services"}, "svc")} {
		_, err = NewEndpointServiceResolver(&fakeLister{err: nfErr}).ResolveEndpoint("ns", "svc", 443)
		var nf *ServiceNotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("lister error %v: err = %v, want *ServiceNotFoundError", nfErr, err)
		}
	}
}

// TestServiceCache: the resolver over a ServiceCache sees exactly what was
// set and stops seeing what was deleted, and a lookup does not allocate.
func TestServiceCache(t *testing.T) {
	c := NewServiceCache()
	r := NewEndpointServiceResolver(c)
	if _, err := r.ResolveEndpoint("ns", "svc", 443); err == nil || err.Error() != `service/svc in "ns" is not present` {
		t.Fatalf("empty cache: %v", err)
	}
	c.SetService("ns", "svc", &Service{Ports: []ServicePort{{Name: "https", Port: 443}}})
	if _, err := r.ResolveEndpoint("ns", "svc", 443); err == nil || err.Error() != `cannot find endpoints for service/svc in "ns"` {
		t.Fatalf("no endpoints: %v", err)
	}
	c.SetEndpoints("ns", "svc", &Endpoints{Subsets: []EndpointSubset{{Addresses: []EndpointAddress{{IP: "127.0.0.1"}}, Ports: []EndpointPort{{Name: "https", Port: 8443}}}}})
	u, err := r.ResolveEndpoint("ns", "svc", 443)
	if err != nil || u.String() != "https://127.0.0.1:8443" {
		t.Fatalf("resolved %v, %v", u, err)
	}
	if n := testing.AllocsPerRun(20, func() { _, _ = c.GetService("ns", "svc"); _, _ = c.GetEndpoints("ns", "svc") }); n != 0 {
		t.Errorf("lookups allocate %v times", n)
	}
	c.DeleteEndpoints("ns", "svc")
	c.DeleteService("ns", "svc")
	if s, _ := c.GetService("ns", "svc"); s != nil {
		t.Errorf("service still cached: %+v", s)
	}
	if _, err := r.ResolveEndpoint("ns", "svc", 443); err == nil || err.Error() != `service/svc in "ns" is not present` {
		t.Errorf("after delete: %v", err)
	}
}
