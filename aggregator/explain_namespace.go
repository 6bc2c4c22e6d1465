package aggregator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DebugNamespacesPath + "/<name>" explains why a namespace is (still)
// there (ExplainNamespace).
const DebugNamespacesPath = "/debug/aggsim/namespaces"

// NamespaceBlocker is an APIService whose unavailability makes discovery
// incomplete, so the namespace controller cannot finish.
type NamespaceBlocker struct {
	// APIService is its name, GroupVersion "<group>/<version>".
	APIService   string `json:"apiService"`
	GroupVersion string `json:"groupVersion"`
	// Explanation is the APIService's own explanation (ExplainAPIService);
	// nil when it could not be made (Error says why).
	Explanation *Explanation `json:"explanation,omitempty"`
	Error       string       `json:"error,omitempty"`
}

// NamespaceContent is what remains of one resource in the namespace.
type NamespaceContent struct {
	// Resource is "<resource>.<group>" as the NamespaceContentRemaining
	// condition names it (core group: "configmaps.").
	Resource string `json:"resource"`
	Count    int    `json:"count"`
	// Finalizers counts the objects holding each finalizer.
	Finalizers map[string]int `json:"finalizers,omitempty"`
	// Error is why the resource could not be listed.
	Error string `json:"error,omitempty"`
}

// NamespaceExplanation is aggsim's account of a namespace: its phase and
// finalizers, the namespace controller's conditions, the APIServices that
// block its deletion and why they are unavailable, the content that
// remains per resource, and what would unblock it. Upstream has no such
// thing: a user reads the conditions and guesses.
type NamespaceExplanation struct {
	Name              string                    `json:"name"`
	Phase             string                    `json:"phase"`
	DeletionTimestamp *meta.Time                `json:"deletionTimestamp,omitempty"`
	SpecFinalizers    []string                  `json:"specFinalizers,omitempty"`
	Finalizers        []string                  `json:"finalizers,omitempty"`
	Conditions        []core.NamespaceCondition `json:"conditions,omitempty"`
	// ControllerEnabled is false with --controllers=-namespace.
	ControllerEnabled bool               `json:"controllerEnabled"`
	Blockers          []NamespaceBlocker `json:"blockers,omitempty"`
	Content           []NamespaceContent `json:"content,omitempty"`
	// DiscoveryError is the discovery failure the controller sees now.
	DiscoveryError string `json:"discoveryError,omitempty"`
	// GarbageCollector is what stalls the garbage collector for objects in
	// the namespace (failing group versions, objects it retries); nil when
	// nothing does or the collector is off.
	GarbageCollector *GCStall `json:"garbageCollector,omitempty"`
	// Advice is what would unblock the namespace, one item a line.
	Advice []string `json:"advice"`
}

// ExplainNamespace explains namespace name now: it runs the namespace
// controller's discovery and lists what remains (as the controller, read
// only), and explains each unavailable APIService that makes discovery
// fail (which probes it, up to about 10 s). Errors: a 404 StatusError when
// the namespace does not exist, or a store error.
func (s *Server) ExplainNamespace(ctx context.Context, name string) (*NamespaceExplanation, error) {
	obj, err := s.api.Store(meta.GroupResource{Resource: "namespaces"}).Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	ns := obj.(*core.Namespace)
	e := &NamespaceExplanation{Name: ns.Name, Phase: ns.Status.Phase, DeletionTimestamp: ns.DeletionTimestamp,
		SpecFinalizers: ns.Spec.Finalizers, Finalizers: ns.Finalizers, Conditions: ns.Status.Conditions,
		ControllerEnabled: s.nsController != nil}
	c := s.nsController
	if c == nil { // read-only use of the controller's discovery and lists
		c = &namespaceController{client: namespaceControllerClient(s.handler), logger: s.logger, now: s.now, queue: newNSQueue()}
	}
	resources, derr := c.discoverNamespacedResources(ctx)
	if derr != nil {
		e.DiscoveryError = derr.Error()
	}
	if df, ok := derr.(discoveryFailedError); ok {
		e.Blockers = s.namespaceBlockers(ctx, df)
	}
	for _, r := range resources {
		items, err := c.list(ctx, r.path(name))
		nc := NamespaceContent{Resource: r.resource + "." + r.group, Count: len(items)}
		if err != nil {
			nc.Error = err.Error()
		}
		for _, it := range items {
			for _, f := range it.Metadata.Finalizers {
				if nc.Finalizers == nil {
					nc.Finalizers = map[string]int{}
				}
				nc.Finalizers[f]++
			}
		}
		if nc.Count > 0 || nc.Error != "" {
			e.Content = append(e.Content, nc)
		}
	}
	sort.Slice(e.Content, func(i, j int) bool { return e.Content[i].Resource < e.Content[j].Resource })
	if s.gc != nil {
		if st := s.gc.stall(name); len(st.Pending) > 0 {
			e.GarbageCollector = &st
		}
	}
	e.Advice = namespaceAdvice(e)
	return e, nil
}

// namespaceControllerIdentity is the controller's user.
var namespaceControllerIdentity = authentication.UserInfo{Username: NamespaceControllerUser,
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}

