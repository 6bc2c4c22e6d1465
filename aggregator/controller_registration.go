package aggregator

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/aggsim/aggsim/discovery"
	"github.com/aggsim/aggsim/proxy"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// registrationController keeps the router, the proxy handlers and
// discovery in step with the APIServices in the store, as upstream's
// APIServiceRegistrationController with its APIHandlerManager
// (kube-aggregator/pkg/apiserver/apiservice_controller.go and
// apiserver.go AddAPIService/RemoveAPIService). It is level-triggered:
// sync(name) reads the current object from the informer, and "not found"
// means remove.
type registrationController struct {
	s *Server

	mu sync.Mutex // guards handlers and groups; serialises syncs
	// handlers holds the proxy handler of every remote APIService by name.
	handlers map[string]*proxy.Handler
	// groups maps a group to the names of its APIServices, so /apis/<g>
	// stays routed while any version of the group exists.
	groups map[string]map[string]struct{}
	// gvOf remembers each registered APIService's group and version.
	gvOf map[string][2]string
	// routed maps each routed /apis/<g>/<v> path to its handler, so an
	// unchanged APIService is not registered again.
	routed map[string]http.Handler

	// published is a read-only copy of handlers, replaced whole after every
	// change, so request-path readers (metrics, the timeout filter,
	// discovery and OpenAPI fetches) never take mu. Do not copy a
	// registrationController.
	published atomic.Pointer[publishedHandlers]
}

// publishedHandlers is one immutable snapshot of the remote APIServices'
// proxy handlers, indexed both ways the request path asks.
type publishedHandlers struct {
	byName map[string]*proxy.Handler
	// byGV holds the same handlers by spec.group and spec.version, so a
	// request path's segments are looked up without building the name.
	byGV map[groupVersion]*proxy.Handler
}

// groupVersion is an APIService's spec.group and spec.version.
type groupVersion struct{ group, version string }

func newRegistrationController(s *Server) *registrationController {
	return &registrationController{
		s:        s,
		handlers: map[string]*proxy.Handler{},
		groups:   map[string]map[string]struct{}{},
		gvOf:     map[string][2]string{},
		routed:   map[string]http.Handler{},
	}
}

// onChange is the APIService informer handler.
func (c *registrationController) onChange(old, cur meta.Object) {
	o := cur
	if o == nil {
		o = old
	}
	c.sync(o.GetObjectMeta().Name)
}

// proxyHandler returns the handler of a remote APIService, or nil. It
// takes no lock.
func (c *registrationController) proxyHandler(name string) *proxy.Handler {
	if p := c.published.Load(); p != nil {
		return p.byName[name]
	}
	return nil
}

// proxyHandlerFor returns the handler of the remote APIService serving
// group/version, or nil. It takes no lock and does not allocate.
func (c *registrationController) proxyHandlerFor(group, version string) *proxy.Handler {
	if p := c.published.Load(); p != nil {
		return p.byGV[groupVersion{group, version}]
	}
	return nil
}

// publish replaces the lock-free copy of handlers. Called with c.mu held
// whenever handlers changed (c.gvOf already holds every handler's group
// and version).
func (c *registrationController) publish() {
	p := &publishedHandlers{
		byName: make(map[string]*proxy.Handler, len(c.handlers)),
		byGV:   make(map[groupVersion]*proxy.Handler, len(c.handlers)),
	}
	for k, v := range c.handlers {
		p.byName[k] = v
		gv := c.gvOf[k]
		p.byGV[groupVersion{gv[0], gv[1]}] = v
	}
	c.published.Store(p)
}

// sync brings routes, proxy and discovery in line with the current state of
// the APIService name.
func (c *registrationController) sync(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, ok := c.s.apiServices.Get("", name)
	if !ok {
		c.remove(name)
		return
	}
	a := obj.(*apiregistration.APIService)
	if prev, ok := c.gvOf[name]; ok && (prev[0] != a.Spec.Group || prev[1] != a.Spec.Version) {
		c.remove(name)
	}
	c.add(a)
}

func isAvailable(a *apiregistration.APIService) bool {
	cond := a.GetCondition(apiregistration.Available)
	return cond != nil && cond.Status == apiregistration.ConditionTrue
}

