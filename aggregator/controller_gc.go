package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// GarbageCollectorUser is the identity the garbage collector sends its
// requests with, local and proxied ones alike: kube-controller-manager's
// generic-garbage-collector service account.
const GarbageCollectorUser = "system:serviceaccount:kube-system:generic-garbage-collector"

var garbageCollectorIdentity = authentication.UserInfo{Username: GarbageCollectorUser,
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}

// garbageCollectorUserAgent is kube-controller-manager's user agent for the
// controller's client.
var garbageCollectorUserAgent = fmt.Sprintf("kube-controller-manager/%s (%s/%s) kubernetes/aggsim/generic-garbage-collector", KubeVersion, runtime.GOOS, runtime.GOARCH)

const (
	// gcResyncInterval is how often the collector re-reads discovery to
	// start and stop monitors (upstream: 30 s); it also does so soon after
	// aggsim's discovery is rebuilt (an APIService changed or turned
	// (un)available).
	gcResyncInterval = 5 * time.Second
	// gcResyncDelay coalesces discovery rebuilds that come in a burst.
	gcResyncDelay = 20 * time.Millisecond
	// gcWorkers is how many items are processed at once (upstream's
	// --concurrent-gc-syncs is 20; the machine has 2 cores).
	gcWorkers = 4
)

// gcIgnoredResources are never monitored, as kube-controller-manager's
// default --garbage-collector ignored resources: events.
var gcIgnoredResources = map[string]bool{"events": true, "events.events.k8s.io": true}

// gcResource is one resource the collector knows from discovery.
type gcResource struct {
	group, version, resource, kind string
	namespaced                     bool
}

// apiVersion is "<group>/<version>" ("v1" for core).
func (r gcResource) apiVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// path is the collection path of r in namespace ns ("" for all or for a
// cluster-scoped resource).
func (r gcResource) path(ns string) string {
	p := "/apis/" + r.group + "/" + r.version
	if r.group == "" {
		p = "/api/" + r.version
	}
	if ns != "" && r.namespaced {
		p += "/namespaces/" + url.PathEscape(ns)
	}
	return p + "/" + r.resource
}

// gr is the resource's "<resource>.<group>".
func (r gcResource) gr() string { return r.resource + "." + r.group }

// gcNode is one object in the dependency graph: what the collector needs
// of its metadata.
type gcNode struct {
	res             gcResource
	namespace, name string
	uid             string
	owners          []meta.OwnerReference
	finalizers      []string
	deleting        bool // deletionTimestamp set
}

func (n *gcNode) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", n.res.apiVersion(), n.res.kind, n.namespace, n.name, n.uid)
}

// garbageCollector is kube-controller-manager's garbage collector
// (pkg/controller/garbagecollector): it keeps a graph of every object of
// every resource in discovery that supports delete, list and watch
// (aggregated ones included; events ignored) by ownerReferences uid, and
//   - deletes a dependent whose owners are all gone (absent, or present with
//     another uid: dangling), with policy Background (Orphan or
//     Foreground when the dependent already has that finalizer);
//   - for an owner deleted with foregroundDeletion, deletes its dependents
//     (Foreground for a dependent with dependents of its own) and removes
//     the finalizer once no dependent with blockOwnerDeletion is left;
//   - for an owner deleted with the orphan finalizer, removes the
//     ownerReferences to it from its dependents, then the finalizer.
//
// aggsim's own resources are watched through their store; aggregated ones
// are listed and watched through the proxy. Requests go through the
// server's handler chain as GarbageCollectorUser. An owner whose kind has
// no mapping (its group's discovery fails) cannot be resolved: its
// dependents wait, retried with back-off, as upstream's "unable to get REST
// mapping" (Stalled explains it).
type garbageCollector struct {
	client loopback
	api    *rest.API
	logger *slog.Logger
	queue  *nsQueue
	resync chan struct{}
	// discovery is the last aggregated discovery syncMonitors processed
	// (syncMonitors' goroutine only)
	discovery discoveryMemo

	mu         sync.Mutex
	nodes      map[string]*gcNode             // uid -> node
	dependents map[string]map[string]struct{} // owner uid -> dependent uids
	mapping    map[string]gcResource          // "<apiVersion>/<Kind>" -> resource
	monitors   map[string]context.CancelFunc  // gr -> stop its monitor
	locals     map[string]localMonitor        // gr -> aggsim's own monitored resources
	failed     discoveryFailedError           // group versions whose discovery failed
	errs       map[string]string              // uid -> why its last processing failed
	reported   map[string]map[string]bool     // dependent uid -> owner uids with an OwnerRefInvalidNamespace event
}

