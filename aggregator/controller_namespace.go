package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// NamespaceControllerUser is the identity the namespace controller sends
// its requests with, local and proxied ones alike: kube-controller-manager's
// namespace-controller service account (--use-service-account-credentials).
const NamespaceControllerUser = "system:serviceaccount:kube-system:namespace-controller"

// The namespace conditions and their texts, as kube-controller-manager
// 1.33 writes them (pkg/controller/namespace/deletion/
// namespace_condition_utils.go; captures kube-1.33/namespace/
// 2-ok-conditions-final.txt, 3-stuck-events.txt, 4-hold-events.txt).
const (
	NamespaceDeletionDiscoveryFailure = "NamespaceDeletionDiscoveryFailure"
	NamespaceDeletionGVParsingFailure = "NamespaceDeletionGroupVersionParsingFailure"
	NamespaceDeletionContentFailure   = "NamespaceDeletionContentFailure"
	NamespaceContentRemaining         = "NamespaceContentRemaining"
	NamespaceFinalizersRemaining      = "NamespaceFinalizersRemaining"
)

// namespaceConditionTypes is the order the conditions are written in.
var namespaceConditionTypes = []string{
	NamespaceDeletionDiscoveryFailure, NamespaceDeletionGVParsingFailure, NamespaceDeletionContentFailure,
	NamespaceContentRemaining, NamespaceFinalizersRemaining,
}

