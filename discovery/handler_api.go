package discovery

import (
	"net/http"

	"github.com/aggsim/aggsim/registry/negotiation"
)

// /api: the legacy core group's APIVersions and its aggregated form
// (apiserver pkg/endpoints/discovery/legacy.go and the aggregated wrapper
// installed for /api in pkg/server/genericapiserver.go).

// The compact and pretty APIVersions documents around the server address,
// which comes from the request (or Options.ExternalAddress) and so is
// spliced in per request.
const (
	apiVersionsPrefix       = `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":`
	apiVersionsSuffix       = "}]}\n"
	apiVersionsPrettyPrefix = "{\n  \"kind\": \"APIVersions\",\n  \"versions\": [\n    \"v1\"\n  ],\n  \"serverAddressByClientCIDRs\": [\n    {\n      \"clientCIDR\": \"0.0.0.0/0\",\n      \"serverAddress\": "
	apiVersionsPrettySuffix = "\n    }\n  ]\n}"
	apiVersionsYAMLPrefix   = "kind: APIVersions\nserverAddressByClientCIDRs:\n- clientCIDR: 0.0.0.0/0\n  serverAddress: "
	apiVersionsYAMLSuffix   = "\nversions:\n- v1\n"
)

// ServeAPI answers GET /api: aggregated discovery of the core group (one
// item with no name, version v1, the resources of Options.CoreResources)
// when the Accept header asks for it, else the APIVersions document
// {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[…]}.
func (m *Manager) ServeAPI(w http.ResponseWriter, r *http.Request) {
	if m.serveAggregatedAt(w, r, "/api/", m.snap.Load().apiAgg) {
		return
	}
	// Upstream's /api is a go-restful route: an Accept naming none of its
	// media types is refused before the handler negotiates.
	if err := negotiation.RouteAccept(r, negotiation.ObjectMediaTypes); err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	n, ok := negotiateLegacy(r)
	if !ok {
		m.writeNotAcceptable(w)
		return
	}
	addr := m.opts.ExternalAddress
	if addr == "" {
		addr = r.Host
	}
	prefix, suffix, appendAddr := apiVersionsPrefix, apiVersionsSuffix, appendJSONString
	switch {
	case n.kind == mediaYAML:
		prefix, suffix, appendAddr = apiVersionsYAMLPrefix, apiVersionsYAMLSuffix, appendYAMLScalar
	case n.pretty:
		prefix, suffix = apiVersionsPrettyPrefix, apiVersionsPrettySuffix
	}
	b := make([]byte, 0, len(prefix)+len(addr)+len(suffix)+2)
	b = append(b, prefix...)
	b = appendAddr(b, addr)
	b = append(b, suffix...)
	if n.kind == mediaProtobuf {
		if pb, ok := negotiation.EncodeProtobufJSON(b); ok {
			writeLegacy(w, negotiation.MediaProtobuf, pb)
			return
		}
	}
	writeLegacy(w, contentTypeOf(n.kind), b)
}

// appendYAMLScalar appends a host:port as a YAML scalar, quoted when it
// could be misread (IPv6 brackets, colons followed by space, empty).
func appendYAMLScalar(b []byte, s string) []byte {
	if s == "" || s[0] == '[' || s[0] == '{' || s[0] == '*' || s[0] == '&' || s[0] == '!' {
		return appendJSONString(b, s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '#' || s[i] == '"' || s[i] == '\'' || s[i] < 0x20 || (s[i] == ':' && i+1 < len(s) && s[i+1] == ' ') {
			return appendJSONString(b, s)
		}
	}
	return append(b, s...)
}