func newGarbageCollector(chain http.Handler, api *rest.API, logger *slog.Logger) *garbageCollector {
	return &garbageCollector{
		client: loopback{api: chain, user: &garbageCollectorIdentity, userAgent: garbageCollectorUserAgent},
		api:    api, logger: logger, queue: newNSQueue(), resync: make(chan struct{}, 1),
		nodes: map[string]*gcNode{}, dependents: map[string]map[string]struct{}{},
		mapping: map[string]gcResource{}, monitors: map[string]context.CancelFunc{}, locals: map[string]localMonitor{}, errs: map[string]string{}, reported: map[string]map[string]bool{},
	}
}

// requestResync asks for a discovery resync soon (discovery was rebuilt).
func (g *garbageCollector) requestResync() {
	select {
	case g.resync <- struct{}{}:
	default:
	}
}

// Run syncs monitors with discovery and processes queued items until ctx
// ends.
func (g *garbageCollector) Run(ctx context.Context) {
	go func() { <-ctx.Done(); g.queue.shutdown() }()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(gcResyncInterval)
		defer t.Stop()
		for {
			g.syncMonitors(ctx)
			select {
			case <-ctx.Done():
				g.mu.Lock()
				for _, stop := range g.monitors {
					stop()
				}
				g.mu.Unlock()
				return
			case <-t.C:
			case <-g.resync:
				// coalesce a burst of rebuilds into one read
				if !sleepCtx(ctx, gcResyncDelay) {
					continue
				}
				select {
				case <-g.resync:
				default:
				}
			}
		}
	}()
	for range gcWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				uid, ok := g.queue.get()
				if !ok {
					return
				}
				err := g.process(ctx, uid)
				g.mu.Lock()
				if err != nil {
					g.errs[uid] = err.Error()
				} else {
					delete(g.errs, uid)
				}
				g.mu.Unlock()
				if err != nil {
					g.logger.Info("error syncing item", "controller", "garbage-collector-controller", "item", uid, "err", err)
					g.queue.done(uid, -1)
				} else {
					g.queue.done(uid, 0)
				}
			}
		}()
	}
	wg.Wait()
}

// discover reads aggregated discovery: every resource of every version
// (the REST mapping) and the preferred version's resources that support
// delete, list and watch (what is monitored). Stale group versions are
// returned in a discoveryFailedError.
func (g *garbageCollector) discover(ctx context.Context) (mapping map[string]gcResource, monitored []gcResource, err error) {
	resources, err := g.discovery.readDiscovery(ctx, g.client)
	var df discoveryFailedError
	if err != nil && !errors.As(err, &df) {
		return nil, nil, err
	}
	mapping = map[string]gcResource{}
	for _, r := range resources {
		res := gcResource{group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced}
		if res.kind != "" {
			gvk := r.group + "/" + r.version + "/" + r.kind
			if r.group == "" {
				gvk = r.version + "/" + r.kind
			}
			if _, ok := mapping[gvk]; !ok {
				mapping[gvk] = res
			}
		}
		if r.preferred && !gcIgnoredResources[res.gr()] && !gcIgnoredResources[r.resource] &&
			slices.Contains(r.verbs, "delete") && slices.Contains(r.verbs, "list") && slices.Contains(r.verbs, "watch") {
			monitored = append(monitored, res)
		}
	}
	return mapping, monitored, err
}

