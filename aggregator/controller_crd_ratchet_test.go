package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceRatchetingAsUpstream replays testdata/crd/ratchet
// (see its README): an object stored under a CRD whose schema later
// tightened is patched; errors of unchanged values are ratcheted away
// (200), changed ones reported with kube-apiserver 1.33.13's Status.
// aggsim reported every schema error of the whole object on update
// (`spec.a: Too long` for a patch of spec.b).
func TestCustomResourceRatchetingAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	curl := loopback{api: s.api, userAgent: "curl/8.5.0"}
	ctx := context.Background()
	read := func(f string) []byte {
		b, err := os.ReadFile("testdata/crd/ratchet/" + f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if code, out, _ := curl.send(ctx, http.MethodPost, crds, "", "application/json", "application/json", read("pawls.crd.json")); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "pawls.probe.example.com", apiextensions.IsEstablished)
	p := "/apis/probe.example.com/v1/namespaces/default/pawls"
	var code int
	var out []byte
	waitForCond(t, "pawls served", func() bool {
		code, out, _ = curl.send(ctx, http.MethodPost, p, "", "application/json", "application/json", read("pawl.json"))
		return code != http.StatusNotFound
	})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	if code, out, _ := curl.send(ctx, http.MethodPatch, crds+"/pawls.probe.example.com", "", "application/json-patch+json", "application/json", read("pawls.crd-patch.json")); code != http.StatusOK {
		t.Fatalf("patch CRD: %d %s", code, out)
	}
	// the new schema is served once the store is rebuilt: the CRD's new
	// maxLength refuses a new object with a long spec.a
	waitForCond(t, "new schema served", func() bool {
		code, _, _ := curl.send(ctx, http.MethodPost, p, "dryRun=All", "application/json", "application/json", []byte(`{"apiVersion":"probe.example.com/v1","kind":"Pawl","metadata":{"name":"probe"},"spec":{"a":"long"}}`))
		return code == http.StatusUnprocessableEntity
	})
	files, _ := filepath.Glob("testdata/crd/ratchet/0*.patch.json")
	if len(files) < 7 {
		t.Fatalf("%d cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".patch.json")
		t.Run(name, func(t *testing.T) {
			code, out, err := curl.send(ctx, http.MethodPatch, p+"/p1", "dryRun=All", "application/merge-patch+json", "*/*", read(filepath.Base(f)))
			if err != nil {
				t.Fatal(err)
			}
			want := string(readCaptured(t, strings.TrimSuffix(f, ".patch.json")+".reference.txt"))
			if !strings.HasSuffix(want, "[HTTP 422]") {
				// accepted upstream: the answer is the patched object
				if code != http.StatusOK {
					t.Errorf("got %d %s, want 200", code, out)
				}
				return
			}
			if got := fmt.Sprintf("%s\n[HTTP %d]", out, code); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
