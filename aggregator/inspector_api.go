package aggregator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// The inspector's JSON (issue 18), aggsim's own paths: the web page
// (aggregator/inspectorpage) is a view of the same data.
const (
	// DebugRequestsPath lists the recorded requests, oldest first;
	// ?user=, ?groupVersion=, ?code= (403 or 4xx) and ?after=<id> filter.
	DebugRequestsPath = "/debug/aggsim/requests"
	// DebugRequestEventsPath streams them as server-sent events (event
	// "request", data one InspectedRequest, id its ID): first the recorded
	// ones the filters match, then each new one as it is recorded.
	DebugRequestEventsPath = "/debug/aggsim/requests/events"
	// DebugDiscoveryOrderPath lists the APIServices in the order /apis
	// lists them, each with why it stands there.
	DebugDiscoveryOrderPath = "/debug/aggsim/discovery-order"
	// DebugDiscoveryPath shows the discovery documents: legacy and
	// aggregated /apis with their ETags, and per group its documents.
	DebugDiscoveryPath = "/debug/aggsim/discovery"
	// DebugNamespacesPath (without a name) lists the namespaces that are
	// Terminating with the namespace controller's conditions
	// (TerminatingNamespaces); DebugNamespacesPath/<name> explains one.
)

// TerminatingNamespace is a namespace being deleted, as
// DebugNamespacesPath lists it.
type TerminatingNamespace struct {
	Name              string                    `json:"name"`
	DeletionTimestamp *meta.Time                `json:"deletionTimestamp,omitempty"`
	Finalizers        []string                  `json:"finalizers,omitempty"`
	Conditions        []core.NamespaceCondition `json:"conditions,omitempty"`
}