// syncMonitors starts a monitor for each newly discovered resource and
// stops those of resources gone from discovery; the monitors of a group
// version whose discovery fails are kept (upstream keeps them too).
func (g *garbageCollector) syncMonitors(ctx context.Context) {
	mapping, monitored, err := g.discover(ctx)
	if errors.Is(err, errDiscoveryUnchanged) {
		return // the same documents as the last pass: nothing to do
	}
	var df discoveryFailedError
	if err != nil && !errors.As(err, &df) {
		if ctx.Err() == nil {
			g.logger.Info("garbage collector discovery failed", "err", err)
		}
		return
	}
	if len(df) > 0 {
		g.logger.Info("failed to discover some groups", "controller", "garbage-collector-controller", "groups", df.Error())
	}
	want := map[string]gcResource{}
	for _, r := range monitored {
		want[r.gr()] = r
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	changed := len(df) != len(g.failed) || len(mapping) != len(g.mapping)
	g.mapping = mapping
	g.failed = df
	for gr, stop := range g.monitors {
		if _, ok := want[gr]; ok {
			continue
		}
		keep := false
		for gv := range df {
			if strings.HasSuffix(gr, "."+strings.SplitN(gv, "/", 2)[0]) && strings.Contains(gv, "/") {
				keep = true
			}
		}
		if !keep {
			stop()
			delete(g.monitors, gr)
			delete(g.locals, gr)
		}
	}
	for gr, r := range want {
		if _, ok := g.monitors[gr]; ok {
			continue
		}
		mctx, stop := context.WithCancel(ctx)
		g.monitors[gr] = stop
		if st := g.api.Store(meta.GroupResource{Group: r.group, Resource: r.resource}); st != nil {
			g.locals[gr] = localMonitor{res: r, st: st}
			go g.runLocalMonitor(mctx, r, st)
		} else {
			go g.runRemoteMonitor(mctx, r)
		}
		changed = true
	}
	if changed {
		// A mapping may have appeared: items that failed try again now.
		for uid := range g.errs {
			g.queue.add(uid, 0)
		}
	}
	g.discovery.processed()
}

// objectMetaOf is the metadata part of any object the collector reads.
type gcObject struct {
	Metadata meta.ObjectMeta `json:"metadata"`
}

// runLocalMonitor feeds the graph from an aggsim store: a list, then its
// watch, re-listing when the watch ends.
func (g *garbageCollector) runLocalMonitor(ctx context.Context, r gcResource, st *registry.Store) {
	backoff := 10 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		// metadata only: the graph needs uids, ownerReferences and
		// finalizers, not the objects (registry.Store.ListMeta)
		var metas []*meta.ObjectMeta
		var rv string
		var err error
		if first { // in the start lane (start_lane.go)
			inStartLane(ctx, func() { metas, rv, err = st.ListMeta(ctx, "") })
			first = false
		} else {
			metas, rv, err = st.ListMeta(ctx, "")
		}
		if err != nil {
			if !sleepCtx(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 10 * time.Millisecond
		g.replace(r, metas)
		g.watchLocal(ctx, r, st, rv)
	}
}

// watchLocal feeds the graph from st's watch from rv until it ends. The
// watch carries metadata only (registry.Store.WatchMetaFunc): the store of a
// custom resource may serve a version other than the storage version,
// and decoding each event in full called the CRD's conversion webhook for
// every change the collector saw (calls the webhook's owner did not ask
// for, one failing conversion ending the watch).
func (g *garbageCollector) watchLocal(ctx context.Context, r gcResource, st *registry.Store, rv string) {
	// in this goroutine (no watch goroutine per monitor: issue 21's idle RSS)
	_ = st.WatchMetaFunc(ctx, "", rv, func(ev registry.WatchEvent) bool {
		switch ev.Type {
		case "ADDED", "MODIFIED":
			g.observe(r, ev.Object.GetObjectMeta(), false)
		case "DELETED":
			g.observe(r, ev.Object.GetObjectMeta(), true)
		case "ERROR":
			return false
		}
		return true
	})
}

// runRemoteMonitor feeds the graph from an aggregated resource: a list and
// a watch through the proxy, re-listing when the watch ends.
func (g *garbageCollector) runRemoteMonitor(ctx context.Context, r gcResource) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		code, body, err := g.client.send(ctx, http.MethodGet, r.path(""), "", "", "application/json", nil)
		if err != nil || code != http.StatusOK {
			if !sleepCtx(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		var list struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
			Items []gcObject `json:"items"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			if !sleepCtx(ctx, backoff) {
				return
			}
			continue
		}
		backoff = 100 * time.Millisecond
		metas := make([]*meta.ObjectMeta, len(list.Items))
		for i := range list.Items {
			metas[i] = &list.Items[i].Metadata
		}
		g.replace(r, metas)
		g.watchRemote(ctx, r, list.Metadata.ResourceVersion)
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return
		}
	}
}

// watchRemote streams a watch of r from resourceVersion rv through the
// handler chain until it ends.
func (g *garbageCollector) watchRemote(ctx context.Context, r gcResource, rv string) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := url.Values{"watch": {"1"}, "resourceVersion": {rv}, "allowWatchBookmarks": {"true"}}
	body, err := g.client.stream(wctx, r.path(""), q.Encode(), "application/json")
	if err != nil {
		return
	}
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var ev struct {
			Type   string   `json:"type"`
			Object gcObject `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			return
		}
		switch ev.Type {
		case "ADDED", "MODIFIED":
			g.observe(r, &ev.Object.Metadata, false)
		case "DELETED":
			g.observe(r, &ev.Object.Metadata, true)
		case "ERROR":
			return
		}
	}
}

// sleepCtx waits d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// replace sets the graph's objects of r to metas (a fresh list): objects
// of r no longer listed are handled as deleted.
func (g *garbageCollector) replace(r gcResource, metas []*meta.ObjectMeta) {
	present := make(map[string]bool, len(metas))
	for _, m := range metas {
		present[m.UID] = true
		g.observe(r, m, false)
	}
	g.mu.Lock()
	var gone []*gcNode
	for uid, n := range g.nodes {
		if n.res.gr() == r.gr() && !present[uid] {
			gone = append(gone, n)
		}
	}
	g.mu.Unlock()
	for _, n := range gone {
		g.observe(r, &meta.ObjectMeta{UID: n.uid, Namespace: n.namespace, Name: n.name}, true)
	}
}

// observe updates the graph with one object of r (deleted: gone) and
// queues what may need work, as upstream's GraphBuilder processGraphChanges:
// the object itself when it has owners (they may be gone) or is being
// deleted with a GC finalizer, its dependents when it is gone or deletes
// them in the foreground, and its owners that wait for their dependents.
func (g *garbageCollector) observe(r gcResource, m *meta.ObjectMeta, deleted bool) {
	uid := m.UID
	if uid == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.nodes[uid]
	if old != nil {
		for _, o := range old.owners {
			if deps := g.dependents[o.UID]; deps != nil {
				delete(deps, uid)
				if len(deps) == 0 {
					delete(g.dependents, o.UID)
				}
			}
		}
	}
	enqueueOwners := func(owners []meta.OwnerReference) {
		for _, o := range owners {
			if on := g.nodes[o.UID]; on != nil && on.deleting && slices.Contains(on.finalizers, meta.FinalizerDeleteDependents) {
				g.queue.add(o.UID, 0)
			}
		}
	}
	if deleted {
		delete(g.nodes, uid)
		delete(g.errs, uid)
		delete(g.reported, uid)
		for dep := range g.dependents[uid] {
			g.queue.add(dep, 0)
		}
		if old != nil {
			enqueueOwners(old.owners)
		}
		return
	}
	n := &gcNode{res: r, namespace: m.Namespace, name: m.Name, uid: uid,
		owners: slices.Clone(m.OwnerReferences), finalizers: slices.Clone(m.Finalizers), deleting: m.DeletionTimestamp != nil}
	g.nodes[uid] = n
	for _, o := range n.owners {
		if g.dependents[o.UID] == nil {
			g.dependents[o.UID] = map[string]struct{}{}
		}
		g.dependents[o.UID][uid] = struct{}{}
	}
	ownersChanged := old == nil || !ownersEqual(old.owners, n.owners)
	if len(n.owners) > 0 && ownersChanged {
		g.queue.add(uid, 0)
	}
	if n.deleting && (slices.Contains(n.finalizers, meta.FinalizerOrphanDependents) || slices.Contains(n.finalizers, meta.FinalizerDeleteDependents)) {
		g.queue.add(uid, 0)
		if slices.Contains(n.finalizers, meta.FinalizerDeleteDependents) && (old == nil || !old.deleting || !slices.Contains(old.finalizers, meta.FinalizerDeleteDependents)) {
			for dep := range g.dependents[uid] {
				g.queue.add(dep, 0)
			}
		}
	}
	enqueueOwners(n.owners)
	if old != nil && ownersChanged {
		enqueueOwners(old.owners)
	}
}

func ownersEqual(a, b []meta.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.UID != y.UID || x.Name != y.Name || x.Kind != y.Kind || x.APIVersion != y.APIVersion ||
			(x.BlockOwnerDeletion != nil && *x.BlockOwnerDeletion) != (y.BlockOwnerDeletion != nil && *y.BlockOwnerDeletion) {
			return false
		}
	}
	return true
}

