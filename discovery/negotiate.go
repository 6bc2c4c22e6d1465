package discovery

import (
	"net/http"
	"strings"

	"github.com/aggsim/aggsim/registry/negotiation"
)

// Accept negotiation for discovery (apiserver
// pkg/endpoints/handlers/negotiation/negotiate.go with goautoneg, and
// pkg/endpoints/discovery/aggregated/negotiation.go, wrapper.go).

// mediaKind is an encoding aggsim can write.
type mediaKind int

const (
	mediaJSON mediaKind = iota
	mediaYAML
	// mediaProtobuf is application/vnd.kubernetes.protobuf, negotiated for
	// the legacy documents only, and only when a protobuf encoder is
	// registered (negotiation.ProtobufAvailable).
	mediaProtobuf
)

// contentTypeOf is the Content-Type of a JSON or YAML answer.
func contentTypeOf(kind mediaKind) string {
	if kind == mediaYAML {
		return contentTypeYAML
	}
	return contentTypeJSON
}

// negotiated is the outcome of negotiating one request.
type negotiated struct {
	kind   mediaKind
	pretty bool
	// beta selects apidiscovery.k8s.io/v2beta1 for aggregated responses.
	beta bool
}

// matchKind returns the first text encoding aggsim writes (JSON, then
// YAML) that the clause's media range matches. Protobuf, which only the
// legacy documents are written in, is matched by negotiateLegacy.
func matchKind(c negotiation.Clause) (mediaKind, bool) {
	if c.Type != "*" && c.Type != "application" {
		return 0, false
	}
	switch c.Subtype {
	case "*", "json":
		return mediaJSON, true
	case "yaml":
		return mediaYAML, true
	}
	return 0, false
}

// negotiateLegacy picks the encoding for a legacy discovery document
// (APIGroupList, APIGroup, APIVersions): the first clause that names a
// supported type and asks for no conversion (no as/g/v parameters) wins;
// protobuf is supported when an encoder is registered, as kube-apiserver
// answers these documents in protobuf. An empty Accept means JSON. ok is
// false when nothing is acceptable (406).
func negotiateLegacy(r *http.Request) (negotiated, bool) {
	header := r.Header.Get("Accept")
	if header == contentTypeJSON || strings.TrimSpace(header) == "" {
		// What ParseAccept's one clause of a bare application/json would
		// pick, without parsing it (issue 21: most clients send exactly this).
		return negotiated{kind: mediaJSON, pretty: negotiation.IsPrettyPrint(r)}, true
	}
	for _, c := range negotiation.ParseAccept(header) {
		kind, ok := matchKind(c)
		if !ok && c.MediaType() == negotiation.MediaProtobuf && negotiation.ProtobufAvailable() {
			kind, ok = mediaProtobuf, true
		}
		if !ok {
			continue
		}
		if _, has := c.Params["as"]; has {
			continue
		}
		if _, has := c.Params["g"]; has {
			continue
		}
		if _, has := c.Params["v"]; has {
			continue
		}
		if _, has := c.Params["sv"]; has {
			continue
		}
		return negotiated{kind: kind, pretty: c.Params["pretty"] == "1" || negotiation.IsPrettyPrint(r)}, true
	}
	return negotiated{}, false
}

// negotiateAggregated reports whether the request asks for aggregated
// discovery: the first clause, in preference order, that names a supported
// type and carries g=apidiscovery.k8s.io, v=v2 and as=APIGroupDiscoveryList
// decides; clauses without them are ignored for this decision. v2beta1
// counts only when allowBeta is set.
func negotiateAggregated(r *http.Request, allowBeta bool) (negotiated, bool) {
	header := r.Header.Get("Accept")
	if !strings.Contains(header, "apidiscovery.k8s.io") {
		return negotiated{}, false
	}
	for _, c := range negotiation.ParseAccept(header) {
		kind, ok := matchKind(c)
		if !ok {
			continue
		}
		if c.Params["g"] != "apidiscovery.k8s.io" || c.Params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		n := negotiated{kind: kind, pretty: c.Params["pretty"] == "1" || negotiation.IsPrettyPrint(r)}
		switch c.Params["v"] {
		case "v2":
			return n, true
		case "v2beta1":
			if allowBeta {
				n.beta = true
				return n, true
			}
		}
	}
	return negotiated{}, false
}
