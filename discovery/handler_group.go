package discovery

import (
	"net/http"

	"github.com/aggsim/aggsim/registry/negotiation"
)

// ServeGroup answers GET /apis/<group> (and /apis/<group>/) with the
// group's APIGroup document: versions by versionPriority then kube-aware
// order, preferredVersion the first (kube-aggregator handler_apis.go
// apiGroupHandler). Availability does not matter. An unknown group gets
// Go's plain-text "404 page not found", as kube-apiserver answers
// (capture c-proxy/c28-unknown-group-root). apiregistration.k8s.io, the
// aggregator's own group, is a go-restful route upstream: an Accept naming
// none of its media types gets go-restful's 406 ("406: Not Acceptable" and
// the available representations) before the handler negotiates, where
// every other group gets the handler's 406.
func (m *Manager) ServeGroup(w http.ResponseWriter, r *http.Request, group string) {
	d, ok := m.snap.Load().groups[group]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if group == apiRegistrationGroup {
		if err := negotiation.RouteAccept(r, negotiation.ObjectMediaTypes); err != nil {
			negotiation.WriteStatus(w, r, err)
			return
		}
	}
	m.serveLegacy(w, r, d)
}
