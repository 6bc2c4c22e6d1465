package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCRDStatusWriteValidatesStatusOnly replays
// testdata/crd/status-writes.reference.txt: a write through a CRD's
// /status is validated as upstream's status strategy does (metadata and
// accepted names only), and an emptied storedVersions is defaulted to the
// storage version. aggsim validated the whole CRD again (every version's
// schema built and its rules compiled) and refused storedVersions [] and
// ["v1","v9"], which kube-apiserver 1.33.13 accepts.
func TestCRDStatusWriteValidatesStatusOnly(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	curl := loopback{api: s.api, userAgent: "curl/8.5.0"}
	ctx := context.Background()
	crd, err := os.ReadFile("../registry/testdata/crd-ratchet-warnings/quills.crd.json")
	if err != nil {
		t.Fatal(err)
	}
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if code, out, _ := curl.send(ctx, http.MethodPost, crds, "", "application/json", "application/json", crd); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "quills.probe.example.com", apiextensions.IsEstablished)
	ref, err := os.ReadFile("testdata/crd/status-writes.reference.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ref), "\n")
	cases := 0
	for i := 0; i+1 < len(lines); i++ {
		patch, ok := strings.CutPrefix(lines[i], "patch: ")
		if !ok {
			continue
		}
		cases++
		want := strings.TrimPrefix(lines[i+1], "answer: ")
		code, out, err := curl.send(ctx, http.MethodPatch, crds+"/quills.probe.example.com/status", "dryRun=All", "application/merge-patch+json", "application/json", []byte(patch))
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
			Status  json.RawMessage
		}
		if err := json.Unmarshal(out, &answer); err != nil {
			t.Fatalf("%s: %v: %s", patch, err, out)
		}
		got := fmt.Sprintf("%d %s", code, answer.Message)
		if answer.Kind != "Status" {
			var st apiextensions.CustomResourceDefinitionStatus
			if err := json.Unmarshal(answer.Status, &st); err != nil {
				t.Fatal(err)
			}
			got = fmt.Sprintf("%d (['%s'], '%s')", code, strings.Join(st.StoredVersions, "', '"), st.AcceptedNames.Plural)
		}
		if got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", patch, got, want)
		}
	}
	if cases != 6 {
		t.Fatalf("%d cases in the reference", cases)
	}
}
