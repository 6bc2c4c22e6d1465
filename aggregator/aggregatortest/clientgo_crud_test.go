package aggregatortest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// Issue 2 ("A client-go dynamic client test does the same CRUD + watch
// in-process"): client-go's dynamic client against the whole aggsim server
// (filters, router, registry, availability controller), over TLS with the
// admin client certificate of the generated kubeconfig.

var (
	cgAPIServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	cgNamespacesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	cgConfigMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cgServicesGVR    = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	cgEndpointsGVR   = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
)

// cgWait bounds every wait of these tests (a watch event, a controller's
// status write); it is a deadline for failing, not a timing assertion.
const cgWait = 10 * time.Second

// cgRESTConfig turns srv's kubeconfig into a client-go rest.Config, as a
// user's program would load it, without client-go's client-side rate
// limit (5 QPS by default), which would only slow the tests down.
func cgRESTConfig(t testing.TB, srv *aggregatortest.Server) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	return cfg
}

func cgDynamic(t testing.TB, srv *aggregatortest.Server) *dynamic.DynamicClient {
	t.Helper()
	dc, err := dynamic.NewForConfig(cgRESTConfig(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// cgAPIService builds an APIService for version.group routed to Service
// nosuch/api, which never exists: the availability controller marks it
// Available=False ServiceNotFound once and has no reason to write again.
func cgAPIService(version, group string, labels map[string]string) *unstructured.Unstructured {
	l := map[string]any{}
	for k, v := range labels {
		l[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": version + "." + group, "labels": l},
		"spec": map[string]any{
			"group":                group,
			"version":              version,
			"groupPriorityMinimum": int64(1000),
			"versionPriority":      int64(15),
			"service":              map[string]any{"namespace": "nosuch", "name": "api"},
		},
	}}
}

// cgStatusOf returns the metav1.Status client-go decoded from a failed
// request, failing the test when err is not an API error.
func cgStatusOf(t testing.TB, what string, err error) metav1.Status {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded; want an error", what)
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		t.Fatalf("%s: %T %v is not an API status error", what, err, err)
	}
	return st.Status()
}

// cgWantError asserts that err is an API error with exactly code, reason
// and message.
func cgWantError(t testing.TB, what string, err error, code int32, reason metav1.StatusReason, message string) {
	t.Helper()
	st := cgStatusOf(t, what, err)
	if st.Code != code || st.Reason != reason || st.Message != message || st.Status != metav1.StatusFailure {
		t.Errorf("%s:\n got %d %s %q (status %q)\nwant %d %s %q (status Failure)", what, st.Code, st.Reason, st.Message, st.Status, code, reason, message)
	}
}

// cgConflictMessage is apierrors.NewConflict's message for a stale
// resourceVersion.
func cgConflictMessage(resource, name string) string {
	return fmt.Sprintf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", resource, name)
}

func cgNames(items []unstructured.Unstructured) []string {
	names := []string{}
	for _, it := range items {
		names = append(names, it.GetName())
	}
	return names
}

func cgRV(t testing.TB, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q is not an integer: %v", rv, err)
	}
	return n
}

// cgEvent is the part of a watch event the tests compare.
type cgEvent struct {
	Type watch.EventType
	Name string
	RV   string
}

func (e cgEvent) String() string { return fmt.Sprintf("%s %s@%s", e.Type, e.Name, e.RV) }

func cgEventOf(t testing.TB, ev watch.Event) (cgEvent, *unstructured.Unstructured) {
	t.Helper()
	u, ok := ev.Object.(*unstructured.Unstructured)
	if !ok {
		if st, ok := ev.Object.(*metav1.Status); ok {
			t.Fatalf("watch event %s carries Status %d %s %q", ev.Type, st.Code, st.Reason, st.Message)
		}
		t.Fatalf("watch event %s carries %T", ev.Type, ev.Object)
	}
	return cgEvent{Type: ev.Type, Name: u.GetName(), RV: u.GetResourceVersion()}, u
}

// cgCollect reads w until last returns true for an event (which is
// included), failing when the channel closes or cgWait passes first.
func cgCollect(t testing.TB, w watch.Interface, last func(cgEvent) bool) ([]cgEvent, []*unstructured.Unstructured) {
	t.Helper()
	var evs []cgEvent
	var objs []*unstructured.Unstructured
	timer := time.NewTimer(cgWait)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", evs)
			}
			e, u := cgEventOf(t, ev)
			evs = append(evs, e)
			objs = append(objs, u)
			if last(e) {
				return evs, objs
			}
		case <-timer.C:
			t.Fatalf("no final watch event within %s; got %v", cgWait, evs)
		}
	}
}

