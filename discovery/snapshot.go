package discovery

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/negotiation"
)

// snapshot is one immutable generation of every document. It is built by
// rebuildLocked and read without locks through Manager.snap.
type snapshot struct {
	// apis is the legacy APIGroupList of /apis.
	apis *document
	// groups holds the APIGroup document of every /apis/<group>.
	groups map[string]*document
	// apisAgg and apiAgg are aggregated /apis and /api.
	apisAgg *aggDoc
	apiAgg  *aggDoc
}

// document is the ready bytes of one JSON document. The compact form is
// built eagerly; the pretty and YAML forms, which only curl-like clients and
// YAML clients ask for, are derived from it on first use. A document must
// not be copied.
type document struct {
	// compact is the json.Encoder form: compact JSON plus a newline.
	compact []byte

	prettyOnce sync.Once
	pretty     []byte // json.MarshalIndent form: 2-space indent, no newline
	yamlOnce   sync.Once
	yaml       []byte
	protoOnce  sync.Once
	proto      []byte // protobuf ("k8s\x00" envelope); nil when it cannot be encoded
}

// forMedia returns the bytes for the negotiated encoding and their
// Content-Type. Protobuf comes from the registered encoder
// (negotiation.EncodeProtobufJSON); should it fail, the JSON is answered.
func (d *document) forMedia(kind mediaKind, pretty bool) ([]byte, string) {
	if kind == mediaProtobuf {
		d.protoOnce.Do(func() { d.proto, _ = negotiation.EncodeProtobufJSON(d.compact) })
		if d.proto != nil {
			return d.proto, negotiation.MediaProtobuf
		}
		return d.compact, contentTypeJSON
	}
	return d.jsonOrYAML(kind, pretty), contentTypeOf(kind)
}

// jsonOrYAML returns the JSON (compact or pretty) or YAML bytes.
func (d *document) jsonOrYAML(kind mediaKind, pretty bool) []byte {
	switch {
	case kind == mediaYAML:
		d.yamlOnce.Do(func() {
			y, err := yaml.JSONToYAML(d.compact)
			if err != nil {
				// Unreachable: compact is JSON this package encoded.
				y = d.compact
			}
			d.yaml = y
		})
		return d.yaml
	case pretty:
		d.prettyOnce.Do(func() {
			var buf bytes.Buffer
			if err := json.Indent(&buf, bytes.TrimSuffix(d.compact, []byte("\n")), "", "  "); err != nil {
				d.pretty = d.compact
				return
			}
			d.pretty = buf.Bytes()
		})
		return d.pretty
	default:
		return d.compact
	}
}

// groupState is one group of /apis while a rebuild runs.
type groupState struct {
	name string
	// maxGPM is the highest groupPriorityMinimum of the group's APIServices.
	maxGPM int32
	// legacyTieName is the smallest APIService name among those at maxGPM:
	// legacy /apis breaks ties between groups on it.
	legacyTieName string
	// versions are the group's APIServices, in discovery order.
	versions []*APIService
}

// aggVersion is one version of aggregated discovery while a rebuild runs.
type aggVersion struct {
	version string
	result  *gvResult
}

// aggGroup is one group of aggregated discovery while a rebuild runs.
type aggGroup struct {
	name     string
	maxGPM   int32
	versions []aggVersion
}

// rebuildLocked builds every document from the current APIServices and
// results and swaps the new snapshot in. The caller holds m.mu.
func (m *Manager) rebuildLocked() {
	start := time.Now()
	byName := make(map[string]*groupState, len(m.services))
	groups := make([]*groupState, 0, len(m.services))
	for _, s := range m.services {
		// The core "v1." APIService is never listed in /apis, and the
		// aggregator's own group is listed once, first, from the constant.
		if s.Group == "" || s.Group == apiRegistrationGroup {
			continue
		}
		g := byName[s.Group]
		switch {
		case g == nil:
			g = &groupState{name: s.Group, maxGPM: s.GroupPriorityMinimum, legacyTieName: s.Name}
			byName[s.Group] = g
			groups = append(groups, g)
		case s.GroupPriorityMinimum > g.maxGPM:
			g.maxGPM, g.legacyTieName = s.GroupPriorityMinimum, s.Name
		case s.GroupPriorityMinimum == g.maxGPM && s.Name < g.legacyTieName:
			g.legacyTieName = s.Name
		}
		g.versions = append(g.versions, s)
	}
	for _, g := range groups {
		if len(g.versions) > 1 {
			slices.SortFunc(g.versions, compareVersions)
		}
	}
	slices.SortFunc(groups, compareLegacyGroups)

	snap := &snapshot{}
	snap.apis, snap.groups = encodeLegacy(groups)

	agg := make([]*aggGroup, 0, len(groups)+1)
	agg = append(agg, &aggGroup{
		name:     apiRegistrationGroup,
		maxGPM:   apiRegistrationGPM,
		versions: []aggVersion{{version: apiRegistrationVersion, result: &gvResult{resources: m.apiregResources, freshness: FreshnessCurrent}}},
	})
	start2 := len(agg)
	for _, g := range groups {
		var ag *aggGroup
		for _, s := range g.versions {
			r := m.results[s.Name]
			if r == nil {
				continue
			}
			if ag == nil {
				ag = &aggGroup{name: g.name, maxGPM: s.GroupPriorityMinimum}
			} else if s.GroupPriorityMinimum > ag.maxGPM {
				ag.maxGPM = s.GroupPriorityMinimum
			}
			ag.versions = append(ag.versions, aggVersion{version: s.Version, result: r})
		}
		if ag != nil {
			agg = append(agg, ag)
		}
	}
	// apiregistration.k8s.io (20001) outranks every APIService (validation
	// caps groupPriorityMinimum at 20000), so only the rest needs sorting.
	slices.SortFunc(agg[start2:], compareAggregatedGroups)
	snap.apisAgg = encodeAggregated(agg)
	snap.apiAgg = encodeAggregated([]*aggGroup{{
		versions: []aggVersion{{version: "v1", result: &gvResult{resources: m.coreResources, freshness: FreshnessCurrent}}},
	}})
	m.snap.Store(snap)
	if m.opts.OnRebuild != nil {
		m.opts.OnRebuild(time.Since(start))
	}
}
