package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/rest"
)

// Where the demo backend is registered, as the upstream sample's manifests
// name it: Service wardle/api, port 443 named https.
const (
	Namespace   = "wardle"
	ServiceName = "api"
	ServicePort = 443
	PortName    = "https"
)

// APIService settings of the two versions: v1alpha1 as the sample's
// artifacts/example/apiservice.yaml (groupPriorityMinimum 1000,
// versionPriority 15), v1beta1 one step below it.
const (
	GroupPriorityMinimum    = 1000
	VersionPriorityV1alpha1 = 15
	VersionPriorityV1beta1  = 10
)

// APIServiceNames returns the names of the demo's APIServices.
func APIServiceNames() []string { return []string{V1alpha1 + "." + Group, V1beta1 + "." + Group} }

// Registration returns the objects that route an aggregator to a demo
// backend listening on 127.0.0.1:port, the way a cluster would: Namespace
// wardle, Service wardle/api (ClusterIP, port 443 named https, targetPort
// port), Endpoints wardle/api (127.0.0.1, port named https), and the
// APIServices v1alpha1 and v1beta1.wardle.example.com pointing at the
// Service with caBundle (PEM) and no insecureSkipTLSVerify. Objects are
// returned in that (creation) order.
func Registration(port int32, caBundle []byte) []meta.Object {
	tm := func(kind, apiVersion string) meta.TypeMeta {
		return meta.TypeMeta{Kind: kind, APIVersion: apiVersion}
	}
	svcPort := int32(ServicePort)
	objs := []meta.Object{
		&core.Namespace{TypeMeta: tm("Namespace", "v1"), ObjectMeta: meta.ObjectMeta{Name: Namespace}},
		&core.Service{
			TypeMeta:   tm("Service", "v1"),
			ObjectMeta: meta.ObjectMeta{Name: ServiceName, Namespace: Namespace},
			Spec: core.ServiceSpec{
				Type: core.ServiceTypeClusterIP,
				Ports: []core.ServicePort{{
					Name: PortName, Protocol: core.ProtocolTCP, Port: ServicePort, TargetPort: core.FromInt(port),
				}},
			},
		},
		&core.Endpoints{
			TypeMeta:   tm("Endpoints", "v1"),
			ObjectMeta: meta.ObjectMeta{Name: ServiceName, Namespace: Namespace},
			Subsets: []core.EndpointSubset{{
				Addresses: []core.EndpointAddress{{IP: "127.0.0.1"}},
				Ports:     []core.EndpointPort{{Name: PortName, Port: port, Protocol: core.ProtocolTCP}},
			}},
		},
	}
	for _, v := range []struct {
		version string
		vp      int32
	}{{V1alpha1, VersionPriorityV1alpha1}, {V1beta1, VersionPriorityV1beta1}} {
		objs = append(objs, &apiregistration.APIService{
			TypeMeta:   tm("APIService", "apiregistration.k8s.io/v1"),
			ObjectMeta: meta.ObjectMeta{Name: v.version + "." + Group},
			Spec: apiregistration.APIServiceSpec{
				Service:              &apiregistration.ServiceReference{Namespace: Namespace, Name: ServiceName, Port: &svcPort},
				Group:                Group,
				Version:              v.version,
				CABundle:             caBundle,
				GroupPriorityMinimum: GroupPriorityMinimum,
				VersionPriority:      v.vp,
			},
		})
	}
	return objs
}