// node returns a copy of the node of uid, nil when it is not in the graph.
func (g *garbageCollector) node(uid string) *gcNode {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[uid]
	if n == nil {
		return nil
	}
	c := *n
	return &c
}

// dependentsOf returns copies of the nodes that name uid as an owner.
func (g *garbageCollector) dependentsOf(uid string) []*gcNode {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*gcNode
	for d := range g.dependents[uid] {
		if n := g.nodes[d]; n != nil {
			c := *n
			out = append(out, &c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].uid < out[j].uid })
	return out
}

// process handles one queued object, as upstream's attemptToDeleteItem and
// attemptToOrphan.
func (g *garbageCollector) process(ctx context.Context, uid string) error {
	n := g.node(uid)
	if n == nil {
		return nil
	}
	if n.deleting {
		switch {
		case slices.Contains(n.finalizers, meta.FinalizerOrphanDependents):
			return g.orphanDependents(ctx, n)
		case slices.Contains(n.finalizers, meta.FinalizerDeleteDependents):
			return g.processDeletingDependents(ctx, n)
		}
		return nil
	}
	if len(n.owners) == 0 {
		return nil
	}
	latest, found, err := g.get(ctx, n.res, n.namespace, n.name)
	if err != nil || !found || latest.UID != uid {
		return err
	}
	if latest.DeletionTimestamp != nil || len(latest.OwnerReferences) == 0 {
		return nil
	}
	var solid, dangling, waiting []meta.OwnerReference
	for _, ref := range latest.OwnerReferences {
		state, err := g.ownerState(ctx, n, ref)
		if err != nil {
			return err
		}
		switch state {
		case ownerSolid:
			solid = append(solid, ref)
		case ownerDangling:
			dangling = append(dangling, ref)
		case ownerWaiting:
			waiting = append(waiting, ref)
		case ownerInvalid:
			g.logger.Info("item is cluster-scoped, but refers to a namespaced owner", "item", n.String(), "owner", ref.Kind+"/"+ref.Name)
			return nil
		}
	}
	switch {
	case len(solid) > 0:
		if len(dangling)+len(waiting) == 0 {
			return nil
		}
		drop := map[string]bool{}
		for _, r := range append(dangling, waiting...) {
			drop[r.UID] = true
		}
		return g.removeOwnerReferences(ctx, n, func(r meta.OwnerReference) bool { return drop[r.UID] })
	case len(waiting) > 0 && len(g.dependentsOf(uid)) > 0:
		return g.deleteObject(ctx, n, latest.ResourceVersion, meta.DeletePropagationForeground)
	default:
		policy := meta.DeletePropagationBackground
		switch {
		case slices.Contains(latest.Finalizers, meta.FinalizerOrphanDependents):
			policy = meta.DeletePropagationOrphan
		case slices.Contains(latest.Finalizers, meta.FinalizerDeleteDependents):
			policy = meta.DeletePropagationForeground
		}
		g.logger.Debug("Deleting item", "item", n.String(), "propagationPolicy", policy)
		return g.deleteObject(ctx, n, latest.ResourceVersion, policy)
	}
}