// TerminatingNamespaces lists the namespaces in phase Terminating, by
// name, with their spec finalizers and conditions (what blocks each is
// ExplainNamespace's to say). Errors: the store's.
func (s *Server) TerminatingNamespaces(ctx context.Context) ([]TerminatingNamespace, error) {
	objs, _, _, err := s.api.Store(meta.GroupResource{Resource: "namespaces"}).List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := []TerminatingNamespace{}
	for _, o := range objs {
		ns := o.(*core.Namespace)
		if ns.Status.Phase != core.NamespaceTerminating {
			continue
		}
		out = append(out, TerminatingNamespace{Name: ns.Name, DeletionTimestamp: ns.DeletionTimestamp,
			Finalizers: ns.Spec.Finalizers, Conditions: ns.Status.Conditions})
	}
	slices.SortFunc(out, func(a, b TerminatingNamespace) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Inspector returns the request recorder; nil when
// Options.InspectorRingSize is 0.
func (s *Server) Inspector() *Inspector { return s.inspector }

// OrderedVersion is one APIService of a group in discovery order.
type OrderedVersion struct {
	Name                 string `json:"name"`
	Version              string `json:"version"`
	GroupPriorityMinimum int32  `json:"groupPriorityMinimum"`
	VersionPriority      int32  `json:"versionPriority"`
	// Service is "Local" or "<namespace>/<name>:<port>".
	Service string `json:"service"`
	// Available is the Available condition's status, "Unknown" without one.
	Available          string     `json:"available"`
	Reason             string     `json:"reason,omitempty"`
	Message            string     `json:"message,omitempty"`
	LastTransitionTime *meta.Time `json:"lastTransitionTime,omitempty"`
	// Why says why this version follows the previous one of its group
	// (the first: why it is the preferred version).
	Why string `json:"why"`
}

// OrderedGroup is one group as /apis lists it.
type OrderedGroup struct {
	// Name is the group ("" for the core group, served at /api).
	Name string `json:"name"`
	// Why says why the group follows the previous one.
	Why      string           `json:"why"`
	Versions []OrderedVersion `json:"versions"`
}

// DiscoveryOrder is the APIServices in the order legacy discovery lists
// them, with upstream's ordering rule spelled out for each neighbouring
// pair (kube-aggregator's apisHandler: groups by their highest
// groupPriorityMinimum, then by the name of the first APIService at that
// priority; versions by versionPriority, then Kubernetes version order).
type DiscoveryOrder struct {
	Groups []OrderedGroup `json:"groups"`
}

// DiscoveryOrder lists every APIService in discovery order. The order is
// read from the /apis document aggsim serves, so it shows what clients
// see; APIServices /apis does not list (the core group) come first.
// Errors: the store's.
func (s *Server) DiscoveryOrder(ctx context.Context) (*DiscoveryOrder, error) {
	objs, _, _, err := s.api.Store(apiServicesResource).List(ctx, "", registry.ListOptions{})
	if err != nil {
		return nil, err
	}
	byGV := map[string]*apiregistration.APIService{}
	maxGPM := map[string]int32{}
	tieName := map[string]string{}
	for _, o := range objs {
		a := o.(*apiregistration.APIService)
		byGV[a.Spec.Group+"/"+a.Spec.Version] = a
		g := a.Spec.Group
		if p, ok := maxGPM[g]; !ok || a.Spec.GroupPriorityMinimum > p || (a.Spec.GroupPriorityMinimum == p && a.Name < tieName[g]) {
			maxGPM[g], tieName[g] = a.Spec.GroupPriorityMinimum, a.Name
		}
	}
	var list struct {
		Groups []struct {
			Name     string `json:"name"`
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
		} `json:"groups"`
	}
	body, _ := s.serveDiscovery("/apis", "application/json")
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decode /apis: %w", err)
	}
	out := &DiscoveryOrder{}
	if a := byGV["/v1"]; a != nil {
		out.Groups = append(out.Groups, OrderedGroup{Name: "", Why: "the core group is served at /api, not listed in /apis",
			Versions: []OrderedVersion{orderedVersion(a, "the only version of the core group")}})
	}
	prev := ""
	for i, g := range list.Groups {
		og := OrderedGroup{Name: g.Name}
		switch {
		case g.Name == apiregistration.GroupAPIRegistration && i == 0:
			og.Why = "apiregistration.k8s.io is always listed first (the aggregator's own group)"
		case prev == "" || prev == apiregistration.GroupAPIRegistration && maxGPM[prev] == 0:
			og.Why = fmt.Sprintf("the highest groupPriorityMinimum: %d", maxGPM[g.Name])
		case maxGPM[prev] > maxGPM[g.Name]:
			og.Why = fmt.Sprintf("groupPriorityMinimum %d is lower than %s's %d (highest first)", maxGPM[g.Name], prev, maxGPM[prev])
		case maxGPM[prev] == maxGPM[g.Name]:
			og.Why = fmt.Sprintf("same groupPriorityMinimum as %s (%d): APIService %s sorts after %s by name", prev, maxGPM[g.Name], tieName[g.Name], tieName[prev])
		default:
			og.Why = fmt.Sprintf("groupPriorityMinimum %d is higher than %s's %d: not upstream's order", maxGPM[g.Name], prev, maxGPM[prev])
		}
		var pv *apiregistration.APIService
		for j, v := range g.Versions {
			a := byGV[g.Name+"/"+v.Version]
			if a == nil { // apiregistration.k8s.io/v1 has no APIService
				og.Versions = append(og.Versions, OrderedVersion{Name: v.Version + "." + g.Name, Version: v.Version, Service: "Local", Available: "True",
					Why: "served by the aggregator itself (no APIService)"})
				continue
			}
			why := ""
			switch {
			case j == 0:
				why = fmt.Sprintf("preferred version: the highest versionPriority (%d)", a.Spec.VersionPriority)
				if len(g.Versions) > 1 {
					if n := byGV[g.Name+"/"+g.Versions[1].Version]; n != nil && n.Spec.VersionPriority == a.Spec.VersionPriority {
						why = fmt.Sprintf("preferred version: versionPriority %d like %s, and %s is the later Kubernetes version", a.Spec.VersionPriority, n.Spec.Version, a.Spec.Version)
					}
				}
			case pv != nil && pv.Spec.VersionPriority > a.Spec.VersionPriority:
				why = fmt.Sprintf("versionPriority %d is lower than %s's %d (highest first)", a.Spec.VersionPriority, pv.Spec.Version, pv.Spec.VersionPriority)
			case pv != nil && pv.Spec.VersionPriority == a.Spec.VersionPriority:
				why = fmt.Sprintf("same versionPriority as %s (%d): %s is an earlier Kubernetes version (GA, then beta, then alpha; higher numbers first)", pv.Spec.Version, a.Spec.VersionPriority, a.Spec.Version)
			}
			og.Versions = append(og.Versions, orderedVersion(a, why))
			pv = a
		}
		out.Groups = append(out.Groups, og)
		prev = g.Name
	}
	return out, nil
}

// orderedVersion describes a with why.
func orderedVersion(a *apiregistration.APIService, why string) OrderedVersion {
	v := OrderedVersion{Name: a.Name, Version: a.Spec.Version, GroupPriorityMinimum: a.Spec.GroupPriorityMinimum,
		VersionPriority: a.Spec.VersionPriority, Service: "Local", Available: "Unknown", Why: why}
	if ref := a.Spec.Service; ref != nil {
		port := int32(443)
		if ref.Port != nil {
			port = *ref.Port
		}
		v.Service = fmt.Sprintf("%s/%s:%d", ref.Namespace, ref.Name, port)
	}
	if c := a.GetCondition(apiregistration.Available); c != nil {
		v.Available, v.Reason, v.Message = string(c.Status), c.Reason, c.Message
		t := c.LastTransitionTime
		v.LastTransitionTime = &t
	}
	return v
}

// DiscoveryDocument is one discovery answer as served.
type DiscoveryDocument struct {
	Path        string          `json:"path"`
	ContentType string          `json:"contentType"`
	ETag        string          `json:"etag,omitempty"`
	Body        json.RawMessage `json:"body"`
}

// GroupDiscovery is one group's part of discovery.
type GroupDiscovery struct {
	Name string `json:"name"`
	// Legacy is the /apis/<group> APIGroup document.
	Legacy json.RawMessage `json:"legacy"`
	// Aggregated is the group's entry in aggregated /apis.
	Aggregated json.RawMessage `json:"aggregated,omitempty"`
	// EntryHash is the first 16 hex digits of the SHA-256 of Aggregated:
	// the group's share of the aggregated document's ETag (legacy group
	// documents carry no ETag, as upstream).
	EntryHash string `json:"entryHash,omitempty"`
	// Freshness is each version's freshness in aggregated discovery
	// (Current, or Stale when the backend's document could not be
	// refreshed), by version.
	Freshness map[string]string `json:"freshness,omitempty"`
}

// DiscoveryDocuments is legacy and aggregated /apis side by side.
type DiscoveryDocuments struct {
	Time       time.Time         `json:"time"`
	Legacy     DiscoveryDocument `json:"legacy"`
	Aggregated DiscoveryDocument `json:"aggregated"`
	Groups     []GroupDiscovery  `json:"groups"`
}

// aggregatedAccept is what kubectl 1.30+ sends for aggregated discovery.
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// DiscoveryDocuments returns the discovery documents as served now, in
// /apis order.
func (s *Server) DiscoveryDocuments() *DiscoveryDocuments {
	d := &DiscoveryDocuments{Time: s.now()}
	body, h := s.serveDiscovery("/apis", "application/json")
	d.Legacy = DiscoveryDocument{Path: "/apis", ContentType: h.Get("Content-Type"), ETag: h.Get("Etag"), Body: body}
	body, h = s.serveDiscovery("/apis", aggregatedAccept)
	d.Aggregated = DiscoveryDocument{Path: "/apis", ContentType: h.Get("Content-Type"), ETag: h.Get("Etag"), Body: body}
	var legacy struct {
		Groups []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	_ = json.Unmarshal(d.Legacy.Body, &legacy)
	var agg struct {
		Items []json.RawMessage `json:"items"`
	}
	_ = json.Unmarshal(d.Aggregated.Body, &agg)
	entries := map[string]json.RawMessage{}
	for _, it := range agg.Items {
		var e struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(it, &e) == nil {
			entries[e.Metadata.Name] = it
		}
	}
	for _, g := range legacy.Groups {
		gd := GroupDiscovery{Name: g.Name}
		gd.Legacy, _ = s.serveDiscovery("/apis/"+g.Name, "application/json")
		if e, ok := entries[g.Name]; ok {
			gd.Aggregated = e
			sum := sha256.Sum256(e)
			gd.EntryHash = hex.EncodeToString(sum[:8])
			var vs struct {
				Versions []struct {
					Version   string `json:"version"`
					Freshness string `json:"freshness"`
				} `json:"versions"`
			}
			if json.Unmarshal(e, &vs) == nil {
				gd.Freshness = map[string]string{}
				for _, v := range vs.Versions {
					f := v.Freshness
					if f == "" {
						f = "Current"
					}
					gd.Freshness[v.Version] = f
				}
			}
		}
		d.Groups = append(d.Groups, gd)
	}
	return d
}

// serveDiscovery answers a GET of path with Accept accept in-process, from
// the discovery handler the router serves it with.
func (s *Server) serveDiscovery(path, accept string) ([]byte, http.Header) {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Accept", accept)
	w := httptest.NewRecorder()
	if path == "/apis" {
		s.discovery.ServeAPIs(w, r)
	} else {
		s.discovery.ServeGroup(w, r, strings.TrimPrefix(path, "/apis/"))
	}
	return w.Body.Bytes(), w.Header()
}

// installInspectorRoutes registers the inspector's JSON paths (the
// request paths only when the inspector records).
func (s *Server) installInspectorRoutes() {
	s.mux.UnlistedHandle(DebugDiscoveryOrderPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o, err := s.DiscoveryOrder(r.Context())
		if err != nil {
			negotiation.WriteStatus(w, r, err)
			return
		}
		writeDebugJSON(w, o)
	}))
	s.mux.UnlistedHandle(DebugDiscoveryPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeDebugJSON(w, s.DiscoveryDocuments())
	}))
	s.mux.UnlistedHandle(DebugNamespacesPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		list, err := s.TerminatingNamespaces(r.Context())
		if err != nil {
			negotiation.WriteStatus(w, r, err)
			return
		}
		writeDebugJSON(w, list)
	}))
	s.installCRDRoutes() // inspector_crds.go
	if s.inspector == nil {
		return
	}
	s.mux.UnlistedHandle(DebugRequestsPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeDebugJSON(w, struct {
			Size  int                 `json:"size"`
			Items []*InspectedRequest `json:"items"`
		}{s.inspector.Size(), s.inspector.Requests(ParseRequestFilter(r.URL.Query()))})
	}))
	s.mux.UnlistedHandle(DebugRequestEventsPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ServeRequestEvents(w, r, s.inspector, func(rec *InspectedRequest) ([]byte, error) { return json.Marshal(rec) })
	}))
}

