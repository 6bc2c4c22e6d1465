package aggregator

import (
	"context"
	"errors"
	"fmt"
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
// does once the server is ready). An existing Service is left as it is,
// its targetPort included: kube-apiserver 1.33's bootstrap controller
// (pkg/controlplane/controller/kubernetesservice,
// CreateOrUpdateMasterServiceIfNeeded) only creates it, so after a restart
// on another port it keeps the old targetPort (the reference restarted on a
// new --secure-port with the same etcd answered the unchanged Service, same
// resourceVersion). The creates run together with the system namespaces'
// (one transaction on a fresh data dir). Nothing happens when
// Options.SecurePort is 0.
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
	var wg sync.WaitGroup
	var svcErr, epErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		svcErr = ensureObject(ctx, svcs, kubernetesService(port), func(meta.Object) meta.Object { return nil })
	}()
	go func() {
		defer wg.Done()
		epErr = ensureObject(ctx, eps, kubernetesEndpoints(addr, port), func(live meta.Object) meta.Object {
			if !updateLive {
				return nil
			}
			cur := live.(*core.Endpoints)
			want := kubernetesSubsets(addr, port)
			if reflect.DeepEqual(cur.Subsets, want) && cur.Labels["endpointslice.kubernetes.io/skip-mirror"] == "true" {
				return nil
			}
			upd := *cur
			upd.Subsets = want
			upd.Labels = map[string]string{}
			for k, v := range cur.Labels {
				upd.Labels[k] = v
			}
			upd.Labels["endpointslice.kubernetes.io/skip-mirror"] = "true"
			return &upd
		})
	}()
	wg.Wait()
	return errors.Join(svcErr, epErr)
}

// ensureObject creates obj when it is missing; otherwise update returns
// the object that should replace the live one, or nil when it is up to
// date. A write that lost a race is retried a few times.
func ensureObject(ctx context.Context, w rest.ObjectWriter, obj meta.Object, update func(live meta.Object) meta.Object) error {
	m := obj.GetObjectMeta()
	for attempt := 0; ; attempt++ {
		live, err := w.Get(ctx, m.Namespace, m.Name)
		switch {
		case errors.Is(err, meta.ErrNotFound):
			_, err = w.Create(ctx, obj)
		case err == nil:
			if upd := update(live); upd != nil {
				_, err = w.Update(ctx, live, upd)
			}
		}
		if (errors.Is(err, meta.ErrAlreadyExists) || errors.Is(err, meta.ErrConflict)) && attempt < 3 {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s %s/%s: %w", w.Store.Info().Resource, m.Namespace, m.Name, err)
		}
		return nil
	}
}