type ownerStateKind int

const (
	ownerSolid ownerStateKind = iota
	ownerDangling
	ownerWaiting
	ownerInvalid
)

// ownerState classifies one owner reference of n: solid (the owner
// exists), dangling (absent, or its uid differs), waiting (the owner is
// being deleted in the foreground), or invalid (a cluster-scoped n names a
// namespaced owner). An owner whose kind has no REST mapping, or whose GET
// fails, is an error (retried).
func (g *garbageCollector) ownerState(ctx context.Context, n *gcNode, ref meta.OwnerReference) (ownerStateKind, error) {
	g.mu.Lock()
	res, mapped := g.mapping[ref.APIVersion+"/"+ref.Kind]
	g.mu.Unlock()
	if !mapped {
		return 0, fmt.Errorf("unable to get REST mapping for %s/%s.", ref.APIVersion, ref.Kind)
	}
	ns := ""
	if res.namespaced {
		ns = n.namespace
	}
	on := g.node(ref.UID)
	if on != nil && on.namespace != ns {
		// The uid belongs to an object elsewhere (upstream's graph builder
		// reportInvalidNamespaceOwnerRef).
		g.reportInvalidNamespaceOwnerRef(ctx, n, ref, ns)
	}
	if n.namespace == "" && res.namespaced {
		return ownerInvalid, nil
	}
	if on != nil && on.namespace == ns && on.name == ref.Name && on.res.kind == ref.Kind && on.res.group == res.group {
		if on.deleting && slices.Contains(on.finalizers, meta.FinalizerDeleteDependents) {
			return ownerWaiting, nil
		}
		return ownerSolid, nil
	}
	owner, found, err := g.get(ctx, res, ns, ref.Name)
	switch {
	case err != nil:
		return 0, err
	case !found || owner.UID != ref.UID:
		return ownerDangling, nil
	case owner.DeletionTimestamp != nil && slices.Contains(owner.Finalizers, meta.FinalizerDeleteDependents):
		return ownerWaiting, nil
	}
	return ownerSolid, nil
}

