package aggregatortest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// gcObj is the metadata of an object as the tests read it.
type gcObj struct {
	Metadata struct {
		Name              string                `json:"name"`
		UID               string                `json:"uid"`
		DeletionTimestamp *string               `json:"deletionTimestamp"`
		Finalizers        []string              `json:"finalizers"`
		OwnerReferences   []meta.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
}

// gcGet returns the object at path, nil on 404.
func gcGet(t *testing.T, srv *aggregatortest.Server, path string) *gcObj {
	t.Helper()
	code, b := nsReq(t, srv, http.MethodGet, path, "")
	if code == http.StatusNotFound {
		return nil
	}
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, b)
	}
	var o gcObj
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

// gcMergePatch sends a JSON merge patch as the admin; it must answer 200.
func gcMergePatch(t *testing.T, srv *aggregatortest.Server, path, patch string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPatch, srv.URL+path, strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := srv.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH %s: %s", path, resp.Status)
	}
}

// gcCreate creates object body at the collection path and returns its uid.
func gcCreate(t *testing.T, srv *aggregatortest.Server, path, body string) string {
	t.Helper()
	code, b := nsReq(t, srv, http.MethodPost, path, body)
	if code != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, code, b)
	}
	var o gcObj
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o.Metadata.UID
}

// cmWithOwners is a ConfigMap with the given ownerReferences JSON.
func cmWithOwners(name, refs string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","ownerReferences":` + refs + `},"data":{"k":"v"}}`
}

func cmRef(name, uid string, block bool) string {
	b := ""
	if block {
		b = `,"blockOwnerDeletion":true`
	}
	return `{"apiVersion":"v1","kind":"ConfigMap","name":"` + name + `","uid":"` + uid + `"` + b + `}`
}

// waitFor polls cond every 5 ms up to limit; it fails the test with what
// when cond never holds.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	d, ok := waitNS(t, limit, cond)
	if !ok {
		t.Fatalf("not within %v: %s", limit, what)
	}
	if testing.Verbose() {
		t.Logf("%s: %v", what, d)
	}
}

func gcNamespace(t *testing.T, srv *aggregatortest.Server, ns string) string {
	t.Helper()
	if code, b := nsReq(t, srv, http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"}}`); code != http.StatusCreated {
		t.Fatalf("create namespace: %d %s", code, b)
	}
	return "/api/v1/namespaces/" + ns + "/configmaps"
}

