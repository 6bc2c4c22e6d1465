package demo

import (
	"encoding/json"
	"net/http"

	"github.com/aggsim/aggsim/discovery"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// apiGroup is the backend's APIGroup for Group: Versions in order, the
// first preferred (upstream sample: v1beta1 before v1alpha1).
func apiGroup() discovery.APIGroup {
	g := discovery.APIGroup{Name: Group}
	for _, v := range Versions() {
		g.Versions = append(g.Versions, discovery.GroupVersionForDiscovery{GroupVersion: Group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}

// discoveryDocs holds the backend's two discovery documents as ready
// bytes, built once.
type discoveryDocs struct {
	apis  []byte // APIGroupList at /apis
	group []byte // APIGroup at /apis/<Group>
}

func newDiscoveryDocs() discoveryDocs {
	g := apiGroup()
	list := discovery.APIGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: []discovery.APIGroup{g}}
	g.Kind, g.APIVersion = "APIGroup", "v1"
	a, _ := json.Marshal(list)
	b, _ := json.Marshal(g)
	return discoveryDocs{apis: append(a, '\n'), group: append(b, '\n')}
}

// serve answers /apis and /apis/<Group> (with or without a trailing slash)
// and reports whether the path was one of them. Only GET and HEAD are
// allowed (405 Status otherwise). The answer is always legacy JSON: like a
// backend without aggregated discovery, the aggregator falls back to the
// per-version APIResourceLists.
func (d discoveryDocs) serve(w http.ResponseWriter, r *http.Request) bool {
	var body []byte
	switch r.URL.Path {
	case "/apis", "/apis/":
		body = d.apis
	case "/apis/" + Group, "/apis/" + Group + "/":
		body = d.group
	default:
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		negotiation.WriteStatus(w, r, meta.NewStatusError(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource"))
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
	return true
}
