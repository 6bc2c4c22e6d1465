package aggregator

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// gcTestObject decodes the metadata of a recorded answer.
func gcTestObject(t *testing.T, body []byte) meta.ObjectMeta {
	t.Helper()
	var o gcObject
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return o.Metadata
}

// A dependent written just before its owner is deleted with
// propagationPolicy=Orphan is orphaned even when the collector's graph has
// not seen it yet: orphanDependents reads aggsim's stores, not only the
// graph (the graph alone let 3 of 80 -race runs of
// TestGarbageCollectorNamespaceOrphan delete the dependent). Here the
// graph is empty: a collector with no monitors running.
func TestGarbageCollectorOrphansWhatTheGraphHasNotSeen(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory(), Anonymous: true, Controllers: []string{"*", "-garbagecollector"}})
	for _, ns := range []string{"doomed", "keep"} {
		if w := doJSON(s, http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"}}`); w.Code != http.StatusCreated {
			t.Fatalf("create namespace %s: %d %s", ns, w.Code, w.Body)
		}
	}
	owner := gcTestObject(t, doJSON(s, http.MethodGet, "/api/v1/namespaces/doomed", "").Body.Bytes())
	dep := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dep","ownerReferences":[{"apiVersion":"v1","kind":"Namespace","name":"doomed","uid":"` + owner.UID + `"}]}}`
	if w := doJSON(s, http.MethodPost, "/api/v1/namespaces/keep/configmaps", dep); w.Code != http.StatusCreated {
		t.Fatalf("create dependent: %d %s", w.Code, w.Body)
	}
	if w := doJSON(s, http.MethodDelete, "/api/v1/namespaces/doomed?propagationPolicy=Orphan", ""); w.Code != http.StatusOK {
		t.Fatalf("delete owner: %d %s", w.Code, w.Body)
	}

	g := newGarbageCollector(s.handler, s.api, slog.New(slog.NewTextHandler(io.Discard, nil)))
	cms := gcResource{version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true}
	g.locals[cms.gr()] = localMonitor{res: cms, st: s.api.Store(meta.GroupResource{Resource: "configmaps"})}
	owned := &gcNode{res: gcResource{version: "v1", resource: "namespaces", kind: "Namespace"}, name: "doomed", uid: owner.UID,
		finalizers: []string{meta.FinalizerOrphanDependents}, deleting: true}
	if err := g.orphanDependents(context.Background(), owned); err != nil {
		t.Fatal(err)
	}
	w := doJSON(s, http.MethodGet, "/api/v1/namespaces/keep/configmaps/dep", "")
	if got := gcTestObject(t, w.Body.Bytes()); w.Code != http.StatusOK || len(got.OwnerReferences) != 0 {
		t.Errorf("dependent after orphaning: %d %s", w.Code, w.Body)
	}
	w = doJSON(s, http.MethodGet, "/api/v1/namespaces/doomed", "")
	if got := gcTestObject(t, w.Body.Bytes()); len(got.Finalizers) != 0 {
		t.Errorf("owner's finalizers after orphaning: %q", got.Finalizers)
	}
}

// The collector deletes a dependent only as it read it: a dependent changed
// since (say, orphaned by another worker) answers 409 on the
// resourceVersion precondition, the delete is an error (processed again),
// and the object stays.
func TestGarbageCollectorDeletesOnlyWhatItRead(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory(), Anonymous: true, Controllers: []string{"*", "-garbagecollector"}})
	w := doJSON(s, http.MethodPost, "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dep"}}`)
	if w.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	read := gcTestObject(t, w.Body.Bytes())
	patch := httptest.NewRequest(http.MethodPatch, "/api/v1/namespaces/default/configmaps/dep", strings.NewReader(`{"metadata":{"labels":{"changed":"yes"}}}`))
	patch.Header.Set("Content-Type", "application/merge-patch+json")
	r := httptest.NewRecorder()
	s.Handler().ServeHTTP(r, patch)
	if r.Code != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Code, r.Body)
	}
	g := newGarbageCollector(s.handler, s.api, slog.New(slog.NewTextHandler(io.Discard, nil)))
	n := &gcNode{res: gcResource{version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true}, namespace: "default", name: "dep", uid: read.UID}
	err := g.deleteObject(context.Background(), n, read.ResourceVersion, meta.DeletePropagationBackground)
	if err == nil || !strings.Contains(err.Error(), "the ResourceVersion in the precondition ("+read.ResourceVersion+") does not match the ResourceVersion in record (") {
		t.Errorf("delete on a stale read: %v", err)
	}
	if w := doJSON(s, http.MethodGet, "/api/v1/namespaces/default/configmaps/dep", ""); w.Code != http.StatusOK {
		t.Errorf("after a stale delete: %d %s", w.Code, w.Body)
	}
	cur := gcTestObject(t, doJSON(s, http.MethodGet, "/api/v1/namespaces/default/configmaps/dep", "").Body.Bytes())
	if err := g.deleteObject(context.Background(), n, cur.ResourceVersion, meta.DeletePropagationBackground); err != nil {
		t.Fatalf("delete on a fresh read: %v", err)
	}
	if w := doJSON(s, http.MethodGet, "/api/v1/namespaces/default/configmaps/dep", ""); w.Code != http.StatusNotFound {
		t.Errorf("after the delete: %d %s", w.Code, w.Body)
	}
}
