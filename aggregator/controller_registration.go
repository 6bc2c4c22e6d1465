package aggregator

import (
	"net/http"
	"sync"

	"github.com/aggsim/aggsim/discovery"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// APIHandlerManager is what the registration controller drives, as
// upstream's APIHandlerManager (kube-aggregator pkg/apiserver/apiserver.go
// AddAPIService/RemoveAPIService): it makes an APIService served, or stops
// serving it. Both are idempotent and safe for concurrent use.
type APIHandlerManager interface {
	// AddAPIService serves a (again), replacing what an earlier call for
	// the same name set up.
	AddAPIService(a *apiregistration.APIService)
	// RemoveAPIService stops serving the APIService name; unknown names
	// are ignored.
	RemoveAPIService(name string)
}

// APIServiceLister reads the current APIServices (the informer's cache).
type APIServiceLister interface {
	// Get returns the object namespace/name ("" namespace for
	// cluster-scoped kinds) and whether it exists.
	Get(namespace, name string) (meta.Object, bool)
}

// registrationController keeps the served APIServices in step with the
// store, as upstream's APIServiceRegistrationController
// (kube-aggregator/pkg/apiserver/apiservice_controller.go). It holds no
// state of its own: it is level-triggered, so sync(name) reads the current
// object and hands it to the APIHandlerManager, and "not found" means
// remove.
type registrationController struct {
	lister   APIServiceLister
	handlers APIHandlerManager
}

// onChange is the APIService informer handler.
func (c registrationController) onChange(old, cur meta.Object) {
	o := cur
	if o == nil {
		o = old
	}
	c.sync(o.GetObjectMeta().Name)
}

// sync brings the serving of the APIService name in line with its current
// state.
func (c registrationController) sync(name string) {
	obj, ok := c.lister.Get("", name)
	if !ok {
		c.handlers.RemoveAPIService(name)
		return
	}
	c.handlers.AddAPIService(obj.(*apiregistration.APIService))
}

// localAPI is the part of the built-in REST API the manager routes Local
// APIServices to.
type localAPI interface {
	http.Handler
	// APIResourceList returns the discovery document of a group/version
	// aggsim serves itself, and whether it serves it.
	APIResourceList(group, version string) ([]byte, bool)
}

// apiHandlerManager is aggsim's APIHandlerManager: it fans one APIService
// out to the router (routes and the proxy handler, which the router holds),
// discovery and OpenAPI aggregation. The router is the one place that
// remembers what is routed for each APIService.
type apiHandlerManager struct {
	mu        sync.Mutex // serialises Add/Remove, so a handler is created once
	router    *Mux
	local     localAPI
	newProxy  func() *proxy.Handler
	discovery interface {
		Update(discovery.APIService)
		Remove(name string)
	}
	openapi interface {
		Update(*apiregistration.APIService)
		Remove(name string)
	}
	// groupHandler serves /apis/<group> discovery.
	groupHandler func(group string) http.Handler
}

var _ APIHandlerManager = (*apiHandlerManager)(nil)

// proxyHandler returns the proxy handler of the remote APIService name, or
// nil when it is not remote (or unknown).
func (m *apiHandlerManager) proxyHandler(name string) *proxy.Handler {
	rt, ok := m.router.APIService(name)
	if !ok || !rt.Proxied {
		return nil
	}
	h, _ := rt.Handler.(*proxy.Handler)
	return h
}

// AddAPIService routes a, (re)configures its proxy handler when it is
// remote, and updates discovery and OpenAPI aggregation.
func (m *apiHandlerManager) AddAPIService(a *apiregistration.APIService) {
	m.mu.Lock()
	defer m.mu.Unlock()
	group, version := a.Spec.Group, a.Spec.Version
	if old, ok := m.router.APIService(a.Name); ok && (old.Group != group || old.Version != version) {
		m.removeLocked(a.Name) // a new group/version is a new APIService
	}
	prev := m.proxyHandler(a.Name)
	rt := APIServiceRoute{Name: a.Name, Group: group, Version: version}
	if group != "" && group != apiregistration.GroupAPIRegistration {
		rt.GroupHandler = m.groupHandler(group)
	}
	d := discovery.APIService{
		Name: a.Name, Group: group, Version: version,
		GroupPriorityMinimum: a.Spec.GroupPriorityMinimum, VersionPriority: a.Spec.VersionPriority,
		CABundle: a.Spec.CABundle, InsecureSkipTLSVerify: a.Spec.InsecureSkipTLSVerify,
		Available:       a.IsAvailable(),
		CustomResources: a.Labels[automanagedLabel] == automanagedValueForCRDs,
	}
	if a.Spec.Service == nil && group == "" {
		// The legacy core group's /api tree is the router's (Mux.Legacy).
	} else if a.Spec.Service == nil {
		if res, ok := m.local.APIResourceList(group, version); ok {
			d.Resources = res
			rt.Handler = m.local
		}
		// else: a Local APIService of a group aggsim does not serve is
		// listed in /apis, and /apis/<g>/<v> answers 404 (capture
		// i-lifecycle/local-custom*).
	} else {
		port := apiregistration.DefaultServicePort
		if a.Spec.Service.Port != nil {
			port = *a.Spec.Service.Port
		}
		d.Service = &discovery.ServiceRef{Namespace: a.Spec.Service.Namespace, Name: a.Spec.Service.Name, Port: port}
		h := prev
		if h == nil {
			h = m.newProxy()
		}
		h.Update(proxy.Target{
			APIServiceName: a.Name, Group: group, Version: version,
			Service:  &proxy.ServiceRef{Namespace: a.Spec.Service.Namespace, Name: a.Spec.Service.Name, Port: port},
			CABundle: a.Spec.CABundle, InsecureSkipTLSVerify: a.Spec.InsecureSkipTLSVerify,
			Available: d.Available,
		})
		rt.Handler, rt.Proxied = h, true
	}
	m.router.SetAPIService(rt)
	if prev != nil && rt.Handler != prev {
		prev.Close()
	}
	if group == "" {
		return // not listed in /apis, and its documents are aggsim's own
	}
	m.discovery.Update(d)
	m.openapi.Update(a)
}

// RemoveAPIService unroutes name, closes its proxy handler and removes it
// from discovery and OpenAPI aggregation.
func (m *apiHandlerManager) RemoveAPIService(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeLocked(name)
}

// removeLocked is RemoveAPIService with m.mu held.
func (m *apiHandlerManager) removeLocked(name string) {
	rt, ok := m.router.APIService(name)
	if !ok {
		return
	}
	m.router.RemoveAPIService(name)
	if h, ok := rt.Handler.(*proxy.Handler); ok && rt.Proxied {
		h.Close()
	}
	if rt.Group == "" {
		return
	}
	m.discovery.Remove(name)
	m.openapi.Remove(name)
}
