package discovery

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/aggsim/aggsim/registry"
)

// Accept negotiation for discovery (apiserver
// pkg/endpoints/handlers/negotiation/negotiate.go with goautoneg, and
// pkg/endpoints/discovery/aggregated/negotiation.go, wrapper.go).

// mediaKind is an encoding aggsim can write.
type mediaKind int

const (
	mediaJSON mediaKind = iota
	mediaYAML
)

// negotiated is the outcome of negotiating one request.
type negotiated struct {
	kind   mediaKind
	pretty bool
	// beta selects apidiscovery.k8s.io/v2beta1 for aggregated responses.
	beta bool
}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, sub string
	q        float64
	params   map[string]string
}

// parseAccept splits an Accept header into clauses ordered by q (highest
// first), then by specificity (a wildcard type or subtype after a concrete
// one), keeping header order otherwise.
func parseAccept(header string) []acceptClause {
	var out []acceptClause
	for part := range strings.SplitSeq(header, ",") {
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		c := acceptClause{q: 1}
		if mt == "*" {
			c.typ, c.sub = "*", "*"
		} else {
			t, s, ok := strings.Cut(mt, "/")
			if !ok || t == "" || s == "" {
				continue
			}
			c.typ, c.sub = t, s
		}
		for _, p := range fields[1:] {
			k, v, _ := strings.Cut(p, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			v = strings.TrimSpace(v)
			if k == "" {
				continue
			}
			if k == "q" {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					c.q = f
				}
				continue
			}
			if c.params == nil {
				c.params = map[string]string{}
			}
			c.params[k] = v
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b acceptClause) int {
		switch {
		case a.q > b.q:
			return -1
		case a.q < b.q:
			return 1
		}
		aw, bw := wildness(a), wildness(b)
		return aw - bw
	})
	return out
}

func wildness(c acceptClause) int {
	switch {
	case c.typ == "*":
		return 2
	case c.sub == "*":
		return 1
	}
	return 0
}

// matchKind returns the first encoding aggsim writes (JSON, then YAML) that
// the clause's media range matches. Protobuf is not written by aggsim.
func matchKind(c acceptClause) (mediaKind, bool) {
	if c.typ != "*" && c.typ != "application" {
		return 0, false
	}
	switch c.sub {
	case "*", "json":
		return mediaJSON, true
	case "yaml":
		return mediaYAML, true
	}
	return 0, false
}

// negotiateLegacy picks the encoding for a legacy discovery document
// (APIGroupList, APIGroup, APIVersions): the first clause that names a
// supported type and asks for no conversion (no as/g/v parameters) wins.
// An empty Accept means JSON. ok is false when nothing is acceptable (406).
func negotiateLegacy(r *http.Request) (negotiated, bool) {
	header := r.Header.Get("Accept")
	if strings.TrimSpace(header) == "" {
		return negotiated{kind: mediaJSON, pretty: registry.IsPrettyPrint(r)}, true
	}
	for _, c := range parseAccept(header) {
		kind, ok := matchKind(c)
		if !ok {
			continue
		}
		if _, has := c.params["as"]; has {
			continue
		}
		if _, has := c.params["g"]; has {
			continue
		}
		if _, has := c.params["v"]; has {
			continue
		}
		if _, has := c.params["sv"]; has {
			continue
		}
		return negotiated{kind: kind, pretty: c.params["pretty"] == "1" || registry.IsPrettyPrint(r)}, true
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
	for _, c := range parseAccept(header) {
		kind, ok := matchKind(c)
		if !ok {
			continue
		}
		if c.params["g"] != "apidiscovery.k8s.io" || c.params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		n := negotiated{kind: kind, pretty: c.params["pretty"] == "1" || registry.IsPrettyPrint(r)}
		switch c.params["v"] {
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