// reportInvalidNamespaceOwnerRef records, once per dependent and owner uid,
// kube-controller-manager's Warning event OwnerRefInvalidNamespace on
// dependent n: `ownerRef [<apiVersion>/<Kind>, namespace: <ns>, name: <name>,
// uid: <uid>] does not exist in namespace "<ns>"` (in namespace default for
// a cluster-scoped dependent, as client-go's event recorder does).
func (g *garbageCollector) reportInvalidNamespaceOwnerRef(ctx context.Context, n *gcNode, ref meta.OwnerReference, ns string) {
	g.mu.Lock()
	done := g.reported[n.uid][ref.UID]
	if g.reported[n.uid] == nil {
		g.reported[n.uid] = map[string]bool{}
	}
	g.reported[n.uid][ref.UID] = true
	g.mu.Unlock()
	if done {
		return
	}
	evNS := n.namespace
	if evNS == "" {
		evNS = "default"
	}
	now := time.Now()
	ts := meta.NewTime(now)
	ev := core.Event{
		TypeMeta:       meta.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     meta.ObjectMeta{Name: fmt.Sprintf("%s.%x", n.name, now.UnixNano()), Namespace: evNS},
		InvolvedObject: core.ObjectReference{APIVersion: n.res.apiVersion(), Kind: n.res.kind, Namespace: n.namespace, Name: n.name, UID: n.uid},
		Reason:         "OwnerRefInvalidNamespace",
		Message: fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
			ref.APIVersion, ref.Kind, ns, ref.Name, ref.UID, ns),
		Source:              core.EventSource{Component: "garbage-collector-controller"},
		FirstTimestamp:      ts,
		LastTimestamp:       ts,
		Count:               1,
		Type:                "Warning",
		ReportingController: "garbage-collector-controller",
	}
	b, err := json.Marshal(&ev)
	if err != nil {
		return
	}
	code, body, err := g.client.send(ctx, http.MethodPost, "/api/v1/namespaces/"+url.PathEscape(evNS)+"/events", "", "application/json", "application/json", b)
	if err == nil && code >= 300 {
		err = statusErrorOf(code, body)
	}
	if err != nil {
		g.logger.Info("could not record event OwnerRefInvalidNamespace", "item", n.String(), "err", err)
	}
}

// processDeletingDependents handles an owner deleted in the foreground:
// once no dependent with blockOwnerDeletion is left it removes the
// foregroundDeletion finalizer, else it queues those dependents that are
// not being deleted yet.
func (g *garbageCollector) processDeletingDependents(ctx context.Context, n *gcNode) error {
	var blocking []*gcNode
	for _, d := range g.dependentsOf(n.uid) {
		for _, r := range d.owners {
			if r.UID == n.uid && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
				blocking = append(blocking, d)
				break
			}
		}
	}
	if len(blocking) == 0 {
		return g.removeFinalizer(ctx, n, meta.FinalizerDeleteDependents)
	}
	for _, d := range blocking {
		if !d.deleting {
			g.queue.add(d.uid, 0)
		}
	}
	return nil
}

// orphanDependents removes the ownerReferences to n from its dependents,
// then n's orphan finalizer (upstream's attemptToOrphan).
func (g *garbageCollector) orphanDependents(ctx context.Context, n *gcNode) error {
	deps, err := g.orphanCandidates(ctx, n)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range deps {
		if err := g.removeOwnerReferences(ctx, d, func(r meta.OwnerReference) bool { return r.UID == n.uid }); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("failed to orphan dependents of owner %s, got errors: %w", n, errors.Join(errs...))
	}
	return g.removeFinalizer(ctx, n, meta.FinalizerOrphanDependents)
}

// localMonitor is one of aggsim's own resources the collector monitors,
// with its store.
type localMonitor struct {
	res gcResource
	st  *registry.Store
}