// resourceOf maps the registration's object types to their resources.
func resourceOf(obj meta.Object) (meta.GroupResource, error) {
	switch obj.(type) {
	case *core.Namespace:
		return meta.GroupResource{Resource: "namespaces"}, nil
	case *core.Service:
		return meta.GroupResource{Resource: "services"}, nil
	case *core.Endpoints:
		return meta.GroupResource{Resource: "endpoints"}, nil
	case *core.ServiceAccount:
		return meta.GroupResource{Resource: "serviceaccounts"}, nil
	case *apiregistration.APIService:
		return meta.GroupResource{Group: apiregistration.GroupAPIRegistration, Resource: "apiservices"}, nil
	case *rbac.ClusterRole:
		return meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"}, nil
	case *rbac.ClusterRoleBinding:
		return meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterrolebindings"}, nil
	case *rbac.RoleBinding:
		return meta.GroupResource{Group: rbac.GroupRBAC, Resource: "rolebindings"}, nil
	case *apiextensions.CustomResourceDefinition:
		return meta.GroupResource{Group: apiextensions.GroupAPIExtensions, Resource: "customresourcedefinitions"}, nil
	case *admissionregistration.MutatingWebhookConfiguration:
		return meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: "mutatingwebhookconfigurations"}, nil
	case *admissionregistration.ValidatingWebhookConfiguration:
		return meta.GroupResource{Group: registry.GroupAdmissionRegistration, Resource: "validatingwebhookconfigurations"}, nil
	}
	return meta.GroupResource{}, fmt.Errorf("demo: no resource for %T", obj)
}

// Apply creates each object in api's stores, or updates it when it exists
// (keeping its status and taking the stored resourceVersion), so running it
// again after a restart converges. Errors name the object; the first one
// stops Apply.
func Apply(ctx context.Context, api *rest.API, objs []meta.Object) error {
	for _, obj := range objs {
		gr, err := resourceOf(obj)
		if err != nil {
			return err
		}
		store := api.Store(gr)
		if store == nil {
			return fmt.Errorf("demo: the API does not serve %s", gr.String())
		}
		if n := store.Strategy().New(); reflect.TypeOf(n) != reflect.TypeOf(obj) {
			// a store of generic objects (webhook configurations): its own type, through JSON
			raw, err := json.Marshal(obj)
			if err == nil {
				err = json.Unmarshal(raw, n)
			}
			if err != nil {
				return fmt.Errorf("demo: %s as %T: %w", gr.String(), n, err)
			}
			obj = n
		}
		m := obj.GetObjectMeta()
		what := gr.String() + " " + qualified(m.Namespace, m.Name)
		old, err := store.Get(ctx, m.Namespace, m.Name)
		switch {
		case err == nil:
			m.ResourceVersion = old.GetObjectMeta().ResourceVersion
			m.UID = old.GetObjectMeta().UID
			if _, err := store.Update(ctx, obj); err != nil {
				return fmt.Errorf("update %s: %w", what, err)
			}
		case errors.Is(err, meta.ErrNotFound):
			if _, err := store.Create(ctx, obj); err != nil {
				return fmt.Errorf("create %s: %w", what, err)
			}
		default:
			return fmt.Errorf("get %s: %w", what, err)
		}
	}
	return nil
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// WaitAvailable polls the named APIServices in api every interval (100 ms
// when zero) until all have condition Available=True, ctx ends, or timeout
// passes. The error names each APIService that is not Available with its
// last condition, and says that the availability controller sets it.
func WaitAvailable(ctx context.Context, api *rest.API, names []string, timeout, interval time.Duration) error {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	store := api.Store(meta.GroupResource{Group: apiregistration.GroupAPIRegistration, Resource: "apiservices"})
	if store == nil {
		return errors.New("demo: the API does not serve apiservices")
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	// Reads are local and quick; they ignore ctx's cancellation so that
	// the error can say what was still missing.
	readCtx := context.WithoutCancel(ctx)
	for {
		var waiting []string
		for _, n := range names {
			obj, err := store.Get(readCtx, "", n)
			if err != nil {
				waiting = append(waiting, fmt.Sprintf("%s: %v", n, err))
				continue
			}
			a := obj.(*apiregistration.APIService)
			if a.IsAvailable() {
				continue
			}
			c := a.GetCondition(apiregistration.Available)
			if c == nil {
				waiting = append(waiting, n+": no Available condition yet")
			} else {
				waiting = append(waiting, fmt.Sprintf("%s: Available=%s (%s) %s", n, c.Status, c.Reason, c.Message))
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for APIServices to become Available: %w; %s", ctx.Err(), strings.Join(waiting, "; "))
		case <-deadline.C:
			return fmt.Errorf("APIServices not Available after %s (the availability controller sets the condition): %s", timeout, strings.Join(waiting, "; "))
		case <-tick.C:
		}
	}
}
