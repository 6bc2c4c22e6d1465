package aggregator

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// gcAdvice says what would let the garbage collector go on: the
// APIServices of the group versions whose discovery fails, and the
// objects it retries.
func gcAdvice(st *GCStall) []string {
	if st == nil {
		return nil
	}
	var out []string
	for _, p := range st.Pending {
		out = append(out, fmt.Sprintf("the garbage collector cannot process %s: %s", p.Object, p.Error))
	}
	if gvs := st.failedGroupVersions(); len(gvs) > 0 {
		var svcs []string
		for _, gv := range gvs {
			group, version, _ := strings.Cut(gv, "/")
			svcs = append(svcs, version+"."+group)
		}
		out = append(out, fmt.Sprintf("discovery of %s fails, so owners of those kinds cannot be looked up: make APIService %s Available again (aggsim explain apiservice <name>); the collector retries about every second", strings.Join(gvs, ", "), strings.Join(svcs, ", ")))
	}
	return out
}

// failedGroupVersions returns the failing group versions, sorted.
func (st *GCStall) failedGroupVersions() []string {
	gvs := make([]string, 0, len(st.FailedGroupVersions))
	for gv := range st.FailedGroupVersions {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	return gvs
}

// writeGCStall writes the garbage collector's part of a namespace
// explanation.
func writeGCStall(p func(string, ...any), st *GCStall) {
	if st == nil || (len(st.FailedGroupVersions) == 0 && len(st.Pending) == 0) {
		return
	}
	p("Garbage collector:\n")
	for _, gv := range st.failedGroupVersions() {
		p("  discovery fails: %s (%s)\n", gv, st.FailedGroupVersions[gv])
	}
	for _, x := range st.Pending {
		p("  waiting: %s: %s\n", x.Object, x.Error)
	}
}

// DebugGarbageCollectorPath explains what stalls the garbage collector
// (ExplainGarbageCollector).
const DebugGarbageCollectorPath = "/debug/aggsim/garbagecollector"

// GCExplanation is aggsim's account of its garbage collector: whether it
// runs, how many resources it monitors and objects it tracks, the group
// versions whose discovery fails and the objects it retries, and what would
// let it go on. Upstream only logs "failed to discover some groups" and
// "error syncing item".
type GCExplanation struct {
	// Enabled is false with --controllers=-garbagecollector.
	Enabled bool `json:"enabled"`
	// Monitored are the resources watched ("<resource>.<group>"), sorted.
	Monitored []string `json:"monitored,omitempty"`
	// Objects is how many objects the dependency graph holds.
	Objects int `json:"objects"`
	GCStall
	// Advice says what would unblock it, one item a line.
	Advice []string `json:"advice"`
}

// ExplainGarbageCollector explains the garbage collector now.
func (s *Server) ExplainGarbageCollector() *GCExplanation {
	e := &GCExplanation{Enabled: s.gc != nil}
	if s.gc == nil {
		e.Advice = []string{"the garbage collector is off (--controllers without garbagecollector), as with a bare kube-apiserver: objects deleted with propagationPolicy Orphan or Foreground keep their orphan or foregroundDeletion finalizer, and dependents of deleted owners stay"}
		return e
	}
	e.GCStall = s.gc.stall("")
	s.gc.mu.Lock()
	for gr := range s.gc.monitors {
		e.Monitored = append(e.Monitored, gr)
	}
	e.Objects = len(s.gc.nodes)
	s.gc.mu.Unlock()
	sort.Strings(e.Monitored)
	e.Advice = gcAdvice(&e.GCStall)
	if len(e.Advice) == 0 {
		e.Advice = []string{"nothing stalls the garbage collector"}
	}
	return e
}

// WriteText writes e for a human.
func (e *GCExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	state := "on"
	if !e.Enabled {
		state = "off (--controllers=-garbagecollector)"
	}
	p("Garbage collector: %s\n", state)
	if e.Enabled {
		p("Monitored:    %d resources, %d objects in the graph\n", len(e.Monitored), e.Objects)
	}
	writeGCStall(p, &e.GCStall)
	p("To unblock:\n")
	for _, a := range e.Advice {
		p("  - %s\n", a)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// serveDebugGarbageCollector answers DebugGarbageCollectorPath: text/plain,
// or JSON when Accept names application/json.
func (s *Server) serveDebugGarbageCollector(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	e := s.ExplainGarbageCollector()
	writeExplanation(w, r, e, e.WriteText)
}