// namespaceBlockers maps each failing group/version to its APIService
// and explains it.
func (s *Server) namespaceBlockers(ctx context.Context, df discoveryFailedError) []NamespaceBlocker {
	gvs := make([]string, 0, len(df))
	for gv := range df {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	var out []NamespaceBlocker
	for _, gv := range gvs {
		group, version, ok := strings.Cut(gv, "/")
		if !ok {
			group, version = "", gv
		}
		b := NamespaceBlocker{APIService: version + "." + group, GroupVersion: gv}
		if group == "" {
			b.APIService = version
		}
		ex, err := s.ExplainAPIService(ctx, b.APIService)
		if err != nil {
			b.Error = err.Error()
		} else {
			b.Explanation = ex
		}
		out = append(out, b)
	}
	return out
}

// namespaceAdvice says what would let the namespace go.
func namespaceAdvice(e *NamespaceExplanation) []string {
	var out []string
	switch {
	case e.DeletionTimestamp == nil:
		if gc := gcAdvice(e.GarbageCollector); len(gc) > 0 { // explain_gc.go
			return gc
		}
		return []string{"the namespace is Active: nothing to unblock"}
	case !e.ControllerEnabled:
		out = append(out, "the namespace controller is off (--controllers without namespace), as with a bare kube-apiserver: nothing deletes the content or removes the kubernetes finalizer; delete the content yourself, then PUT /api/v1/namespaces/"+e.Name+"/finalize with spec.finalizers emptied")
	}
	for _, b := range e.Blockers {
		why := b.Error
		if x := b.Explanation; x != nil {
			why = conditionSummary(&x.Verdict) + ": " + x.Verdict.Message
			out = append(out, fmt.Sprintf("APIService %s is unavailable (%s): discovery of %s fails, so the controller cannot tell what the namespace still holds there. Fix it: %s", b.APIService, why, b.GroupVersion, x.Advice))
		} else {
			out = append(out, fmt.Sprintf("APIService %s (%s): %s", b.APIService, b.GroupVersion, why))
		}
		out = append(out, fmt.Sprintf("or delete the APIService (kubectl delete apiservice %s): the namespace then goes, and its %s objects stay orphaned in the backend's storage", b.APIService, b.GroupVersion))
	}
	for _, c := range e.Conditions {
		if c.Type == NamespaceDeletionContentFailure && c.Status == "True" {
			out = append(out, "a backend refused to delete content ("+c.Message+"); the controller retries, see the backend's logs")
		}
	}
	for _, c := range e.Content {
		if len(c.Finalizers) > 0 {
			fins := make([]string, 0, len(c.Finalizers))
			for f, n := range c.Finalizers {
				fins = append(fins, fmt.Sprintf("%s (%d)", f, n))
			}
			sort.Strings(fins)
			out = append(out, fmt.Sprintf("%s: %d objects wait for finalizers %s: the controllers owning them must finish, or remove the finalizers (kubectl patch --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]')", c.Resource, c.Count, strings.Join(fins, ", ")))
		}
	}
	out = append(out, gcAdvice(e.GarbageCollector)...) // explain_gc.go
	if len(out) == 0 {
		if len(e.SpecFinalizers) > 0 && !(len(e.SpecFinalizers) == 1 && e.SpecFinalizers[0] == core.FinalizerKubernetes) {
			out = append(out, fmt.Sprintf("spec.finalizers %q: whoever added them must remove them through /finalize", e.SpecFinalizers))
		} else {
			out = append(out, "nothing blocks it: the namespace controller finishes at its next pass")
		}
	}
	return out
}

// WriteText writes e for a human.
func (e *NamespaceExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Namespace:    %s\n", e.Name)
	p("Phase:        %s\n", e.Phase)
	if e.DeletionTimestamp != nil {
		p("Deleted at:   %s\n", e.DeletionTimestamp.UTC().Format(time.RFC3339))
	}
	p("Finalizers:   spec %q, metadata %q\n", e.SpecFinalizers, e.Finalizers)
	ctl := "on"
	if !e.ControllerEnabled {
		ctl = "off (--controllers=-namespace)"
	}
	p("Controller:   %s\n", ctl)
	if len(e.Conditions) > 0 {
		p("Conditions:\n")
		for _, c := range e.Conditions {
			p("  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	if e.DiscoveryError != "" {
		p("Discovery:    %s\n", e.DiscoveryError)
	}
	for _, bl := range e.Blockers {
		p("Blocked by APIService %s (%s):\n", bl.APIService, bl.GroupVersion)
		if x := bl.Explanation; x != nil {
			p("  Service:    %s\n", x.Service)
			p("  Available:  %s\n", conditionSummary(&x.Verdict))
			p("              %s\n", x.Verdict.Message)
			p("  Advice:     %s\n", x.Advice)
		} else {
			p("  %s\n", bl.Error)
		}
	}
	if len(e.Content) == 0 {
		p("Content:      none left in the discoverable resources\n")
	} else {
		p("Content remaining:\n")
		for _, c := range e.Content {
			line := fmt.Sprintf("  %-32s %d", c.Resource, c.Count)
			if len(c.Finalizers) > 0 {
				fins := make([]string, 0, len(c.Finalizers))
				for f, n := range c.Finalizers {
					fins = append(fins, fmt.Sprintf("%s in %d", f, n))
				}
				sort.Strings(fins)
				line += " (finalizers: " + strings.Join(fins, ", ") + ")"
			}
			if c.Error != "" {
				line += " (list failed: " + c.Error + ")"
			}
			p("%s\n", line)
		}
	}
	writeGCStall(p, e.GarbageCollector) // explain_gc.go
	p("To unblock:\n")
	for _, a := range e.Advice {
		p("  - %s\n", a)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// serveDebugNamespaces answers DebugNamespacesPath/<name>: text/plain, or
// JSON when Accept names application/json. An unknown name answers a 404
// Status.
func (s *Server) serveDebugNamespaces(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	name := strings.Trim(strings.TrimPrefix(r.URL.Path, DebugNamespacesPath), "/")
	if name == "" {
		negotiation.WriteStatus(w, r, meta.NewBadRequest("a namespace name is required: "+DebugNamespacesPath+"/<name>"))
		return
	}
	e, err := s.ExplainNamespace(r.Context(), name)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	writeExplanation(w, r, e, e.WriteText)
}
