package aggregator

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sync/atomic"
	"testing"
)

// discoveryDocs serves /api and /apis from two swappable documents.
type discoveryDocs struct {
	api, apis atomic.Pointer[string]
}

func (d *discoveryDocs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api":
		_, _ = w.Write([]byte(*d.api.Load()))
	case "/apis":
		_, _ = w.Write([]byte(*d.apis.Load()))
	default:
		http.NotFound(w, r)
	}
}

// A discoveryMemo answers what readAggregatedDiscovery answers for the
// same documents, and errDiscoveryUnchanged (without decoding) only when
// both documents are those of the last read marked processed.
func TestDiscoveryMemoSkipsOnlyProcessedDocuments(t *testing.T) {
	ctx := context.Background()
	// trimmed from curl -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' .../api and .../apis of aggsim serve
	api := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","resources":[{"resource":"configmaps","responseKind":{"group":"","version":"v1","kind":"ConfigMap"},"scope":"Namespaced","singularResource":"configmap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}],"freshness":"Current"}]}]}`
	apis := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"wardle.example.com","creationTimestamp":null},"versions":[{"version":"v1beta1","freshness":"Stale"},{"version":"v1alpha1","resources":[{"resource":"flunders","responseKind":{"group":"","version":"","kind":"Flunder"},"scope":"Namespaced","verbs":["create","delete","get","list","watch"]}],"freshness":"Current"}]}]}`
	apis2 := `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[]}`
	docs := &discoveryDocs{}
	docs.api.Store(&api)
	docs.apis.Store(&apis)
	client := loopback{api: docs}
	var m discoveryMemo

	check := func(what string, wantUnchanged bool) {
		t.Helper()
		got, err := m.readDiscovery(ctx, client)
		if wantUnchanged {
			if !errors.Is(err, errDiscoveryUnchanged) || got != nil {
				t.Fatalf("%s: %v, %v; want errDiscoveryUnchanged", what, got, err)
			}
			return
		}
		want, wantErr := readAggregatedDiscovery(ctx, client)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("%s:\n got %+v, %v\nwant %+v, %v", what, got, err, want, wantErr)
		}
	}
	check("first read", false) // with the stale wardle v1beta1 in a discoveryFailedError
	check("not marked processed", false)
	m.processed()
	check("same documents, processed", true)
	check("again", true)
	docs.apis.Store(&apis2)
	check("/apis changed", false)
	check("changed, not marked processed", false)
	m.processed()
	check("changed, processed", true)
	docs.apis.Store(&apis)
	check("back to the first documents", false)

	// A read that fails to decode is never marked processed.
	m.processed()
	bad := `{"items":[`
	docs.api.Store(&bad)
	if _, err := m.readDiscovery(ctx, client); err == nil || errors.Is(err, errDiscoveryUnchanged) {
		t.Fatalf("undecodable /api: %v", err)
	}
	m.processed()
	if _, err := m.readDiscovery(ctx, client); err == nil || errors.Is(err, errDiscoveryUnchanged) {
		t.Fatalf("undecodable /api, read again: %v", err)
	}
}