// namespaceOK are the reason and message of each condition when it is
// False.
var namespaceOK = map[string][2]string{
	NamespaceDeletionDiscoveryFailure: {"ResourcesDiscovered", "All resources successfully discovered"},
	NamespaceDeletionGVParsingFailure: {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
	NamespaceDeletionContentFailure:   {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	NamespaceContentRemaining:         {"ContentRemoved", "All content successfully removed"},
	NamespaceFinalizersRemaining:      {"ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

const (
	// nsRetryBase and nsRetryMax bound the exponential back-off after a
	// failed sync. Upstream's queue backs off from 5 ms to 60 s (a stuck
	// namespace went 33 s after its backend came back in the capture);
	// aggsim caps it at 1 s so a namespace goes within ~2 s of its
	// APIService turning Available (issue 19 aims at ≤ 3 s).
	nsRetryBase = 5 * time.Millisecond
	nsRetryMax  = time.Second
	// nsContentRemainingRequeue is how long the controller waits while
	// content with finalizers remains. Upstream re-queues after
	// finalizerEstimateSeconds/2+1 = 8 s; aggsim re-checks every second.
	nsContentRemainingRequeue = time.Second
	// nsWorkers is how many namespaces are synced at once (upstream's
	// --concurrent-namespace-syncs is 10; the machine has 2 cores).
	nsWorkers = 4
)

// namespaceController finalizes deleted namespaces as
// kube-controller-manager's namespace controller does
// (pkg/controller/namespace): it discovers every namespaced resource
// through the server's own aggregated discovery, deletes the namespace's
// content (deletecollection where supported, else list and delete) through
// the server's own handler chain as NamespaceControllerUser, so aggregated
// content goes through the proxy, keeps the namespace's deletion
// conditions, and removes the "kubernetes" finalizer once nothing is
// left. It re-tries with back-off, and at once when an APIService or
// discovery changes.
type namespaceController struct {
	client     loopback // through the full handler chain
	namespaces *Informer
	logger     *slog.Logger
	now        func() time.Time
	queue      *nsQueue
	// leading gates deletions to the replica holding the
	// kube-controller-manager Lease (nil: always); the others requeue.
	leading func() bool
}

func newNamespaceController(api http.Handler, namespaces *Informer, logger *slog.Logger, now func() time.Time) *namespaceController {
	c := &namespaceController{
		client: namespaceControllerClient(api), namespaces: namespaces, logger: logger, now: now, queue: newNSQueue(),
	}
	namespaces.AddHandler(func(_, cur meta.Object) {
		if cur != nil && cur.GetObjectMeta().DeletionTimestamp != nil {
			c.queue.add(cur.GetObjectMeta().Name, 0)
		}
	})
	return c
}

// requeueAll schedules every deleted namespace now (an APIService or the
// discovery documents changed: a blocked namespace may go on).
func (c *namespaceController) requeueAll() {
	for _, obj := range c.namespaces.List() {
		if m := obj.GetObjectMeta(); m.DeletionTimestamp != nil {
			c.queue.add(m.Name, 0)
		}
	}
}

// Run syncs queued namespaces until ctx ends.
func (c *namespaceController) Run(ctx context.Context) {
	go func() { <-ctx.Done(); c.queue.shutdown() }()
	var wg sync.WaitGroup
	for range nsWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				name, ok := c.queue.get()
				if !ok {
					return
				}
				if c.leading != nil && !c.leading() {
					// The leader deletes it; should this replica
					// become leader, requeueAll (OnStartedLeading)
					// queues every deleted namespace again.
					c.queue.done(name, 0)
					continue
				}
				after, err := c.sync(ctx, name)
				switch {
				case err != nil:
					c.logger.Info("namespace deletion failed", "namespace", name, "err", err)
					c.queue.done(name, -1)
				default:
					c.queue.done(name, after)
				}
			}
		}()
	}
	wg.Wait()
}

// sync runs one deletion attempt of namespace name, as upstream's
// namespacedResourcesDeleter.Delete. It returns how long to wait before
// the next attempt (0: none) or an error (retry with back-off).
func (c *namespaceController) sync(ctx context.Context, name string) (time.Duration, error) {
	ns, err := c.getNamespace(ctx, name)
	if err != nil || ns == nil || ns.DeletionTimestamp == nil {
		return 0, err
	}
	if ns.Status.Phase != core.NamespaceTerminating {
		ns.Status.Phase = core.NamespaceTerminating
		if ns, err = c.putNamespace(ctx, ns, "/status"); err != nil || ns == nil {
			return 0, err
		}
	}
	if !slices.Contains(ns.Spec.Finalizers, core.FinalizerKubernetes) {
		return 0, nil
	}
	remaining, err := c.deleteAllContent(ctx, ns)
	if err != nil {
		return 0, err
	}
	if remaining {
		return nsContentRemainingRequeue, nil
	}
	ns.Spec.Finalizers = slices.DeleteFunc(slices.Clone(ns.Spec.Finalizers), func(f string) bool { return f == core.FinalizerKubernetes })
	out, err := c.putNamespace(ctx, ns, "/finalize")
	if err != nil || out == nil {
		return 0, err
	}
	if len(out.Spec.Finalizers) == 0 {
		// deleteNamespaceWhenDone: the store removed it with the finalize
		// write unless metadata.finalizers remain; DELETE it in case.
		code, body, err := c.do(ctx, http.MethodDelete, "/api/v1/namespaces/"+name, "application/json", nil)
		if err != nil {
			return 0, err
		}
		if code >= 300 && code != http.StatusNotFound {
			return 0, statusErrorOf(code, body)
		}
	}
	return 0, nil
}

// nsResource is one namespaced resource the controller deletes.
type nsResource struct {
	group, version, resource string
	verbs                    []string
}

func (r nsResource) path(ns string) string {
	p := "/apis/" + r.group + "/" + r.version
	if r.group == "" {
		p = "/api/" + r.version
	}
	return p + "/namespaces/" + url.PathEscape(ns) + "/" + r.resource
}

// discoveryFailedError is client-go's ErrGroupDiscoveryFailed: the
// group/versions whose discovery failed.
type discoveryFailedError map[string]string

func (e discoveryFailedError) Error() string {
	groups := make([]string, 0, len(e))
	for gv, err := range e {
		groups = append(groups, gv+": "+err)
	}
	sort.Strings(groups)
	return "unable to retrieve the complete list of server APIs: " + strings.Join(groups, ", ")
}

// discoverNamespacedResources returns the deletable namespaced resources
// of each group's preferred version (a resource only another version
// serves comes from the first version that has it), as client-go's
// ServerPreferredNamespacedResources filtered by the delete verb. A group
// version whose discovery is Stale is reported in a discoveryFailedError
// next to the resources that could be discovered.
func (c *namespaceController) discoverNamespacedResources(ctx context.Context) ([]nsResource, error) {
	resources, err := readAggregatedDiscovery(ctx, c.client)
	var out []nsResource
	for _, r := range resources {
		if r.preferred && r.namespaced && !strings.Contains(r.resource, "/") && slices.Contains(r.verbs, "delete") {
			out = append(out, nsResource{group: r.group, version: r.version, resource: r.resource, verbs: r.verbs})
		}
	}
	return out, err
}

// contentTotals is what remains in a namespace after one pass.
type contentTotals struct {
	resources  map[string]int // "<resource>.<group>" -> count
	finalizers map[string]int
}

// deleteAllContent deletes the namespace's content and writes its
// conditions, as upstream's deleteAllContent. remaining is true while
// objects with finalizers are left; err aggregates discovery and deletion
// failures.
func (c *namespaceController) deleteAllContent(ctx context.Context, ns *core.Namespace) (remaining bool, err error) {
	var errs []error
	var newConds []core.NamespaceCondition
	now := meta.NewTime(c.now())
	resources, derr := c.discoverNamespacedResources(ctx)
	if derr != nil {
		errs = append(errs, derr)
		msg := derr.Error()
		var df discoveryFailedError
		if errors.As(derr, &df) {
			msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(df), derr)
		}
		newConds = append(newConds, core.NamespaceCondition{Type: NamespaceDeletionDiscoveryFailure, Status: "True",
			LastTransitionTime: now, Reason: "DiscoveryFailed", Message: msg})
	}
	totals := contentTotals{resources: map[string]int{}, finalizers: map[string]int{}}
	var contentErrs []error
	for _, r := range resources {
		n, fins, err := c.deleteResourceContent(ctx, r, ns.Name)
		if err != nil {
			errs = append(errs, err)
			contentErrs = append(contentErrs, err)
			continue
		}
		if n > 0 {
			totals.resources[r.resource+"."+r.group] += n
			for f, k := range fins {
				totals.finalizers[f] += k
				remaining = true
			}
		}
	}
	if len(totals.resources) > 0 {
		var parts []string
		for gr, n := range totals.resources {
			parts = append(parts, fmt.Sprintf("%s has %d resource instances", gr, n))
		}
		sort.Strings(parts)
		newConds = append(newConds, core.NamespaceCondition{Type: NamespaceContentRemaining, Status: "True",
			LastTransitionTime: now, Reason: "SomeResourcesRemain", Message: "Some resources are remaining: " + strings.Join(parts, ", ")})
	}
	if len(totals.finalizers) > 0 {
		var parts []string
		for f, n := range totals.finalizers {
			parts = append(parts, fmt.Sprintf("%s in %d resource instances", f, n))
		}
		sort.Strings(parts)
		newConds = append(newConds, core.NamespaceCondition{Type: NamespaceFinalizersRemaining, Status: "True",
			LastTransitionTime: now, Reason: "SomeFinalizersRemain", Message: "Some content in the namespace has finalizers remaining: " + strings.Join(parts, ", ")})
	}
	if len(contentErrs) > 0 {
		newConds = append(newConds, core.NamespaceCondition{Type: NamespaceDeletionContentFailure, Status: "True",
			LastTransitionTime: now, Reason: "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(contentErrs), aggregateMessage(errorTexts(contentErrs)))})
	}
	if conds, changed := mergeNamespaceConditions(ns.Status.Conditions, newConds, now); changed {
		ns.Status.Conditions = conds
		if out, err := c.putNamespace(ctx, ns, "/status"); err != nil {
			c.logger.Info("couldn't update status condition for namespace", "namespace", ns.Name, "err", err)
		} else if out != nil {
			*ns = *out // the finalize write needs the new resourceVersion
		}
	}
	if len(totals.resources) > 0 && !remaining {
		// Content without finalizers is still there (deleted
		// concurrently, or graceful): look again soon.
		remaining = true
	}
	return remaining, errors.Join(errs...)
}

// mergeNamespaceConditions returns the five conditions in their order:
// each one of newConds, else its False form; an unchanged condition
// (same status, reason and message) keeps its old lastTransitionTime.
func mergeNamespaceConditions(old, newConds []core.NamespaceCondition, now meta.Time) ([]core.NamespaceCondition, bool) {
	find := func(cs []core.NamespaceCondition, t string) *core.NamespaceCondition {
		for i := range cs {
			if cs[i].Type == t {
				return &cs[i]
			}
		}
		return nil
	}
	out := make([]core.NamespaceCondition, 0, len(namespaceConditionTypes))
	for _, t := range namespaceConditionTypes {
		nc := find(newConds, t)
		if nc == nil {
			ok := namespaceOK[t]
			nc = &core.NamespaceCondition{Type: t, Status: "False", LastTransitionTime: now, Reason: ok[0], Message: ok[1]}
		}
		if oc := find(old, t); oc != nil && oc.Status == nc.Status && oc.Reason == nc.Reason && oc.Message == nc.Message {
			nc = oc
		}
		out = append(out, *nc)
	}
	a, _ := json.Marshal(out)
	b, _ := json.Marshal(old)
	return out, !bytes.Equal(a, b)
}

// deleteOptionsBackground is the body of the controller's deletes.
var deleteOptionsBackground = []byte(`{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`)

const (
	// metadataAccept is what client-go's metadata client (the
	// controller's) accepts for a deletecollection: protobuf first.
	metadataAccept = "application/vnd.kubernetes.protobuf,application/json"
	// metadataListAccept asks for PartialObjectMetadataList. Upstream
	// puts the protobuf form first; aggsim's controller reads JSON.
	metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

// deleteResourceContent deletes the objects of r in ns and returns how
// many are left and their finalizers (upstream's
// deleteAllContentForGroupVersionResource).
func (c *namespaceController) deleteResourceContent(ctx context.Context, r nsResource, ns string) (int, map[string]int, error) {
	p := r.path(ns)
	collection := slices.Contains(r.verbs, "deletecollection")
	if collection {
		code, body, err := c.do(ctx, http.MethodDelete, p, metadataAccept, deleteOptionsBackground)
		if err != nil {
			return 0, nil, err
		}
		switch {
		case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
			collection = false
		case code >= 300:
			return 0, nil, statusErrorOf(code, body)
		}
	}
	if !slices.Contains(r.verbs, "list") {
		return 0, nil, nil
	}
	if !collection {
		items, err := c.list(ctx, p)
		if err != nil {
			return 0, nil, err
		}
		for _, it := range items {
			code, body, err := c.do(ctx, http.MethodDelete, p+"/"+url.PathEscape(it.Metadata.Name), metadataAccept, deleteOptionsBackground)
			if err != nil {
				return 0, nil, err
			}
			if code >= 300 && code != http.StatusNotFound {
				return 0, nil, statusErrorOf(code, body)
			}
		}
	}
	items, err := c.list(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	fins := map[string]int{}
	for _, it := range items {
		for _, f := range it.Metadata.Finalizers {
			fins[f]++
		}
	}
	return len(items), fins, nil
}

type listedItem struct {
	Metadata struct {
		Name       string   `json:"name"`
		Finalizers []string `json:"finalizers"`
	} `json:"metadata"`
}

// list returns the objects' metadata at collection path p; a 404 or 405
// is an empty list (list not supported).
func (c *namespaceController) list(ctx context.Context, p string) ([]listedItem, error) {
	code, body, err := c.do(ctx, http.MethodGet, p, metadataListAccept, nil)
	if err != nil {
		return nil, err
	}
	if code == http.StatusNotFound || code == http.StatusMethodNotAllowed {
		return nil, nil
	}
	if code != http.StatusOK {
		return nil, statusErrorOf(code, body)
	}
	var l struct {
		Items []listedItem `json:"items"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, fmt.Errorf("list %s: %w", p, err)
	}
	return l.Items, nil
}

// getNamespace returns the namespace, nil when it is gone.
func (c *namespaceController) getNamespace(ctx context.Context, name string) (*core.Namespace, error) {
	code, body, err := c.do(ctx, http.MethodGet, "/api/v1/namespaces/"+url.PathEscape(name), "application/json", nil)
	if err != nil {
		return nil, err
	}
	if code == http.StatusNotFound {
		return nil, nil
	}
	if code != http.StatusOK {
		return nil, statusErrorOf(code, body)
	}
	ns := &core.Namespace{}
	return ns, json.Unmarshal(body, ns)
}

// putNamespace writes ns to sub ("/status" or "/finalize") and returns
// the stored namespace, nil when it is gone (404, or deleted by the
// write: the response then is the deleted object, returned as is).
func (c *namespaceController) putNamespace(ctx context.Context, ns *core.Namespace, sub string) (*core.Namespace, error) {
	ns.APIVersion, ns.Kind = "v1", "Namespace"
	b, err := json.Marshal(ns)
	if err != nil {
		return nil, err
	}
	code, body, err := c.do(ctx, http.MethodPut, "/api/v1/namespaces/"+url.PathEscape(ns.Name)+sub, "application/json", b)
	if err != nil {
		return nil, err
	}
	if code == http.StatusNotFound {
		return nil, nil
	}
	if code != http.StatusOK {
		return nil, statusErrorOf(code, body)
	}
	out := &core.Namespace{}
	return out, json.Unmarshal(body, out)
}

// namespaceControllerClient is the controller's client: requests through
// chain (the server's handler chain) as the controller's user, with
// kube-controller-manager's user agent.
func namespaceControllerClient(chain http.Handler) loopback {
	return loopback{api: chain, user: &namespaceControllerIdentity, userAgent: namespaceControllerUserAgent}
}

// do sends one request through the server's handler chain as the
// controller and returns the status code and body.
func (c *namespaceController) do(ctx context.Context, method, path, accept string, body []byte) (int, []byte, error) {
	contentType := ""
	if body != nil {
		contentType = "application/json"
	}
	return c.client.send(ctx, method, path, "", contentType, accept, body)
}

// namespaceControllerUserAgent is kube-controller-manager's user agent
// for the controller's client ("<binary>/<version> (<os>/<arch>)
// kubernetes/<commit>/<controller>").
var namespaceControllerUserAgent = fmt.Sprintf("kube-controller-manager/%s (%s/%s) kubernetes/aggsim/namespace-controller", KubeVersion, runtime.GOOS, runtime.GOARCH)

// statusErrorOf turns a failed answer into an error whose text is what
// client-go prints: the Status message (decoded from protobuf if need
// be), else a generic text.
func statusErrorOf(code int, body []byte) error {
	if bytes.HasPrefix(body, []byte("k8s\x00")) {
		if j, _, _, err := rest.DecodeProtobufToJSON(body); err == nil {
			body = j
		}
	}
	var st meta.Status
	if err := json.Unmarshal(body, &st); err == nil && st.Kind == "Status" && st.Message != "" {
		return &meta.StatusError{Status: st}
	}
	return fmt.Errorf("the server responded with the status code %d but did not return more information", code)
}

// nsQueue is a work queue of namespace names: an item is handed to one
// worker at a time, re-added items wait for the running sync, and failures
// back off exponentially (nsRetryBase doubling up to nsRetryMax).
type nsQueue struct {
	mu         sync.Mutex
	due        map[string]time.Time
	processing map[string]bool
	failures   map[string]int
	changed    chan struct{} // closed (and replaced) on every change
	closed     bool
}

func newNSQueue() *nsQueue {
	return &nsQueue{due: map[string]time.Time{}, processing: map[string]bool{}, failures: map[string]int{}, changed: make(chan struct{})}
}

// broadcastLocked wakes every waiting worker.
func (q *nsQueue) broadcastLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// add schedules name after d (an earlier schedule wins).
func (q *nsQueue) add(name string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	at := time.Now().Add(d)
	if t, ok := q.due[name]; !ok || at.Before(t) {
		q.due[name] = at
	}
	q.broadcastLocked()
}

// get blocks until an item is due and not being processed; false once
// the queue is shut down.
func (q *nsQueue) get() (string, bool) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return "", false
		}
		var next string
		var at time.Time
		for n, t := range q.due {
			if q.processing[n] {
				continue
			}
			if next == "" || t.Before(at) {
				next, at = n, t
			}
		}
		wait := time.Hour
		if next != "" {
			wait = time.Until(at)
			if wait <= 0 {
				delete(q.due, next)
				q.processing[next] = true
				q.mu.Unlock()
				return next, true
			}
		}
		changed := q.changed
		q.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// done ends the processing of name: after < 0 means it failed (retry with
// back-off), > 0 re-queues it after that long, 0 forgets its failures.
func (q *nsQueue) done(name string, after time.Duration) {
	q.mu.Lock()
	delete(q.processing, name)
	if after < 0 {
		n := q.failures[name]
		q.failures[name] = n + 1
		after = min(nsRetryBase<<min(n, 20), nsRetryMax)
	} else {
		delete(q.failures, name)
	}
	q.mu.Unlock()
	if after > 0 {
		q.add(name, after)
		return
	}
	q.mu.Lock()
	if !q.closed {
		q.broadcastLocked() // an item re-added meanwhile may now be taken
	}
	q.mu.Unlock()
}

func (q *nsQueue) shutdown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		q.broadcastLocked()
	}
}

// errorTexts returns the messages of errs, for aggregateMessage.
func errorTexts(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}