// Background (the default, as in capture 5a): the owner goes at once and
// both dependents (dep-1 with blockOwnerDeletion, dep-2 without) follow.
// Dangling references (5d): an owner name that does not exist, and one
// that exists with another uid, are deleted; a dependent with one live
// owner and one dangling one keeps the live one only. A ConfigMap in
// another namespace naming the owner's uid is dangling there.
func TestGarbageCollectorBackgroundAndDangling(t *testing.T) {
	srv := aggregatortest.Start(t)
	cms := gcNamespace(t, srv, "gc")
	other := gcNamespace(t, srv, "gc-other")
	uid := gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	gcCreate(t, srv, cms, cmWithOwners("dep-1", "["+cmRef("owner", uid, true)+"]"))
	gcCreate(t, srv, cms, cmWithOwners("dep-2", "["+cmRef("owner", uid, false)+"]"))
	realUID := gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"real"}}`)
	gcCreate(t, srv, cms, cmWithOwners("dangling-1", "["+cmRef("ghost", "11111111-2222-3333-4444-555555555555", false)+"]"))
	gcCreate(t, srv, cms, cmWithOwners("dangling-2", "["+cmRef("real", "11111111-2222-3333-4444-666666666666", false)+"]"))
	gcCreate(t, srv, cms, cmWithOwners("half", "["+cmRef("real", realUID, false)+","+cmRef("ghost", "11111111-2222-3333-4444-777777777777", false)+"]"))
	gcCreate(t, srv, other, cmWithOwners("elsewhere", "["+cmRef("real", realUID, false)+"]"))
	waitFor(t, 10*time.Second, "dangling dependents deleted", func() bool {
		return gcGet(t, srv, cms+"/dangling-1") == nil && gcGet(t, srv, cms+"/dangling-2") == nil && gcGet(t, srv, other+"/elsewhere") == nil
	})
	waitFor(t, 10*time.Second, "the dangling reference of half removed", func() bool {
		h := gcGet(t, srv, cms+"/half")
		return h != nil && len(h.Metadata.OwnerReferences) == 1 && h.Metadata.OwnerReferences[0].UID == realUID
	})
	// kube-controller-manager 1.33.13 recorded these Warning events for a
	// dependent naming an owner's uid from another namespace (deleted) and
	// for a cluster-scoped dependent of a namespaced owner (kept)
	// (kubectl get events -A --field-selector reason=OwnerRefInvalidNamespace).
	gcCreate(t, srv, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"owned-ns","ownerReferences":[`+cmRef("real", realUID, false)+`]}}`)
	wantEvents := map[string]string{
		"gc-other": `{"involvedObject":{"kind":"ConfigMap","namespace":"gc-other","name":"elsewhere","apiVersion":"v1"},"reason":"OwnerRefInvalidNamespace","message":"ownerRef [v1/ConfigMap, namespace: gc-other, name: real, uid: ` + realUID + `] does not exist in namespace \"gc-other\"","source":{"component":"garbage-collector-controller"},"count":1,"type":"Warning","reportingComponent":"garbage-collector-controller","reportingInstance":""}`,
		"default":  `{"involvedObject":{"kind":"Namespace","name":"owned-ns","apiVersion":"v1"},"reason":"OwnerRefInvalidNamespace","message":"ownerRef [v1/ConfigMap, namespace: , name: real, uid: ` + realUID + `] does not exist in namespace \"\"","source":{"component":"garbage-collector-controller"},"count":1,"type":"Warning","reportingComponent":"garbage-collector-controller","reportingInstance":""}`,
	}
	for ns, want := range wantEvents {
		var got string
		waitFor(t, 10*time.Second, "OwnerRefInvalidNamespace event in "+ns, func() bool {
			_, b := nsReq(t, srv, http.MethodGet, "/api/v1/namespaces/"+ns+"/events?fieldSelector=reason%3DOwnerRefInvalidNamespace", "")
			var l struct{ Items []map[string]any }
			if err := json.Unmarshal(b, &l); err != nil || len(l.Items) != 1 {
				return false
			}
			ev := l.Items[0]
			for _, k := range []string{"metadata", "firstTimestamp", "lastTimestamp", "eventTime", "apiVersion", "kind"} {
				delete(ev, k)
			}
			delete(ev["involvedObject"].(map[string]any), "uid")
			b, _ = json.Marshal(ev)
			got = string(b)
			return true
		})
		var g, w any
		_ = json.Unmarshal([]byte(got), &g)
		_ = json.Unmarshal([]byte(want), &w)
		if gb, wb := fmt.Sprint(g), fmt.Sprint(w); gb != wb {
			t.Errorf("event in %s:\n%s\nwant\n%s", ns, got, want)
		}
	}
	if ns, _ := nsGet(t, srv, "owned-ns"); ns == nil {
		t.Error("a cluster-scoped dependent of a namespaced owner was deleted")
	}
	if gcGet(t, srv, cms+"/dep-1") == nil || gcGet(t, srv, cms+"/dep-2") == nil || gcGet(t, srv, cms+"/real") == nil {
		t.Fatal("a dependent with a live owner was deleted")
	}
	if code, b := nsReq(t, srv, http.MethodDelete, cms+"/owner", ""); code != http.StatusOK || !strings.Contains(string(b), `"status":"Success"`) {
		t.Fatalf("delete owner: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "dependents deleted in the background", func() bool {
		return gcGet(t, srv, cms+"/dep-1") == nil && gcGet(t, srv, cms+"/dep-2") == nil
	})
}

