package discovery

import "net/http"

// ServeGroup answers GET /apis/<group> (and /apis/<group>/) with the
// group's APIGroup document: versions by versionPriority then kube-aware
// order, preferredVersion the first (kube-aggregator handler_apis.go
// apiGroupHandler). Availability does not matter. An unknown group gets
// Go's plain-text "404 page not found", as kube-apiserver answers
// (capture c-proxy/c28-unknown-group-root).
func (m *Manager) ServeGroup(w http.ResponseWriter, r *http.Request, group string) {
	d, ok := m.snap.Load().groups[group]
	if !ok {
		http.NotFound(w, r)
		return
	}
	m.serveLegacy(w, r, d)
}