// cgWantIncreasing asserts that the events' resourceVersions strictly
// increase.
func cgWantIncreasing(t testing.TB, evs []cgEvent) {
	t.Helper()
	for i := 1; i < len(evs); i++ {
		if cgRV(t, evs[i].RV) <= cgRV(t, evs[i-1].RV) {
			t.Errorf("watch resourceVersions do not increase: %v", evs)
			return
		}
	}
}

// cgPoll calls cond every few milliseconds until it returns true, failing
// the test after cgWait.
func cgPoll(t testing.TB, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(cgWait)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, cgWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func cgConditions(t testing.TB, u *unstructured.Unstructured) []any {
	t.Helper()
	conds, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil {
		t.Fatalf("status.conditions of %s: %v", u.GetName(), err)
	}
	return conds
}

// cgCondition returns "type=status reason" of each condition.
func cgCondition(t testing.TB, u *unstructured.Unstructured) []string {
	t.Helper()
	var out []string
	for _, c := range cgConditions(t, u) {
		m := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v=%v %v", m["type"], m["status"], m["reason"]))
	}
	return out
}

func cgInt(t testing.TB, u *unstructured.Unstructured, fields ...string) int64 {
	t.Helper()
	v, ok, err := unstructured.NestedInt64(u.Object, fields...)
	if err != nil || !ok {
		t.Fatalf("%s of %s: found=%v %v", strings.Join(fields, "."), u.GetName(), ok, err)
	}
	return v
}

// TestClientGoAPIServiceCRUD drives apiservices through every verb with
// the dynamic client. Invariants checked:
//   - create sets uid, resourceVersion and defaults, and no generation (an
//     APIService has none in kube-apiserver 1.33)
//     (spec.service.port 443), clears status, honours generateName (and
//     then validates the generated name as upstream does);
//   - get/list (labelSelector, fieldSelector metadata.name, limit and
//     continue over one snapshot) return what was written;
//   - a stale update is 409 with upstream's message; writes to the main
//     resource keep status, writes to /status keep spec, and no write sets
//     a generation;
//   - merge, JSON and strategic-merge (conditions merged by type) patches
//     and server-side apply have upstream's semantics;
//   - delete with a wrong UID precondition is 409; deletecollection
//     removes exactly the selected objects;
//   - a watch started first sees ADDED, every MODIFIED and DELETED in
//     write order with strictly increasing resourceVersions, and a watch
//     resumed from a resourceVersion sees only the later events.
func TestClientGoAPIServiceCRUD(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	apis := cgDynamic(t, srv).Resource(cgAPIServicesGVR)
	const name = "v1.crud.example.com"
	const resource = "apiservices.apiregistration.k8s.io"

	w, err := apis.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// writes lists, in order, every event the watch must deliver for name:
	// our writes and the availability controller's first status write.
	var writes []cgEvent
	wrote := func(typ watch.EventType, u *unstructured.Unstructured) {
		writes = append(writes, cgEvent{Type: typ, Name: name, RV: u.GetResourceVersion()})
	}

	// Create.
	created, err := apis.Create(ctx, cgAPIService("v1", "crud.example.com", map[string]string{"test": "crud", "tier": "front"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Added, created)
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 0 || created.GetCreationTimestamp().Time.IsZero() {
		t.Errorf("created: uid %q resourceVersion %q generation %d creationTimestamp %v", created.GetUID(), created.GetResourceVersion(), created.GetGeneration(), created.GetCreationTimestamp())
	}
	if port := cgInt(t, created, "spec", "service", "port"); port != 443 {
		t.Errorf("spec.service.port defaulted to %d; want 443", port)
	}
	if conds := cgConditions(t, created); len(conds) != 0 {
		t.Errorf("created with status.conditions %v; create clears status", conds)
	}

	// A duplicate is 409 AlreadyExists, as captured (d-validation/duplicate-create).
	_, err = apis.Create(ctx, cgAPIService("v1", "crud.example.com", nil), metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		t.Errorf("duplicate create: %v; want AlreadyExists", err)
	}
	cgWantError(t, "duplicate create", err, 409, metav1.StatusReasonAlreadyExists, resource+` "`+name+`" already exists`)
	if st := cgStatusOf(t, "duplicate create", err); st.Details == nil || st.Details.Name != name || st.Details.Group != "apiregistration.k8s.io" || st.Details.Kind != "apiservices" {
		t.Errorf("duplicate create details %+v", st.Details)
	}

	// generateName is honoured: five random characters are appended and
	// the result is validated, so for an APIService (whose name must be
	// <version>.<group>) it is refused with the generated name.
	gen := cgAPIService("v1", "gen.example.com", nil)
	gen.SetName("")
	gen.SetGenerateName("v1.gen.example.com")
	_, err = apis.Create(ctx, gen, metav1.CreateOptions{})
	st := cgStatusOf(t, "create with generateName", err)
	genRE := regexp.MustCompile("^APIService.apiregistration.k8s.io \"(v1.gen.example.com[bcdfghjklmnpqrstvwxz2456789]{5})\" is invalid: metadata.name: Invalid value: \"(v1.gen.example.com[bcdfghjklmnpqrstvwxz2456789]{5})\": must be `spec.version\\+\".\"\\+spec.group`: \"v1.gen.example.com\"$")
	if m := genRE.FindStringSubmatch(st.Message); st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || m == nil || m[1] != m[2] {
		t.Errorf("create with generateName: %d %s %q; want 422 Invalid matching %s", st.Code, st.Reason, st.Message, genRE)
	}

	// The availability controller writes status once (the Service is
	// missing); wait for it so that later expectations are exact.
	var cur *unstructured.Unstructured
	cgPoll(t, "availability condition on "+name, func() (bool, error) {
		u, err := apis.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cur = u
		return len(cgConditions(t, u)) > 0, nil
	})
	wrote(watch.Modified, cur)
	if got, want := cgCondition(t, cur), []string{"Available=False ServiceNotFound"}; !reflect.DeepEqual(got, want) {
		t.Errorf("conditions %q; want %q", got, want)
	}
	if msg := cgConditions(t, cur)[0].(map[string]any)["message"]; msg != `service/api in "nosuch" is not present` {
		t.Errorf("Available message %q", msg)
	}
	if cur.GetGeneration() != 0 {
		t.Errorf("generation %d after a status write; want none", cur.GetGeneration())
	}

	// Get returns the stored object.
	got, err := apis.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Object, cur.Object) {
		t.Errorf("get:\n got %v\nwant %v", got.Object, cur.Object)
	}

	// Update with the resourceVersion of create is stale: 409.
	stale := created.DeepCopy()
	_ = unstructured.SetNestedField(stale.Object, int64(20), "spec", "versionPriority")
	_, err = apis.Update(ctx, stale, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v; want Conflict", err)
	}
	cgWantError(t, "stale update", err, 409, metav1.StatusReasonConflict, cgConflictMessage(resource, name))

	// Update: spec changes and generation moves; status sent with it is
	// ignored.
	upd := cur.DeepCopy()
	_ = unstructured.SetNestedField(upd.Object, int64(20), "spec", "versionPriority")
	_ = unstructured.SetNestedSlice(upd.Object, []any{map[string]any{"type": "Available", "status": "True", "reason": "Faked"}}, "status", "conditions")
	updated, err := apis.Update(ctx, upd, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Modified, updated)
	if vp := cgInt(t, updated, "spec", "versionPriority"); vp != 20 || updated.GetGeneration() != 0 {
		t.Errorf("update: versionPriority %d generation %d; want 20 and none", vp, updated.GetGeneration())
	}
	if !reflect.DeepEqual(cgConditions(t, updated), cgConditions(t, cur)) {
		t.Errorf("update changed status: %v; want %v", cgConditions(t, updated), cgConditions(t, cur))
	}

	// Merge patch: a label; metadata does not move generation.
	merged, err := apis.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"merge"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Modified, merged)
	if want := map[string]string{"test": "crud", "tier": "front", "patched": "merge"}; !reflect.DeepEqual(merged.GetLabels(), want) || merged.GetGeneration() != 0 {
		t.Errorf("merge patch: labels %v generation %d; want %v and none", merged.GetLabels(), merged.GetGeneration(), want)
	}

	// JSON patch with a passing test op.
	jp := `[{"op":"test","path":"/spec/versionPriority","value":20},{"op":"replace","path":"/spec/groupPriorityMinimum","value":2000}]`
	jpatched, err := apis.Patch(ctx, name, types.JSONPatchType, []byte(jp), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Modified, jpatched)
	if gpm := cgInt(t, jpatched, "spec", "groupPriorityMinimum"); gpm != 2000 || jpatched.GetGeneration() != 0 {
		t.Errorf("json patch: groupPriorityMinimum %d generation %d; want 2000 and none", gpm, jpatched.GetGeneration())
	}

	// Strategic merge patch on /status: conditions merge by type (a merge
	// patch would replace the list), and the spec in the patch is ignored.
	smp := `{"spec":{"versionPriority":99},"status":{"conditions":[{"type":"Custom","status":"True","reason":"Tested","message":"by client-go","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}`
	statusPatched, err := apis.Patch(ctx, name, types.StrategicMergePatchType, []byte(smp), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Modified, statusPatched)
	// kube-apiserver 1.33.13 puts the patch's new condition first (kubectl
	// patch apiservice --subresource=status --type=strategic: "Custom
	// Available"), as strategicpatch orders merged lists.
	if got, want := cgCondition(t, statusPatched), []string{"Custom=True Tested", "Available=False ServiceNotFound"}; !reflect.DeepEqual(got, want) {
		t.Errorf("strategic merge patch on status: conditions %q; want %q", got, want)
	}
	if vp := cgInt(t, statusPatched, "spec", "versionPriority"); vp != 20 || statusPatched.GetGeneration() != 0 {
		t.Errorf("status patch changed spec: versionPriority %d generation %d; want 20 and none", vp, statusPatched.GetGeneration())
	}

	// UpdateStatus: status changes, spec in the body is ignored.
	us := statusPatched.DeepCopy()
	conds := cgConditions(t, us)
	conds[0].(map[string]any)["status"] = "False"
	_ = unstructured.SetNestedSlice(us.Object, conds, "status", "conditions")
	_ = unstructured.SetNestedField(us.Object, int64(77), "spec", "versionPriority")
	statusUpdated, err := apis.UpdateStatus(ctx, us, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Modified, statusUpdated)
	if got, want := cgCondition(t, statusUpdated), []string{"Custom=False Tested", "Available=False ServiceNotFound"}; !reflect.DeepEqual(got, want) {
		t.Errorf("UpdateStatus: conditions %q; want %q", got, want)
	}
	if vp := cgInt(t, statusUpdated, "spec", "versionPriority"); vp != 20 {
		t.Errorf("UpdateStatus changed spec.versionPriority to %d", vp)
	}

	// Server-side apply by a field manager.
	applyCfg := cgAPIService("v1", "crud.example.com", map[string]string{"applied": "yes"})
	_ = unstructured.SetNestedField(applyCfg.Object, int64(2000), "spec", "groupPriorityMinimum")
	_ = unstructured.SetNestedField(applyCfg.Object, int64(30), "spec", "versionPriority")
	applied, err := apis.Apply(ctx, name, applyCfg, metav1.ApplyOptions{FieldManager: "crud-apply", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	wrote(watch.Modified, applied)
	if vp := cgInt(t, applied, "spec", "versionPriority"); vp != 30 || applied.GetGeneration() != 0 {
		t.Errorf("apply: versionPriority %d generation %d; want 30 and none", vp, applied.GetGeneration())
	}
	if want := map[string]string{"test": "crud", "tier": "front", "patched": "merge", "applied": "yes"}; !reflect.DeepEqual(applied.GetLabels(), want) {
		t.Errorf("apply: labels %v; want %v (labels of other managers stay)", applied.GetLabels(), want)
	}
	var applyEntry *metav1.ManagedFieldsEntry
	for _, e := range applied.GetManagedFields() {
		if e.Manager == "crud-apply" {
			applyEntry = &e
		}
	}
	if applyEntry == nil || applyEntry.Operation != metav1.ManagedFieldsOperationApply || applyEntry.APIVersion != "apiregistration.k8s.io/v1" || applyEntry.FieldsType != "FieldsV1" || applyEntry.Subresource != "" {
		t.Errorf("apply: managedFields entry of crud-apply %+v in %+v", applyEntry, applied.GetManagedFields())
	}
	// Another manager applying a different value for a field crud-apply
	// owns, without force, conflicts (structured-merge-diff's message).
	t.Run("apply conflict", func(t *testing.T) {
		other := applyCfg.DeepCopy()
		_ = unstructured.SetNestedField(other.Object, int64(31), "spec", "versionPriority")
		_, err := apis.Apply(ctx, name, other, metav1.ApplyOptions{FieldManager: "other-apply"})
		cgWantError(t, "apply without force", err, 409, metav1.StatusReasonConflict,
			`Apply failed with 1 conflict: conflict with "crud-apply": .spec.versionPriority`)
		st := cgStatusOf(t, "apply without force", err)
		wantCauses := []metav1.StatusCause{{Type: "FieldManagerConflict", Message: `conflict with "crud-apply"`, Field: ".spec.versionPriority"}}
		if st.Details == nil || !reflect.DeepEqual(st.Details.Causes, wantCauses) {
			t.Errorf("apply without force: details %+v; want causes %+v", st.Details, wantCauses)
		}
	})

	// Apply also creates.
	newApplied, err := apis.Apply(ctx, "v1.applied.example.com", cgAPIService("v1", "applied.example.com", nil), metav1.ApplyOptions{FieldManager: "crud-apply"})
	if err != nil {
		t.Fatal(err)
	}
	if newApplied.GetGeneration() != 0 || newApplied.GetUID() == "" {
		t.Errorf("apply (create): generation %d uid %q", newApplied.GetGeneration(), newApplied.GetUID())
	}

	// More objects for list, paging and deletecollection.
	for _, o := range []struct{ version, group, tier string }{
		{"v1", "p1.example.com", "front"}, {"v1", "p2.example.com", "front"},
		{"v1", "p3.example.com", "back"}, {"v1beta1", "p1.example.com", "back"},
	} {
		if _, err := apis.Create(ctx, cgAPIService(o.version, o.group, map[string]string{"test": "crud", "tier": o.tier}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	all := []string{name, "v1.p1.example.com", "v1.p2.example.com", "v1.p3.example.com", "v1beta1.p1.example.com"}

	list, err := apis.List(ctx, metav1.ListOptions{LabelSelector: "test=crud,tier=front"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cgNames(list.Items), []string{name, "v1.p1.example.com", "v1.p2.example.com"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list test=crud,tier=front: %q; want %q", got, want)
	}
	if list.GetResourceVersion() == "" || list.GetKind() != "APIServiceList" {
		t.Errorf("list: kind %q resourceVersion %q", list.GetKind(), list.GetResourceVersion())
	}
	list, err = apis.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=v1.p2.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cgNames(list.Items), []string{"v1.p2.example.com"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list metadata.name=v1.p2.example.com: %q; want %q", got, want)
	}
	list, err = apis.List(ctx, metav1.ListOptions{LabelSelector: "tier!=front,test", FieldSelector: "metadata.name!=v1.p3.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cgNames(list.Items), []string{"v1beta1.p1.example.com"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list tier!=front,test and metadata.name!=v1.p3.example.com: %q; want %q", got, want)
	}

	// limit and continue: pages of 2, 2 and 1 in name order, all at the
	// first page's resourceVersion (one snapshot), the last without a
	// continue token. With a label selector remainingItemCount is unset.
	var pages [][]string
	var pageRVs []string
	opts := metav1.ListOptions{LabelSelector: "test=crud", Limit: 2}
	for range 5 {
		page, err := apis.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, cgNames(page.Items))
		pageRVs = append(pageRVs, page.GetResourceVersion())
		if page.GetRemainingItemCount() != nil {
			t.Errorf("page %d: remainingItemCount %d with a label selector; upstream leaves it unset", len(pages), *page.GetRemainingItemCount())
		}
		if page.GetContinue() == "" {
			break
		}
		opts.Continue = page.GetContinue()
	}
	if want := [][]string{all[:2], all[2:4], all[4:]}; !reflect.DeepEqual(pages, want) {
		t.Errorf("pages %q; want %q", pages, want)
	}
	for _, rv := range pageRVs {
		if rv != pageRVs[0] {
			t.Errorf("page resourceVersions %q; want all equal (one snapshot)", pageRVs)
			break
		}
	}
	// Without a selector the first page counts what is left.
	page, err := apis.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	full, err := apis.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rc := page.GetRemainingItemCount(); len(page.Items) != 1 || rc == nil || *rc != int64(len(full.Items)-1) {
		t.Errorf("limit=1 without selector: %d items, remainingItemCount %v; want 1 and %d", len(page.Items), rc, len(full.Items)-1)
	}

	// deletecollection by label removes exactly tier=back.
	if err := apis.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "tier=back"}); err != nil {
		t.Fatal(err)
	}
	list, err = apis.List(ctx, metav1.ListOptions{LabelSelector: "test=crud"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cgNames(list.Items), all[:3]; !reflect.DeepEqual(got, want) {
		t.Errorf("after deletecollection tier=back: %q; want %q", got, want)
	}

	// Delete with a wrong UID precondition is 409; with the right one it
	// deletes.
	wrongUID := types.UID("00000000-0000-0000-0000-000000000000")
	err = apis.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}})
	// kube-apiserver 1.33.13 names the kind (curl -X DELETE
	// .../apiservices/<name> -d '{"preconditions":{"uid":"0000..."}}').
	cgWantError(t, "delete with a wrong uid", err, 409, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on APIService.apiregistration.k8s.io %q: the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", name, wrongUID, created.GetUID()))
	uid := created.GetUID()
	if err := apis.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil {
		t.Fatal(err)
	}
	_, err = apis.Get(ctx, name, metav1.GetOptions{})
	cgWantError(t, "get after delete", err, 404, metav1.StatusReasonNotFound, resource+` "`+name+`" not found`)

	// The watch saw every write in order, then DELETED.
	evs, objs := cgCollect(t, w, func(e cgEvent) bool { return e.Type == watch.Deleted })
	cgWantIncreasing(t, evs)
	var ours []cgEvent
	want := map[string]bool{}
	for _, e := range writes {
		want[e.RV] = true
	}
	for i, e := range evs {
		if want[e.RV] || e.Type == watch.Deleted {
			ours = append(ours, e)
			continue
		}
		// Anything else may only be a status-only write of the
		// availability controller.
		if e.Type != watch.Modified || i == 0 || !reflect.DeepEqual(objs[i].Object["spec"], objs[i-1].Object["spec"]) {
			t.Errorf("unexpected watch event %v", e)
		}
		t.Logf("extra status-only event %v", e)
	}
	if len(ours) != len(writes)+1 || !reflect.DeepEqual(ours[:len(ours)-1], writes) {
		t.Errorf("watch events:\n got %v\nwant %v then DELETED", ours, writes)
	}
	if last := ours[len(ours)-1]; last.Type != watch.Deleted || cgRV(t, last.RV) <= cgRV(t, writes[len(writes)-1].RV) {
		t.Errorf("last event %v; want DELETED after %v", last, writes[len(writes)-1])
	}

	// A watch resumed at the merge patch's resourceVersion replays only
	// what came after it.
	from := 3 // writes[3] is the merge patch
	if writes[from].RV != merged.GetResourceVersion() {
		t.Fatalf("writes[%d] = %v; want the merge patch", from, writes[from])
	}
	rw, err := apis.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: merged.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Stop()
	revs, _ := cgCollect(t, rw, func(e cgEvent) bool { return e.Type == watch.Deleted })
	var rours []cgEvent
	for _, e := range revs {
		if want[e.RV] || e.Type == watch.Deleted {
			rours = append(rours, e)
		}
	}
	if wantResumed := append(append([]cgEvent{}, writes[from+1:]...), ours[len(ours)-1]); !reflect.DeepEqual(rours, wantResumed) {
		t.Errorf("resumed watch:\n got %v\nwant %v", rours, wantResumed)
	}
	cgWantIncreasing(t, revs)
	if len(revs) > 0 && cgRV(t, revs[0].RV) <= cgRV(t, merged.GetResourceVersion()) {
		t.Errorf("resumed watch starts at %v, not after %s", revs[0], merged.GetResourceVersion())
	}

	t.Run("410 Expired", func(t *testing.T) {
		t.Skip("not reachable here: the test server's memory store keeps at least storage.DefaultWatchWindow (10,000) events, " +
			"up to ten times as many for five minutes, and aggregatortest cannot shrink the window")
	})
}

// TestClientGoInvalidAPIService checks that client-go decodes the 422
// Status of an invalid APIService exactly as kube-apiserver 1.33 sent it
// (captured in testdata/registry-types/d-validation/gpm-0-and-vp-0.json).
func TestClientGoInvalidAPIService(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	apis := cgDynamic(t, srv).Resource(cgAPIServicesGVR)
	raw, err := os.ReadFile("../../testdata/registry-types/d-validation/gpm-0-and-vp-0.json")
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile("../../testdata/registry-types/backend-ca.b64")
	if err != nil {
		t.Fatal(err)
	}
	raw = []byte(strings.ReplaceAll(string(raw), "<base64 backend-ca.crt>", strings.TrimSpace(string(ca))))
	var c struct {
		Request    map[string]any `json:"request"`
		HTTPStatus int32          `json:"httpStatus"`
		Response   metav1.Status  `json:"response"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	_, err = apis.Create(t.Context(), &unstructured.Unstructured{Object: c.Request}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("create: %v; want Invalid", err)
	}
	got := cgStatusOf(t, "create invalid APIService", err)
	// client-go fills TypeMeta of a decoded Status; the capture has it too.
	if !reflect.DeepEqual(got, c.Response) || got.Code != c.HTTPStatus {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.Response)
		t.Errorf("422 Status:\n got %s\nwant %s", gj, wj)
	}
}

// cgCoreCase is one core/v1 resource driven through create, get, list,
// update (fresh and stale), delete and watch.
type cgCoreCase struct {
	name      string
	gvr       schema.GroupVersionResource
	namespace string // "" for namespaces
	resource  string // in messages: "configmaps"
	obj       func(name string) *unstructured.Unstructured
	mutate    func(u *unstructured.Unstructured)
	// check looks at the created object's defaults.
	check func(t *testing.T, created *unstructured.Unstructured)
}

func cgCoreObject(kind, namespace, name string, fields map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name, "labels": map[string]any{"test": "core-" + strings.ToLower(kind)}}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	obj := map[string]any{"apiVersion": "v1", "kind": kind, "metadata": meta}
	for k, v := range fields {
		obj[k] = v
	}
	return &unstructured.Unstructured{Object: obj}
}

// TestClientGoCoreCRUD drives namespaces, configmaps, services and
// endpoints through create, get, list (labelSelector, fieldSelector),
// update, stale update (409), delete and watch; checks generateName on a
// configmap and the 404 for an object in a missing namespace. Invariant:
// each watch, started before the changes, sees ADDED, MODIFIED, DELETED
// with exactly the resourceVersions the writes returned, increasing.
func TestClientGoCoreCRUD(t *testing.T) {
	t.Parallel()
	srv := aggregatortest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dc := cgDynamic(t, srv)
	const ns = "crud-core"
	if _, err := dc.Resource(cgNamespacesGVR).Create(ctx, cgCoreObject("Namespace", "", ns, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cases := []cgCoreCase{{
		name: "ns-watched", gvr: cgNamespacesGVR, resource: "namespaces",
		obj:    func(n string) *unstructured.Unstructured { return cgCoreObject("Namespace", "", n, nil) },
		mutate: func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"changed": "yes"}) },
		check: func(t *testing.T, u *unstructured.Unstructured) {
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			fin, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "finalizers")
			if phase != "Active" || !reflect.DeepEqual(fin, []string{"kubernetes"}) || u.GetLabels()["kubernetes.io/metadata.name"] != u.GetName() {
				t.Errorf("namespace: phase %q finalizers %q labels %v", phase, fin, u.GetLabels())
			}
		},
	}, {
		name: "cm1", gvr: cgConfigMapsGVR, namespace: ns, resource: "configmaps",
		obj: func(n string) *unstructured.Unstructured {
			return cgCoreObject("ConfigMap", ns, n, map[string]any{"data": map[string]any{"a": "1"}})
		},
		mutate: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"a": "2", "b": "3"}, "data")
		},
	}, {
		name: "svc1", gvr: cgServicesGVR, namespace: ns, resource: "services",
		obj: func(n string) *unstructured.Unstructured {
			return cgCoreObject("Service", ns, n, map[string]any{"spec": map[string]any{
				"ports": []any{map[string]any{"name": "https", "port": int64(443)}},
			}})
		},
		mutate: func(u *unstructured.Unstructured) {
			ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
			ports[0].(map[string]any)["targetPort"] = int64(8443)
			_ = unstructured.SetNestedSlice(u.Object, ports, "spec", "ports")
		},
		check: func(t *testing.T, u *unstructured.Unstructured) {
			typ, _, _ := unstructured.NestedString(u.Object, "spec", "type")
			ip, _, _ := unstructured.NestedString(u.Object, "spec", "clusterIP")
			ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
			want := []any{map[string]any{"name": "https", "port": int64(443), "protocol": "TCP", "targetPort": int64(443)}}
			if typ != "ClusterIP" || !strings.HasPrefix(ip, "10.") || !reflect.DeepEqual(ports, want) {
				t.Errorf("service defaults: type %q clusterIP %q ports %v; want ClusterIP, 10.x, %v", typ, ip, ports, want)
			}
		},
	}, {
		name: "svc1", gvr: cgEndpointsGVR, namespace: ns, resource: "endpoints",
		obj: func(n string) *unstructured.Unstructured {
			return cgCoreObject("Endpoints", ns, n, map[string]any{"subsets": []any{map[string]any{
				"addresses": []any{map[string]any{"ip": "127.0.0.1"}},
				"ports":     []any{map[string]any{"name": "https", "port": int64(8443)}},
			}}})
		},
		mutate: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{
				"addresses": []any{map[string]any{"ip": "127.0.0.1"}, map[string]any{"ip": "::1"}},
				"ports":     []any{map[string]any{"name": "https", "port": int64(9443)}},
			}}, "subsets")
		},
		check: func(t *testing.T, u *unstructured.Unstructured) {
			ports, _, _ := unstructured.NestedSlice(u.Object, "subsets")
			want := []any{map[string]any{
				"addresses": []any{map[string]any{"ip": "127.0.0.1"}},
				"ports":     []any{map[string]any{"name": "https", "port": int64(8443), "protocol": "TCP"}},
			}}
			if !reflect.DeepEqual(ports, want) {
				t.Errorf("endpoints subsets %v; want %v", ports, want)
			}
		},
	}}
	for _, c := range cases {
		t.Run(c.resource, func(t *testing.T) {
			var res dynamic.ResourceInterface = dc.Resource(c.gvr)
			if c.namespace != "" {
				res = dc.Resource(c.gvr).Namespace(c.namespace)
			}
			w, err := res.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + c.name})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()

			created, err := res.Create(ctx, c.obj(c.name), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if created.GetUID() == "" || created.GetNamespace() != c.namespace || created.GetCreationTimestamp().Time.IsZero() {
				t.Errorf("created: uid %q namespace %q creationTimestamp %v", created.GetUID(), created.GetNamespace(), created.GetCreationTimestamp())
			}
			if c.check != nil {
				c.check(t, created)
			}
			got, err := res.Get(ctx, c.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Object, created.Object) {
				t.Errorf("get:\n got %v\nwant %v", got.Object, created.Object)
			}
			list, err := res.List(ctx, metav1.ListOptions{LabelSelector: "test=" + created.GetLabels()["test"]})
			if err != nil {
				t.Fatal(err)
			}
			wantNames := []string{c.name}
			if c.gvr == cgNamespacesGVR {
				wantNames = []string{ns, c.name} // both carry test=core-namespace
			}
			if got := cgNames(list.Items); !reflect.DeepEqual(got, wantNames) {
				t.Errorf("list by label: %q; want %q", got, wantNames)
			}
			list, err = res.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + c.name})
			if err != nil {
				t.Fatal(err)
			}
			if got := cgNames(list.Items); !reflect.DeepEqual(got, []string{c.name}) {
				t.Errorf("list by metadata.name: %q", got)
			}

			upd := got.DeepCopy()
			c.mutate(upd)
			updated, err := res.Update(ctx, upd, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if updated.GetResourceVersion() == created.GetResourceVersion() {
				t.Errorf("update kept resourceVersion %s", created.GetResourceVersion())
			}
			_, err = res.Update(ctx, upd, metav1.UpdateOptions{}) // upd carries created's resourceVersion
			cgWantError(t, "stale update", err, 409, metav1.StatusReasonConflict, cgConflictMessage(c.resource, c.name))

			// A namespace is marked Terminating and removed by the
			// namespace controller (MODIFIED events in between).
			if err := res.Delete(ctx, c.name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			evs, _ := cgCollect(t, w, func(e cgEvent) bool { return e.Type == watch.Deleted })
			_, err = res.Get(ctx, c.name, metav1.GetOptions{})
			cgWantError(t, "get after delete", err, 404, metav1.StatusReasonNotFound, c.resource+` "`+c.name+`" not found`)
			want := []cgEvent{
				{watch.Added, c.name, created.GetResourceVersion()},
				{watch.Modified, c.name, updated.GetResourceVersion()},
			}
			if c.resource == "namespaces" && len(evs) > 3 {
				evs = append(evs[:2:2], evs[len(evs)-1])
			}
			if len(evs) != 3 || !reflect.DeepEqual(evs[:2], want) {
				t.Errorf("watch events:\n got %v\nwant %v then DELETED", evs, want)
			}
			cgWantIncreasing(t, evs)
		})
	}

	t.Run("generateName", func(t *testing.T) {
		cms := dc.Resource(cgConfigMapsGVR).Namespace(ns)
		obj := cgCoreObject("ConfigMap", ns, "", nil)
		obj.SetGenerateName("cm-")
		created, err := cms.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^cm-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(created.GetName()) || created.GetGenerateName() != "cm-" {
			t.Errorf("generated name %q (generateName %q)", created.GetName(), created.GetGenerateName())
		}
		if _, err := cms.Get(ctx, created.GetName(), metav1.GetOptions{}); err != nil {
			t.Errorf("get generated: %v", err)
		}
		// Across namespaces, fieldSelector metadata.namespace picks this
		// one (cm1 is gone; kube-system's configmap is left out).
		list, err := dc.Resource(cgConfigMapsGVR).List(ctx, metav1.ListOptions{FieldSelector: "metadata.namespace=" + ns})
		if err != nil {
			t.Fatal(err)
		}
		if got := cgNames(list.Items); !reflect.DeepEqual(got, []string{created.GetName()}) {
			t.Errorf("configmaps with metadata.namespace=%s: %q; want %q", ns, got, created.GetName())
		}
	})

	t.Run("missing namespace", func(t *testing.T) {
		_, err := dc.Resource(cgConfigMapsGVR).Namespace("nosuch").Create(ctx, cgCoreObject("ConfigMap", "nosuch", "cm", nil), metav1.CreateOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("create in a missing namespace: %v; want NotFound", err)
		}
		cgWantError(t, "create in a missing namespace", err, 404, metav1.StatusReasonNotFound, `namespaces "nosuch" not found`)
		if st := cgStatusOf(t, "create in a missing namespace", err); st.Details == nil || st.Details.Name != "nosuch" || st.Details.Kind != "namespaces" || st.Details.Group != "" {
			t.Errorf("details %+v; want name nosuch kind namespaces", st.Details)
		}
	})
}
