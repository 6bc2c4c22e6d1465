package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceUnknownFields: the fields the schema prunes are field
// validation's problems: with Strict, kube-apiserver 1.33.13's 400
// (testdata/crd/foos/bad-07-unknown-field-strict.status.client.txt); with
// Warn, a Warning header and the object stored without them.
func TestCustomResourceUnknownFields(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	if code, out := postCRD(t, s, "crd-status-subresource.yaml"); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	waitCRD(t, s, "foos.samplecontroller.k8s.io", apiextensions.IsEstablished)
	y, err := os.ReadFile("testdata/crd/foos/bad-07-unknown-field-strict.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := yaml.YAMLToJSON(y)
	path := "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos"
	curl := loopback{api: s.api, userAgent: "curl/8.5.0"}
	var code int
	var out []byte
	waitForCond(t, "foos served", func() bool {
		code, out, _ = curl.send(context.Background(), http.MethodPost, path, "fieldValidation=Strict&dryRun=All", "application/json", "*/*", body)
		return code != http.StatusNotFound
	})
	want := string(readCaptured(t, "testdata/crd/foos/bad-07-unknown-field-strict.status.client.txt"))
	if got := fmt.Sprintf("%s\n[HTTP %d]", out, code); got != want {
		t.Errorf("Strict:\ngot  %s\nwant %s", got, want)
	}
	r, _ := http.NewRequest(http.MethodPost, path+"?fieldValidation=Warn", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	w := &bufferWriter{header: http.Header{}}
	s.api.ServeHTTP(w, r)
	if w.code != http.StatusCreated || w.header.Get("Warning") != `299 - "unknown field \"spec.colour\""` || strings.Contains(w.body.String(), "colour") {
		t.Errorf("Warn: %d %q %s", w.code, w.header.Values("Warning"), w.body.String())
	}
}

// TestCustomResourceDefaultOnRead: an object stored before its CRD's
// schema had a default gets it when read, as upstream defaults on read
// from storage.
func TestCustomResourceDefaultOnRead(t *testing.T) {
	st := storage.NewMemory()
	s, _ := runServer(t, Options{Storage: st})
	if code, out := postCRD(t, s, "crd-status-subresource.yaml"); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	waitCRD(t, s, "foos.samplecontroller.k8s.io", apiextensions.IsEstablished)
	lb := loopback{api: s.api}
	path := "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos"
	waitForCond(t, "foo created", func() bool {
		code, _, _ := lb.send(context.Background(), http.MethodPost, path, "", "application/json", "application/json", []byte(`{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"old"},"spec":{"replicas":1}}`))
		return code == http.StatusCreated
	})
	// the schema gains a property with a default
	patch := `[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/colour","value":{"type":"string","default":"red"}}]`
	if code, out, _ := (loopback{api: s.api}).send(context.Background(), http.MethodPatch, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos.samplecontroller.k8s.io", "", "application/json-patch+json", "application/json", []byte(patch)); code != http.StatusOK {
		t.Fatalf("patch CRD: %d %s", code, out)
	}
	waitForCond(t, "old foo read with the default", func() bool {
		_, out, _ := lb.send(context.Background(), http.MethodGet, path+"/old", "", "", "application/json", nil)
		return strings.Contains(string(out), `"spec":{"colour":"red","replicas":1}`)
	})
}