// Foreground (captures 5b, 5b2): the owner is kept with foregroundDeletion
// while dep-1 (blockOwnerDeletion) is held by a finalizer of its own;
// dep-2 is deleted; dep-1 is deleted with policy Background (a
// deletionTimestamp, no foregroundDeletion of its own). Removing dep-1's
// finalizer lets dep-1 and then the owner go.
func TestGarbageCollectorForeground(t *testing.T) {
	srv := aggregatortest.Start(t)
	cms := gcNamespace(t, srv, "gc")
	uid := gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dep-1","finalizers":["example.com/hold"],"ownerReferences":[`+cmRef("owner", uid, true)+`]}}`)
	gcCreate(t, srv, cms, cmWithOwners("dep-2", "["+cmRef("owner", uid, false)+"]"))
	code, b := nsReq(t, srv, http.MethodDelete, cms+"/owner", `{"propagationPolicy":"Foreground"}`)
	if code != http.StatusOK || !strings.Contains(string(b), `"finalizers":["foregroundDeletion"]`) {
		t.Fatalf("delete owner: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "dep-2 deleted and dep-1 marked", func() bool {
		d1 := gcGet(t, srv, cms+"/dep-1")
		return gcGet(t, srv, cms+"/dep-2") == nil && d1 != nil && d1.Metadata.DeletionTimestamp != nil
	})
	d1 := gcGet(t, srv, cms+"/dep-1")
	if !slices.Equal(d1.Metadata.Finalizers, []string{"example.com/hold"}) {
		t.Fatalf("dep-1 finalizers %v, want [example.com/hold] (deleted with Background)", d1.Metadata.Finalizers)
	}
	time.Sleep(100 * time.Millisecond) // the owner must still wait
	o := gcGet(t, srv, cms+"/owner")
	if o == nil || !slices.Equal(o.Metadata.Finalizers, []string{"foregroundDeletion"}) {
		t.Fatalf("owner while dep-1 is held: %+v", o)
	}
	gcMergePatch(t, srv, cms+"/dep-1", `{"metadata":{"finalizers":null}}`)
	waitFor(t, 10*time.Second, "dep-1 and the owner gone", func() bool {
		return gcGet(t, srv, cms+"/dep-1") == nil && gcGet(t, srv, cms+"/owner") == nil
	})
}

