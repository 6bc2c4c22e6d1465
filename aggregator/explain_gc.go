package aggregator

import (
	"fmt"
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
	if st == nil {
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
