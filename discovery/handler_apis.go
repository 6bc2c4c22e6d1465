package discovery

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// Legacy /apis: the APIGroupList (kube-aggregator
// pkg/apiserver/handler_apis.go apisHandler).

const (
	apiGroupListPrefix = `{"kind":"APIGroupList","apiVersion":"v1","groups":[`
	apiGroupPrefix     = `{"kind":"APIGroup","apiVersion":"v1",`
	contentTypeJSON    = "application/json"
	contentTypeYAML    = "application/yaml"
	cacheControlLegacy = "no-cache, private"
)

// apiRegistrationEntry is the hard-coded first group of legacy /apis.
const apiRegistrationEntry = `{"name":"apiregistration.k8s.io","versions":[{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}}`

// encodeLegacy encodes the APIGroupList of /apis and the APIGroup document of
// every group, groups already in order. It writes JSON by hand (the same
// bytes encoding/json would write) so that a rebuild with 10,000
// APIServices stays cheap.
func encodeLegacy(groups []*groupState) (*document, map[string]*document) {
	size := len(apiGroupListPrefix) + len(apiRegistrationEntry) + 4
	for _, g := range groups {
		size += 64 + 2*len(g.name)
		for _, v := range g.versions {
			size += 36 + len(g.name) + 2*len(v.Version)
		}
	}
	list := make([]byte, 0, size)
	list = append(list, apiGroupListPrefix...)
	list = append(list, apiRegistrationEntry...)
	// All group documents share one buffer; each document is a sub-slice.
	docsBuf := make([]byte, 0, size+len(groups)*(len(apiGroupPrefix)+1))
	type span struct{ from, to int }
	spans := make([]span, len(groups)+1)

	from := len(docsBuf)
	docsBuf = append(docsBuf, apiGroupPrefix...)
	docsBuf = append(docsBuf, apiRegistrationEntry[1:]...)
	docsBuf = append(docsBuf, '\n')
	spans[0] = span{from, len(docsBuf)}

	for i, g := range groups {
		list = append(list, ',')
		entryStart := len(list)
		list = appendGroupEntry(list, g)
		from := len(docsBuf)
		docsBuf = append(docsBuf, apiGroupPrefix...)
		docsBuf = append(docsBuf, list[entryStart+1:]...)
		docsBuf = append(docsBuf, '\n')
		spans[i+1] = span{from, len(docsBuf)}
	}
	list = append(list, "]}\n"...)

	docs := make(map[string]*document, len(groups)+1)
	all := make([]document, len(groups)+1)
	for i, sp := range spans {
		all[i].compact = docsBuf[sp.from:sp.to:sp.to]
		if i == 0 {
			docs[apiRegistrationGroup] = &all[0]
		} else {
			docs[groups[i-1].name] = &all[i]
		}
	}
	return &document{compact: list}, docs
}

// appendGroupEntry appends one APIGroup without kind and apiVersion:
// {"name":…,"versions":[…],"preferredVersion":{…}}. The preferred version is
// the first one, whatever its availability (upstream does the same).
func appendGroupEntry(b []byte, g *groupState) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, g.name)
	b = append(b, `,"versions":[`...)
	for i, v := range g.versions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendGroupVersion(b, g.name, v.Version)
	}
	b = append(b, `],"preferredVersion":`...)
	b = appendGroupVersion(b, g.name, g.versions[0].Version)
	return append(b, '}')
}

// appendGroupVersion appends {"groupVersion":"g/v","version":"v"}.
func appendGroupVersion(b []byte, group, version string) []byte {
	b = append(b, `{"groupVersion":`...)
	b = appendJSONString(b, group+"/"+version)
	b = append(b, `,"version":`...)
	b = appendJSONString(b, version)
	return append(b, '}')
}