// orphanCandidates returns n's dependents: those in the graph and those
// aggsim's own stores hold now. The graph is fed by one watch per
// resource, so it may not have seen a dependent written just before n was
// deleted; orphaning only the graph's dependents (as upstream's
// attemptToOrphan does) would remove n's orphan finalizer, and that
// dependent, its owner then gone, would be deleted instead of orphaned.
// Reading the stores closes that window for aggsim's resources (aggregated
// ones are known through the graph only). A namespaced owner's dependents
// are in its namespace; a cluster-scoped owner's may be anywhere.
func (g *garbageCollector) orphanCandidates(ctx context.Context, n *gcNode) ([]*gcNode, error) {
	deps := g.dependentsOf(n.uid)
	known := make(map[string]bool, len(deps))
	for _, d := range deps {
		known[d.uid] = true
	}
	g.mu.Lock()
	locals := make([]localMonitor, 0, len(g.locals))
	for _, l := range g.locals {
		locals = append(locals, l)
	}
	g.mu.Unlock()
	sort.Slice(locals, func(i, j int) bool { return locals[i].res.gr() < locals[j].res.gr() })
	for _, l := range locals {
		if n.namespace != "" && !l.res.namespaced {
			continue
		}
		metas, _, err := l.st.ListMeta(ctx, n.namespace)
		if err != nil {
			return nil, err
		}
		for _, m := range metas {
			if known[m.UID] || !slices.ContainsFunc(m.OwnerReferences, func(r meta.OwnerReference) bool { return r.UID == n.uid }) {
				continue
			}
			known[m.UID] = true
			deps = append(deps, &gcNode{res: l.res, namespace: m.Namespace, name: m.Name, uid: m.UID, owners: m.OwnerReferences})
		}
	}
	return deps, nil
}

// get reads the metadata of ns/name of r through the chain; found is false
// on 404.
func (g *garbageCollector) get(ctx context.Context, r gcResource, ns, name string) (*meta.ObjectMeta, bool, error) {
	code, body, err := g.client.send(ctx, http.MethodGet, r.path(ns)+"/"+url.PathEscape(name), "", "", "application/json", nil)
	if err != nil {
		return nil, false, err
	}
	if code == http.StatusNotFound {
		return nil, false, nil
	}
	if code != http.StatusOK {
		return nil, false, statusErrorOf(code, body)
	}
	var o gcObject
	if err := json.Unmarshal(body, &o); err != nil {
		return nil, false, err
	}
	return &o.Metadata, true, nil
}

// deleteObject deletes n with policy, as read at resourceVersion rv: the
// DELETE carries n's uid and rv as preconditions. Upstream's collector
// sends the uid only; with rv too, a dependent the orphaning of its owner
// changed after it was read (its ownerReference removed) is not deleted
// on that stale read. A 404 or a uid conflict (it is gone or was
// re-created) is success; a resourceVersion conflict is an error, so the
// item is processed again from a fresh read.
func (g *garbageCollector) deleteObject(ctx context.Context, n *gcNode, rv, policy string) error {
	b, _ := json.Marshal(map[string]any{"kind": "DeleteOptions", "apiVersion": "v1",
		"preconditions": map[string]string{"uid": n.uid, "resourceVersion": rv}, "propagationPolicy": policy})
	code, body, err := g.client.send(ctx, http.MethodDelete, n.res.path(n.namespace)+"/"+url.PathEscape(n.name), "", "application/json", "application/json", b)
	if err != nil {
		return err
	}
	switch {
	case code == http.StatusConflict && strings.Contains(string(body), "the ResourceVersion in the precondition"):
		return statusErrorOf(code, body)
	case code >= 300 && code != http.StatusNotFound && code != http.StatusConflict:
		return statusErrorOf(code, body)
	}
	return nil
}

// removeOwnerReferences patches n (a JSON merge patch guarded by its
// resourceVersion, re-read on conflict) to drop the ownerReferences for
// which drop is true.
func (g *garbageCollector) removeOwnerReferences(ctx context.Context, n *gcNode, drop func(meta.OwnerReference) bool) error {
	return g.patchMeta(ctx, n, func(m *meta.ObjectMeta) (any, bool) {
		keep := slices.DeleteFunc(slices.Clone(m.OwnerReferences), drop)
		if len(keep) == len(m.OwnerReferences) {
			return nil, false
		}
		if len(keep) == 0 {
			return map[string]any{"ownerReferences": nil}, true
		}
		return map[string]any{"ownerReferences": keep}, true
	})
}

// removeFinalizer patches finalizer f out of n.
func (g *garbageCollector) removeFinalizer(ctx context.Context, n *gcNode, f string) error {
	return g.patchMeta(ctx, n, func(m *meta.ObjectMeta) (any, bool) {
		keep := slices.DeleteFunc(slices.Clone(m.Finalizers), func(x string) bool { return x == f })
		if len(keep) == len(m.Finalizers) {
			return nil, false
		}
		if len(keep) == 0 {
			return map[string]any{"finalizers": nil}, true
		}
		return map[string]any{"finalizers": keep}, true
	})
}

