package aggregator

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DebugCRDsPath lists the CustomResourceDefinitions with their versions,
// conditions and automanaged APIServices (CRDs), for the inspector's CRD
// panel and tools.
const DebugCRDsPath = "/debug/aggsim/crds"

// CRDOverview is one CustomResourceDefinition as DebugCRDsPath lists it:
// what it serves and what its conditions say.
type CRDOverview struct {
	Name           string                                            `json:"name"`
	Group          string                                            `json:"group"`
	Kind           string                                            `json:"kind"`
	Scope          string                                            `json:"scope"`
	Versions       []CRDVersionOverview                              `json:"versions"`
	StoredVersions []string                                          `json:"storedVersions,omitempty"`
	Conversion     string                                            `json:"conversion,omitempty"` // None or Webhook
	Conditions     []apiextensions.CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	Terminating    bool                                              `json:"terminating,omitempty"`
}

// CRDVersionOverview is one version of a CRD: its flags and the
// APIService that routes it (v1.restaurant.example.com).
type CRDVersionOverview struct {
	Name       string `json:"name"`
	Served     bool   `json:"served"`
	Storage    bool   `json:"storage"`
	Deprecated bool   `json:"deprecated,omitempty"`
	APIService string `json:"apiService"`
}

// CRDs lists the CustomResourceDefinitions by name. Errors: the store's.
func (s *Server) CRDs(ctx context.Context) ([]CRDOverview, error) {
	objs, _, _, err := s.api.Store(crdResource).List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]CRDOverview, 0, len(objs))
	for _, o := range objs {
		crd := o.(*apiextensions.CustomResourceDefinition)
		c := CRDOverview{Name: crd.Name, Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind, Scope: string(crd.Spec.Scope),
			StoredVersions: crd.Status.StoredVersions, Conditions: crd.Status.Conditions, Terminating: crd.DeletionTimestamp != nil}
		if crd.Spec.Conversion != nil {
			c.Conversion = string(crd.Spec.Conversion.Strategy)
		}
		for _, v := range crd.Spec.Versions {
			c.Versions = append(c.Versions, CRDVersionOverview{Name: v.Name, Served: v.Served, Storage: v.Storage,
				Deprecated: v.Deprecated, APIService: v.Name + "." + crd.Spec.Group})
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b CRDOverview) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// installCRDRoutes registers DebugCRDsPath and DebugCRDsPath/<name>
// (explain_crd.go).
func (s *Server) installCRDRoutes() {
	s.mux.UnlistedHandlePrefix(DebugCRDsPath+"/", http.HandlerFunc(s.serveDebugCRD))
	s.mux.UnlistedHandle(DebugCRDsPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		list, err := s.CRDs(r.Context())
		if err != nil {
			negotiation.WriteStatus(w, r, err)
			return
		}
		writeDebugJSON(w, list)
	}))
}
