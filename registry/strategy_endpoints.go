package registry

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// EndpointsStrategy is the Strategy of core/v1 endpoints
// (kubernetes/pkg/registry/core/endpoint/strategy.go). aggsim's service
// resolution reads them; loopback addresses are accepted (see
// ValidateEndpoints). Subsets are stored as sent, not repacked. Upstream
// answers writes with the warning `v1 Endpoints is deprecated in v1.33+;
// use discovery.k8s.io/v1 EndpointSlice` (the REST layer's business).
// The zero value is ready to use.
type EndpointsStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var _ Strategy = EndpointsStrategy{}

// Info describes endpoints as /api/v1 discovery does (short name ep).
func (EndpointsStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "Endpoints", ListKind: "EndpointsList",
		Resource: "endpoints", Singular: "endpoints",
		ShortNames: []string{"ep"},
		Namespaced: true,
		Verbs:      []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	}
}

// New returns an empty *Endpoints.
func (EndpointsStrategy) New() meta.Object { return &core.Endpoints{} }

// PrepareForCreate applies defaults.
func (EndpointsStrategy) PrepareForCreate(obj meta.Object) {
	core.DefaultEndpoints(obj.(*core.Endpoints))
}

// PrepareForUpdate applies defaults; Endpoints have no spec, so
// generation is kept.
func (EndpointsStrategy) PrepareForUpdate(obj, old meta.Object) {
	core.DefaultEndpoints(obj.(*core.Endpoints))
}

// PrepareForStatusUpdate is never called: Endpoints have no /status.
func (EndpointsStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Default applies core/v1 defaulting (Defaulter).
func (EndpointsStrategy) Default(obj meta.Object) { core.DefaultEndpoints(obj.(*core.Endpoints)) }

// Validate runs ValidateEndpoints.
func (EndpointsStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateEndpoints(obj.(*core.Endpoints))
}

// ValidateUpdate runs ValidateEndpointsUpdate.
func (EndpointsStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateEndpointsUpdate(obj.(*core.Endpoints), old.(*core.Endpoints))
}

// Canonicalize does nothing for Endpoints.
func (EndpointsStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME, ENDPOINTS, AGE.
func (EndpointsStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Endpoints", "Endpoints is the list of endpoints in the service."),
		ageColumn(),
	}
}

// TableRow returns name, up to three ready "ip:port" entries (then
// " + N more..."), or "<none>", and age.
func (s EndpointsStrategy) TableRow(obj meta.Object) []any {
	e := obj.(*core.Endpoints)
	return []any{e.Name, formatEndpoints(e), meta.TableAge(e.CreationTimestamp, nowOr(s.Now))}
}

func formatEndpoints(e *core.Endpoints) string {
	const max = 3
	var list []string
	more := false
	count := 0
	add := func(s string) {
		if len(list) == max {
			more = true
		}
		if !more {
			list = append(list, s)
		}
		count++
	}
	for _, ss := range e.Subsets {
		if len(ss.Ports) == 0 {
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	out := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", out, count-max)
	}
	if out == "" {
		return "<none>"
	}
	return out
}

// AllowCreateOnUpdate is true: PUT of missing Endpoints creates them.
func (EndpointsStrategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is true for Endpoints.
func (EndpointsStrategy) AllowUnconditionalUpdate() bool { return true }
