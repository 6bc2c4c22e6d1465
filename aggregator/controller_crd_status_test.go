package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceStatusUpdateAsUpstream replays the captured /status
// writes of testdata/crd/status against a Certificate: the answers equal
// kube-apiserver 1.33.13's, whose messages are relative to the status
// (`status.revision: Invalid value: "string": revision in body must be of
// type integer: "string"`) because upstream validates the status alone
// against the status sub-schema. aggsim validated the whole object
// (`status.revision in body ...`). certificate-01's two causes come in
// Go map order upstream and are compared sorted.
func TestCustomResourceStatusUpdateAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	if code, out := postCRD(t, s, "cert-manager.io_certificates.yaml"); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "certificates.cert-manager.io", apiextensions.IsEstablished)
	curl := loopback{api: s.api, userAgent: "curl/8.5.0"}
	ctx := context.Background()
	y, err := os.ReadFile("testdata/crd/objects/certificates.cert-manager.io/ok-02-full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := yaml.YAMLToJSON(y)
	p := "/apis/cert-manager.io/v1/namespaces/default/certificates"
	var code int
	var out []byte
	waitForCond(t, "certificates served", func() bool {
		code, out, _ = curl.send(ctx, http.MethodPost, p, "", "application/json", "application/json", body)
		return code != http.StatusNotFound
	})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	files, _ := filepath.Glob("testdata/crd/status/certificate-*.patch.json")
	if len(files) < 3 {
		t.Fatalf("%d cases", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".patch.json")
		t.Run(name, func(t *testing.T) {
			patch, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			code, out, err := curl.send(ctx, http.MethodPatch, p+"/full/status", "dryRun=All", "application/merge-patch+json", "*/*", patch)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%s\n[HTTP %d]", out, code)
			want := string(readCaptured(t, "testdata/crd/status/"+name+".status.client.txt"))
			if name == "certificate-01-types" {
				got, want = sortedCauses(t, got), sortedCauses(t, want)
			}
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