// Orphan (capture 5c): the owner gets the orphan finalizer, the collector
// removes the ownerReferences from both dependents (the field disappears;
// another owner's reference stays), then the finalizer, and the owner goes.
func TestGarbageCollectorOrphan(t *testing.T) {
	srv := aggregatortest.Start(t)
	cms := gcNamespace(t, srv, "gc")
	uid := gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	uid2 := gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner-2"}}`)
	gcCreate(t, srv, cms, cmWithOwners("dep-1", "["+cmRef("owner", uid, true)+"]"))
	gcCreate(t, srv, cms, cmWithOwners("dep-2", "["+cmRef("owner", uid, false)+","+cmRef("owner-2", uid2, false)+"]"))
	code, b := nsReq(t, srv, http.MethodDelete, cms+"/owner?propagationPolicy=Orphan", "")
	if code != http.StatusOK || !strings.Contains(string(b), `"finalizers":["orphan"]`) {
		t.Fatalf("delete owner: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "owner gone", func() bool { return gcGet(t, srv, cms+"/owner") == nil })
	code, b = nsReq(t, srv, http.MethodGet, cms+"/dep-1", "")
	if code != http.StatusOK || strings.Contains(string(b), "ownerReferences") {
		t.Fatalf("dep-1 after orphaning: %d %s", code, b)
	}
	d2 := gcGet(t, srv, cms+"/dep-2")
	if d2 == nil || len(d2.Metadata.OwnerReferences) != 1 || d2.Metadata.OwnerReferences[0].UID != uid2 {
		t.Fatalf("dep-2 after orphaning: %+v", d2)
	}
}

// A namespace deleted with propagationPolicy=Orphan gets the orphan
// finalizer (kube-apiserver 1.33.13: testdata/registry/gc/delete-options.ref.txt);
// the collector orphans what it owns (a ConfigMap in another namespace),
// removes the finalizer, and the namespace goes once the namespace
// controller has finalized it. Without the collector
// (--controllers=*,-garbagecollector) it stays with the finalizer.
func TestGarbageCollectorNamespaceOrphan(t *testing.T) {
	srv := aggregatortest.Start(t)
	gcNamespace(t, srv, "doomed")
	keep := gcNamespace(t, srv, "keep")
	ns, _ := nsGet(t, srv, "doomed")
	gcCreate(t, srv, keep, cmWithOwners("dep", `[{"apiVersion":"v1","kind":"Namespace","name":"doomed","uid":"`+ns.UID+`"}]`))
	code, b := nsReq(t, srv, http.MethodDelete, "/api/v1/namespaces/doomed?propagationPolicy=Orphan", "")
	if code != http.StatusOK || !strings.Contains(string(b), `"finalizers":["orphan"]`) {
		t.Fatalf("delete: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "namespace gone", func() bool { _, c := nsGet(t, srv, "doomed"); return c == http.StatusNotFound })
	d := gcGet(t, srv, keep+"/dep")
	if d == nil || len(d.Metadata.OwnerReferences) != 0 {
		t.Fatalf("dependent of the namespace: %+v", d)
	}

	bare := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) {
		o.Controllers = []string{"*", "-garbagecollector"}
	}))
	gcNamespace(t, bare, "doomed")
	if code, body := nsReq(t, bare, http.MethodGet, aggregator.DebugGarbageCollectorPath, ""); code != http.StatusOK || !strings.HasPrefix(string(body), "Garbage collector: off (--controllers=-garbagecollector)\nTo unblock:\n  - the garbage collector is off") {
		t.Errorf("explain without the collector: %d %s", code, body)
	}
	if code, b := nsReq(t, bare, http.MethodDelete, "/api/v1/namespaces/doomed?propagationPolicy=Orphan", ""); code != http.StatusOK {
		t.Fatalf("delete: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "namespace finalized by the namespace controller", func() bool {
		ns, _ := nsGet(t, bare, "doomed")
		return ns != nil && len(ns.Spec.Finalizers) == 0
	})
	time.Sleep(200 * time.Millisecond)
	if ns, _ := nsGet(t, bare, "doomed"); ns == nil || !slices.Equal(ns.Finalizers, []string{"orphan"}) || ns.Status.Phase != core.NamespaceTerminating {
		t.Fatalf("without the collector: %+v", ns)
	}
}

// Aggregated owners and dependents (capture 5e): a ConfigMap owned by a
// flunder on the demo backend goes when the flunder is deleted; a flunder
// owned by a deleted ConfigMap is deleted through the proxy as the
// collector's identity; a ConfigMap owned by a flunder that never existed
// is deleted. With the backend failing, a ConfigMap owned by a missing
// flunder stays (the collector cannot resolve it and retries), ConfigMaps
// with local owners are still collected, and the explanation names the
// failing group versions and the waiting object; once the backend is back
// it is deleted.
func TestGarbageCollectorAggregated(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithAvailabilityCheckInterval(100*time.Millisecond))
	backend, d := startDemoBackend(t, srv)
	cms := gcNamespace(t, srv, "gc")
	fls := "/apis/wardle.example.com/v1beta1/namespaces/gc/flunders"
	flUID := gcCreate(t, srv, fls, `{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","metadata":{"name":"fl-1"}}`)
	flRef := func(name, uid string) string {
		return `[{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","name":"` + name + `","uid":"` + uid + `"}]`
	}
	gcCreate(t, srv, cms, cmWithOwners("dep-of-fl-1", flRef("fl-1", flUID)))
	gcCreate(t, srv, cms, cmWithOwners("dep-of-ghost", flRef("ghost", "11111111-2222-3333-4444-777777777777")))
	ownerUID := gcCreate(t, srv, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}`)
	gcCreate(t, srv, fls, `{"apiVersion":"wardle.example.com/v1beta1","kind":"Flunder","metadata":{"name":"fl-dep","ownerReferences":[`+cmRef("owner", ownerUID, false)+`]}}`)
	waitFor(t, 10*time.Second, "dependent of a missing flunder deleted", func() bool { return gcGet(t, srv, cms+"/dep-of-ghost") == nil })
	if code, b := nsReq(t, srv, http.MethodDelete, fls+"/fl-1", ""); code != http.StatusOK {
		t.Fatalf("delete fl-1: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "dependent of fl-1 deleted", func() bool { return gcGet(t, srv, cms+"/dep-of-fl-1") == nil })
	if code, b := nsReq(t, srv, http.MethodDelete, cms+"/owner", ""); code != http.StatusOK {
		t.Fatalf("delete owner: %d %s", code, b)
	}
	waitFor(t, 10*time.Second, "flunder owned by a ConfigMap deleted", func() bool { return gcGet(t, srv, fls+"/fl-dep") == nil })
	found := false
	for _, r := range d.Recorder().Requests() {
		if r.Method == http.MethodDelete && strings.HasSuffix(r.Path, "/flunders/fl-dep") && r.User == aggregator.GarbageCollectorUser {
			found = true
		}
	}
	if !found {
		t.Fatalf("the backend received no DELETE of fl-dep from %s", aggregator.GarbageCollectorUser)
	}

	backend.FailWith(http.StatusServiceUnavailable)
	backend.WaitUnavailable(t)
	gcCreate(t, srv, cms, cmWithOwners("dep-of-ghost-2", flRef("ghost2", "11111111-2222-3333-4444-999999999999")))
	gcCreate(t, srv, cms, cmWithOwners("dangling-3", "["+cmRef("ghost", "11111111-2222-3333-4444-888888888888", false)+"]"))
	waitFor(t, 10*time.Second, "local dangling dependent deleted while the backend fails", func() bool { return gcGet(t, srv, cms+"/dangling-3") == nil })
	var e *aggregator.NamespaceExplanation
	waitFor(t, 10*time.Second, "explanation names the stall", func() bool {
		var err error
		e, err = srv.Aggregator().ExplainNamespace(context.Background(), "gc")
		// Until the collector re-reads discovery, the owner's GET answers
		// 503; then its kind has no REST mapping.
		return err == nil && e.GarbageCollector != nil && len(e.GarbageCollector.Pending) == 1 &&
			strings.HasPrefix(e.GarbageCollector.Pending[0].Error, "unable to get REST mapping")
	})
	p := e.GarbageCollector.Pending[0]
	if !strings.Contains(p.Object, "name: dep-of-ghost-2") || p.Error != "unable to get REST mapping for wardle.example.com/v1beta1/Flunder." {
		t.Fatalf("pending: %+v", p)
	}
	if got := fmt.Sprint(e.GarbageCollector.FailedGroupVersions); got != "map[wardle.example.com/v1alpha1:stale GroupVersion discovery: wardle.example.com/v1alpha1 wardle.example.com/v1beta1:stale GroupVersion discovery: wardle.example.com/v1beta1]" {
		t.Fatalf("failed group versions: %s", got)
	}
	var text strings.Builder
	if err := e.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Garbage collector:\n  discovery fails: wardle.example.com/v1alpha1 (stale GroupVersion discovery: wardle.example.com/v1alpha1)\n  discovery fails: wardle.example.com/v1beta1 (stale GroupVersion discovery: wardle.example.com/v1beta1)\n  waiting: [v1/ConfigMap, namespace: gc, name: dep-of-ghost-2, uid: ",
		"]: unable to get REST mapping for wardle.example.com/v1beta1/Flunder.\n",
		"  - discovery of wardle.example.com/v1alpha1, wardle.example.com/v1beta1 fails, so owners of those kinds cannot be looked up: make APIService v1alpha1.wardle.example.com, v1beta1.wardle.example.com Available again",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, text.String())
		}
	}
	code, body := nsReq(t, srv, http.MethodGet, aggregator.DebugGarbageCollectorPath, "")
	for _, want := range []string{
		"Garbage collector: on\nMonitored:    ",
		"\n  discovery fails: wardle.example.com/v1alpha1 (stale GroupVersion discovery: wardle.example.com/v1alpha1)\n",
		"\n  waiting: [v1/ConfigMap, namespace: gc, name: dep-of-ghost-2, uid: ",
		"\nTo unblock:\n  - the garbage collector cannot process [v1/ConfigMap, namespace: gc, name: dep-of-ghost-2, uid: ",
	} {
		if code != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, lacks %q:\n%s", aggregator.DebugGarbageCollectorPath, code, want, body)
		}
	}
	if gcGet(t, srv, cms+"/dep-of-ghost-2") == nil {
		t.Fatal("dependent of an unresolvable owner deleted")
	}
	backend.Restore()
	waitFor(t, 15*time.Second, "dependent of a missing flunder deleted after recovery", func() bool { return gcGet(t, srv, cms+"/dep-of-ghost-2") == nil })
}