// patchMeta reads n, asks change for a metadata merge patch, and sends it
// with n's uid and the read resourceVersion; a 409 re-reads (up to 5
// times), a 404 is success.
func (g *garbageCollector) patchMeta(ctx context.Context, n *gcNode, change func(*meta.ObjectMeta) (any, bool)) error {
	p := n.res.path(n.namespace) + "/" + url.PathEscape(n.name)
	for range 5 {
		m, found, err := g.get(ctx, n.res, n.namespace, n.name)
		if err != nil || !found || m.UID != n.uid {
			return err
		}
		md, ok := change(m)
		if !ok {
			return nil
		}
		fields := md.(map[string]any)
		fields["uid"], fields["resourceVersion"] = m.UID, m.ResourceVersion
		b, err := json.Marshal(map[string]any{"metadata": fields})
		if err != nil {
			return err
		}
		code, body, err := g.client.send(ctx, http.MethodPatch, p, "", "application/merge-patch+json", "application/json", b)
		if err != nil {
			return err
		}
		switch {
		case code == http.StatusConflict:
			continue
		case code == http.StatusNotFound || code < 300:
			return nil
		default:
			return statusErrorOf(code, body)
		}
	}
	return fmt.Errorf("patch %s: conflicts kept coming", p)
}

// GCStall is what keeps the garbage collector from finishing: group
// versions whose discovery fails, and the objects it could not process.
type GCStall struct {
	// FailedGroupVersions maps each group version whose discovery fails
	// to why.
	FailedGroupVersions map[string]string `json:"failedGroupVersions,omitempty"`
	// Pending are the objects whose last processing failed.
	Pending []GCPending `json:"pending,omitempty"`
}

// GCPending is one object the garbage collector retries.
type GCPending struct {
	Object string `json:"object"`
	Error  string `json:"error"`
}

// stall returns the collector's current stall, restricted to objects in
// namespace ns ("" for all).
func (g *garbageCollector) stall(ns string) GCStall {
	g.mu.Lock()
	defer g.mu.Unlock()
	var s GCStall
	if len(g.failed) > 0 {
		s.FailedGroupVersions = map[string]string{}
		for gv, e := range g.failed {
			s.FailedGroupVersions[gv] = e
		}
	}
	for uid, e := range g.errs {
		n := g.nodes[uid]
		if n == nil || (ns != "" && n.namespace != ns) {
			continue
		}
		s.Pending = append(s.Pending, GCPending{Object: n.String(), Error: e})
	}
	sort.Slice(s.Pending, func(i, j int) bool { return s.Pending[i].Object < s.Pending[j].Object })
	return s
}

// stream sends a GET through the chain and returns its body as it is
// written (a watch); the request ends when ctx does or the body is closed.
func (l loopback) stream(ctx context.Context, path, query, accept string) (io.ReadCloser, error) {
	if l.user != nil {
		ctx = withInProcessUser(ctx, l.user)
	}
	ctx, cancel := context.WithCancel(ctx)
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	r.URL.RawQuery = query
	r.RemoteAddr = "127.0.0.1:0"
	r.RequestURI = r.URL.RequestURI()
	r.Header.Set("Accept", accept)
	if l.userAgent != "" {
		r.Header.Set("User-Agent", l.userAgent)
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, started: make(chan struct{})}
	go func() {
		defer func() {
			if p := recover(); p != nil && p != http.ErrAbortHandler {
				panic(p)
			}
			w.start(http.StatusOK)
			pw.Close()
		}()
		l.api.ServeHTTP(w, r)
	}()
	select {
	case <-w.started:
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	if w.code != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(pr, 1<<20))
		cancel()
		pr.Close()
		return nil, statusErrorOf(w.code, b)
	}
	return &cancelReader{ReadCloser: pr, cancel: cancel}, nil
}

// pipeWriter is an http.ResponseWriter that streams the body into a pipe.
type pipeWriter struct {
	header  http.Header
	pw      *io.PipeWriter
	once    sync.Once
	code    int
	started chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.header }
func (w *pipeWriter) start(code int) {
	w.once.Do(func() { w.code = code; close(w.started) })
}
func (w *pipeWriter) WriteHeader(code int) { w.start(code) }
func (w *pipeWriter) Write(b []byte) (int, error) {
	w.start(http.StatusOK)
	return w.pw.Write(b)
}

// Flush is a no-op: every Write reaches the reader at once.
func (w *pipeWriter) Flush() {}

// cancelReader cancels its request when closed.
type cancelReader struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelReader) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}
