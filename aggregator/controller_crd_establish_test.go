package aggregator

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCRDServedWhenEstablished checks that a CRD's custom resources are
// served by the time a watcher of the CRD sees Established True, so that
// `kubectl wait --for=condition=Established` followed by a create never
// answers 404 (upstream's handler serves whatever its informer shows
// Established). Each of the three fixture CRDs is checked at the watch
// event that first shows it Established, then an object is created.
func TestCRDServedWhenEstablished(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events, err := s.api.Store(crdResource).Watch(ctx, "", registry.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"foos.samplecontroller.k8s.io":          "crd-status-subresource.yaml",
		"pizzas.restaurant.example.com":         "restaurant.example.com_pizzas.yaml",
		"servicemonitors.monitoring.coreos.com": "monitoring.coreos.com_servicemonitors.yaml",
	}
	for name, file := range files {
		if code, out := postCRD(t, s, file); code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, code, out)
		}
	}
	lb := loopback{api: s.api}
	for established := 0; established < len(files); {
		var ev registry.WatchEvent
		select {
		case ev = <-events:
		case <-ctx.Done():
			t.Fatalf("%d of %d CRDs Established within 30 s", established, len(files))
		}
		crd, ok := ev.Object.(*apiextensions.CustomResourceDefinition)
		if !ok || !apiextensions.IsEstablished(crd) || ev.Type != "MODIFIED" {
			continue
		}
		if c := apiextensions.FindCondition(crd.Status.Conditions, apiextensions.Established); c.Reason != "InitialNamesAccepted" {
			continue
		}
		established++
		version := apiextensions.StorageVersion(crd)
		if s.api.GroupVersionStore(crd.Spec.Group, version, crd.Status.AcceptedNames.Plural) == nil {
			t.Errorf("%s: Established, but %s/%s %s not served", crd.Name, crd.Spec.Group, version, crd.Status.AcceptedNames.Plural)
		}
		path := "/apis/" + crd.Spec.Group + "/" + version + "/namespaces/default/" + crd.Status.AcceptedNames.Plural
		if code, out, _ := lb.send(ctx, http.MethodGet, path, "", "", "application/json", nil); code != http.StatusOK {
			t.Errorf("GET %s right after Established: %d %s", path, code, out)
		}
	}
}