// appendJSONString appends s as encoding/json would encode it (HTML-safe).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// ServeAPIs answers GET /apis and /apis/. At /apis, an Accept header that
// asks for apidiscovery.k8s.io/v2 APIGroupDiscoveryList gets aggregated
// discovery (see ServeAggregated); anything else gets the legacy
// APIGroupList. At /apis/ (trailing slash) only the legacy document is
// served, so an aggregated-only Accept gets 406, as upstream (which
// registers /apis/ without the aggregated wrapper). The method is not
// checked, as upstream.
func (m *Manager) ServeAPIs(w http.ResponseWriter, r *http.Request) {
	snap := m.snap.Load()
	if m.serveAggregatedAt(w, r, "/apis/", snap.apisAgg) {
		return
	}
	m.serveLegacy(w, r, snap.apis)
}

// serveAggregatedAt serves d, aggregated discovery, and reports true when
// the Accept header asks for it and the path is not slashPath, the
// trailing-slash form that serves only the legacy document.
func (m *Manager) serveAggregatedAt(w http.ResponseWriter, r *http.Request, slashPath string, d *aggDoc) bool {
	if r.URL.Path == slashPath {
		return false
	}
	n, ok := negotiateAggregated(r, m.opts.ServeV2Beta1)
	if ok {
		serveAggregated(w, r, d, n)
	}
	return ok
}

// serveLegacy writes a legacy discovery document in the negotiated
// encoding, or 406.
func (m *Manager) serveLegacy(w http.ResponseWriter, r *http.Request, d *document) {
	n, ok := negotiateLegacy(r)
	if !ok {
		m.writeNotAcceptable(w)
		return
	}
	b, ct := d.forMedia(n.kind, n.pretty)
	writeLegacy(w, ct, b)
}

// writeLegacy writes 200 and b, a legacy discovery document already
// encoded as the Content-Type ct says, with Cache-Control.
func writeLegacy(w http.ResponseWriter, ct string, b []byte) {
	h := w.Header()
	// Shared, never-changed value slices: no allocation per answer.
	switch ct {
	case contentTypeJSON:
		h["Content-Type"] = contentTypeJSONValue
	case contentTypeYAML:
		h["Content-Type"] = contentTypeYAMLValue
	default:
		h.Set("Content-Type", ct)
	}
	h["Cache-Control"] = cacheControlLegacyValue
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// The header values writeLegacy sets, as shared slices (net/http reads
// them and never changes them; a handler that adds to them gets a new
// array, since each has no spare capacity).
var (
	contentTypeJSONValue    = []string{contentTypeJSON}
	contentTypeYAMLValue    = []string{contentTypeYAML}
	cacheControlLegacyValue = []string{cacheControlLegacy}
)

// writeNotAcceptable writes the 406 Status kube-apiserver answers when no
// Accept clause can be served (indented JSON, as its WriteRawJSON does).
func (m *Manager) writeNotAcceptable(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", contentTypeJSON)
	h.Set("Cache-Control", cacheControlLegacy)
	w.WriteHeader(http.StatusNotAcceptable)
	_, _ = w.Write(m.notAcceptable)
}

// ServeHTTP routes the discovery paths: /api, /apis, /apis/, /apis/<group>
// and /apis/<group>/. Any other path gets Go's plain-text 404, as
// kube-apiserver's NotFound handler answers. The aggregator's router may
// call the specific Serve methods instead.
func (m *Manager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/api" || p == "/api/":
		m.ServeAPI(w, r)
	case p == "/apis" || p == "/apis/":
		m.ServeAPIs(w, r)
	case len(p) > len("/apis/") && p[:len("/apis/")] == "/apis/":
		g := p[len("/apis/"):]
		if g[len(g)-1] == '/' {
			g = g[:len(g)-1]
		}
		for i := 0; i < len(g); i++ {
			if g[i] == '/' {
				http.NotFound(w, r)
				return
			}
		}
		m.ServeGroup(w, r, g)
	default:
		http.NotFound(w, r)
	}
}

var _ http.Handler = (*Manager)(nil)