// add registers (or refreshes) the routes, handler and discovery entry of a.
// Called with c.mu held.
func (c *registrationController) add(a *apiregistration.APIService) {
	s := c.s
	group, version := a.Spec.Group, a.Spec.Version
	c.gvOf[a.Name] = [2]string{group, version}
	if group == "" {
		// The legacy core group is served at /api and not listed in /apis.
		return
	}
	gvPath := "/apis/" + group + "/" + version
	d := discovery.APIService{
		Name: a.Name, Group: group, Version: version,
		GroupPriorityMinimum: a.Spec.GroupPriorityMinimum, VersionPriority: a.Spec.VersionPriority,
		CABundle: a.Spec.CABundle, InsecureSkipTLSVerify: a.Spec.InsecureSkipTLSVerify,
		Available: isAvailable(a),
	}
	if a.Spec.Service == nil {
		if h := c.handlers[a.Name]; h != nil {
			h.Close()
			delete(c.handlers, a.Name)
			c.publish()
		}
		if res, ok := s.api.APIResourceList(group, version); ok {
			d.Resources = res
			if group != apiregistration.GroupAPIRegistration {
				c.route(gvPath, s.api)
			}
		} else {
			// A Local APIService of a group aggsim does not serve: listed in
			// /apis, /apis/<g>/<v> answers 404 (capture i-lifecycle/local-custom*).
			c.unroute(gvPath)
		}
	} else {
		port := int32(443)
		if a.Spec.Service.Port != nil {
			port = *a.Spec.Service.Port
		}
		d.Service = &discovery.ServiceRef{Namespace: a.Spec.Service.Namespace, Name: a.Spec.Service.Name, Port: port}
		h := c.handlers[a.Name]
		if h == nil {
			h = proxy.NewHandler(proxy.Options{
				Resolver:   s.resolver,
				Transports: s.transports,
				Logger:     s.logger,
				OnRequest:  s.onProxyRequest,
				// The timeout filter leaves proxied requests' deadline to
				// the proxy (ChainOptions.Proxied): answer it as
				// the filter would.
				InterceptError: func(w http.ResponseWriter, r *http.Request, _ error) bool {
					if !requestTimedOut(r.Context()) {
						return false
					}
					writeTimeoutStatus(w)
					return true
				},
			})
			c.handlers[a.Name] = h
			c.publish()
		}
		h.Update(proxy.Target{
			APIServiceName: a.Name, Group: group, Version: version,
			Service:  &proxy.ServiceRef{Namespace: a.Spec.Service.Namespace, Name: a.Spec.Service.Name, Port: port},
			CABundle: a.Spec.CABundle, InsecureSkipTLSVerify: a.Spec.InsecureSkipTLSVerify,
			Available: d.Available,
		})
		c.route(gvPath, h)
	}
	if group != apiregistration.GroupAPIRegistration {
		names := c.groups[group]
		if names == nil {
			names = map[string]struct{}{}
			c.groups[group] = names
			gh := s.groupHandler(group)
			s.mux.Update(func(tx *MuxTx) {
				tx.Handle("/apis/"+group, gh)
				tx.UnlistedHandle("/apis/"+group+"/", gh)
			})
		}
		names[a.Name] = struct{}{}
	}
	s.discovery.Update(d)
	s.openapi.Update(a) // OpenAPI aggregation, openapi.go
}

// remove unregisters everything add registered for name. Called with c.mu
// held.
func (c *registrationController) remove(name string) {
	s := c.s
	gv, ok := c.gvOf[name]
	if !ok {
		return
	}
	delete(c.gvOf, name)
	group, version := gv[0], gv[1]
	if group == "" {
		return
	}
	if h := c.handlers[name]; h != nil {
		h.Close()
		delete(c.handlers, name)
		c.publish()
	}
	gvPath := "/apis/" + group + "/" + version
	s.discovery.Remove(name)
	s.openapi.Remove(name) // OpenAPI aggregation, openapi.go
	if group == apiregistration.GroupAPIRegistration {
		return
	}
	c.unroute(gvPath)
	s.mux.Update(func(tx *MuxTx) {
		if names := c.groups[group]; names != nil {
			delete(names, name)
			if len(names) == 0 {
				delete(c.groups, group)
				tx.Unregister("/apis/" + group)
				tx.Unregister("/apis/" + group + "/")
			}
		}
	})
}

// route points /apis/<g>/<v> and its subtree at h, unless they already
// are. Called with c.mu held.
func (c *registrationController) route(gvPath string, h http.Handler) {
	if cur, ok := c.routed[gvPath]; ok && cur == h {
		return
	}
	c.routed[gvPath] = h
	c.s.mux.Update(func(tx *MuxTx) {
		tx.Handle(gvPath, h)
		tx.UnlistedHandlePrefix(gvPath+"/", h)
	})
}

// unroute removes what route registered. Called with c.mu held.
func (c *registrationController) unroute(gvPath string) {
	if _, ok := c.routed[gvPath]; !ok {
		return
	}
	delete(c.routed, gvPath)
	c.s.mux.Update(func(tx *MuxTx) {
		tx.Unregister(gvPath)
		tx.Unregister(gvPath + "/")
	})
}