// writeDebugJSON writes v as indented JSON.
func writeDebugJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(b, '\n'))
}

// sseHeartbeat is how often an idle event stream sends a comment, so that
// proxies and browsers keep it open.
const sseHeartbeat = 15 * time.Second

// ServeRequestEvents streams the requests in (filtered by r's query, see
// ParseRequestFilter) as server-sent events of type "request" until the
// client goes away: first those recorded, then each new one. render turns
// a request into the event's data (JSON for tools, HTML for the page);
// newlines in it are sent as multi-line data.
func ServeRequestEvents(w http.ResponseWriter, r *http.Request, in *Inspector, render func(*InspectedRequest) ([]byte, error)) {
	f := ParseRequestFilter(r.URL.Query())
	if id := r.Header.Get("Last-Event-ID"); id != "" { // a reconnecting EventSource
		f.After = ParseRequestFilter(map[string][]string{"after": {id}}).After
	}
	ch, cancel := in.Subscribe()
	defer cancel()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(rec *InspectedRequest) bool {
		if !f.Match(rec) {
			return true
		}
		f.After = rec.ID
		data, err := render(rec)
		if err != nil {
			return false
		}
		var b strings.Builder
		fmt.Fprintf(&b, "id: %d\nevent: request\n", rec.ID)
		for _, line := range strings.Split(string(data), "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
		if _, err := w.Write([]byte(b.String())); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for _, rec := range in.Requests(f) {
		if !send(rec) {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(sseHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case rec := <-ch:
			if !send(rec) {
				return
			}
		case <-tick.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}
