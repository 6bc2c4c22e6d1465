package aggregator

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"sync"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// kubernetesServiceManager is the field manager upstream records for the
// "kubernetes" Service and Endpoints.
const kubernetesServiceManager = "kube-apiserver"

// kubernetesService is the default/kubernetes Service every
// kube-apiserver keeps for itself (pkg/controlplane/controller/
// kubernetesservice): ClusterIP 10.96.0.1, port 443 named https to the
// secure port, labels component=apiserver and provider=kubernetes, no
// selector. Written by manager kube-apiserver as upstream (captured in
// testdata/registry/services/ref-svc.json).
func kubernetesService(securePort int) *core.Service {
	single := core.IPFamilyPolicySingleStack
	return &core.Service{
		TypeMeta: meta.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{
			Name: registry.KubernetesServiceName, Namespace: registry.KubernetesServiceNamespace,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"},
		},
		Spec: core.ServiceSpec{
			Ports:           kubernetesServicePorts(securePort),
			ClusterIP:       registry.KubernetesServiceIP,
			Type:            core.ServiceTypeClusterIP,
			SessionAffinity: core.ServiceAffinityNone,
			IPFamilyPolicy:  &single,
		},
	}
}

func kubernetesServicePorts(securePort int) []core.ServicePort {
	return []core.ServicePort{{Name: "https", Protocol: core.ProtocolTCP, Port: 443, TargetPort: core.FromInt(int32(securePort))}}
}

// kubernetesEndpoints are the Endpoints of the "kubernetes" Service:
// upstream's endpoint reconciler points them at the advertise address and
// the secure port, labelled endpointslice.kubernetes.io/skip-mirror=true
// (captured in testdata/registry/services/ref-ep.json). aggsim's address
// is a loopback one, which upstream refuses (README lists the
// difference).
func kubernetesEndpoints(address string, securePort int) *core.Endpoints {
	return &core.Endpoints{
		TypeMeta: meta.TypeMeta{Kind: "Endpoints", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{
			Name: registry.KubernetesServiceName, Namespace: registry.KubernetesServiceNamespace,
			Labels: map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"},
		},
		Subsets: kubernetesSubsets(address, securePort),
	}
}

func kubernetesSubsets(address string, securePort int) []core.EndpointSubset {
	return []core.EndpointSubset{{
		Addresses: []core.EndpointAddress{{IP: address}},
		Ports:     []core.EndpointPort{{Name: "https", Port: int32(securePort), Protocol: core.ProtocolTCP}},
	}}
}

// ensureKubernetesService creates the "kubernetes" Service and its
// Endpoints when they are missing, and with updateLive brings the
// Endpoints' port and address up to date when the secure port or advertise
// address changed since the last start (as upstream's endpoint reconciler
// does once the server is ready), through ensureObjects. An existing
// Service is left as it is, its targetPort included: kube-apiserver 1.33's
// bootstrap controller (pkg/controlplane/controller/kubernetesservice)
// only creates it, so after a restart on another port it keeps the old
// targetPort (measured: the reference restarted on a new --secure-port with
// the same etcd answered the unchanged Service, same resourceVersion). The
// creates run together with the system namespaces' (one transaction on a
// fresh data dir). Nothing happens when Options.SecurePort is 0.
func (s *Server) ensureKubernetesService(ctx context.Context, updateLive bool) error {
	port := s.opts.SecurePort
	if port == 0 {
		return nil
	}
	addr := s.opts.AdvertiseAddress
	if addr == "" {
		addr = "127.0.0.1"
	}
	ctx = registry.WithNamespaceCreatedTogether(ctx, registry.KubernetesServiceNamespace)
	svcs := rest.ObjectWriter{Store: s.api.Store(meta.GroupResource{Resource: "services"}), Manager: kubernetesServiceManager}
	eps := rest.ObjectWriter{Store: s.api.Store(meta.GroupResource{Resource: "endpoints"}), Manager: kubernetesServiceManager}
	var reviseEp func(live, want meta.Object) meta.Object
	if updateLive {
		reviseEp = func(live, _ meta.Object) meta.Object {
			cur := live.(*core.Endpoints)
			want := kubernetesSubsets(addr, port)
			if reflect.DeepEqual(cur.Subsets, want) && cur.Labels["endpointslice.kubernetes.io/skip-mirror"] == "true" {
				return nil
			}
			upd := *cur
			upd.Subsets = want
			upd.Labels = maps.Clone(cur.Labels)
			if upd.Labels == nil {
				upd.Labels = map[string]string{}
			}
			upd.Labels["endpointslice.kubernetes.io/skip-mirror"] = "true"
			return &upd
		}
	}
	var wg sync.WaitGroup
	var svcErr, epErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		svcErr = ensureObjects(ctx, svcs, "service", []meta.Object{kubernetesService(port)}, nil)
	}()
	go func() {
		defer wg.Done()
		epErr = ensureObjects(ctx, eps, "endpoints", []meta.Object{kubernetesEndpoints(addr, port)}, reviseEp)
	}()
	wg.Wait()
	return errors.Join(svcErr, epErr)
}
