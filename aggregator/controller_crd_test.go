package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// crdVolatile matches what differs between two servers' CRDs: uids,
// resourceVersions and timestamps.
var crdVolatile = regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp|time|lastTransitionTime|deletionTimestamp)":"[^"]*"`)

// postCRD creates the CRD of a testdata YAML file as `kubectl create -f`
// does (field manager kubectl-create) and returns the status code.
func postCRD(t *testing.T, s *Server, file string) (int, []byte) {
	t.Helper()
	y, err := os.ReadFile("testdata/crd/" + file)
	if err != nil {
		t.Fatal(err)
	}
	body, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	code, out, err := loopback{api: s.api, userAgent: "kubectl-create/v1.33.1 (linux/amd64) kubernetes/8adc0f0"}.send(context.Background(), http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	return code, out
}

func getCRD(t *testing.T, s *Server, name string) (*apiextensions.CustomResourceDefinition, []byte) {
	t.Helper()
	code, out, err := loopback{api: s.api}.send(context.Background(), http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "", "", "application/json", nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", name, code, err, out)
	}
	var crd apiextensions.CustomResourceDefinition
	if err := json.Unmarshal(out, &crd); err != nil {
		t.Fatal(err)
	}
	return &crd, out
}

// waitCRD waits (at most 10 s, a bound, not a timing goal) until cond
// holds for the CRD name.
func waitCRD(t *testing.T, s *Server, name string, cond func(*apiextensions.CustomResourceDefinition) bool) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		crd, raw := getCRD(t, s, name)
		if cond(crd) {
			return raw
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: condition not met within 10 s: %s", name, raw)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCRDEstablishedAsUpstream creates the Pizza CRD and compares the
// established object with kube-apiserver 1.33.13's, byte for byte after
// normalising uids, resourceVersions and times: spec defaults
// (conversion None), status (NamesAccepted True NoConflicts, Established
// True InitialNamesAccepted, acceptedNames, storedVersions) and
// managedFields (kubectl-create, and kube-apiserver's status entry).
// Reference: kubectl create -f restaurant.example.com_pizzas.yaml, then
// kubectl get --raw /apis/apiextensions.k8s.io/v1/customresourcedefinitions/pizzas.restaurant.example.com
// (testdata/crd/pizzas.get.reference.json).
func TestCRDEstablishedAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	if code, out := postCRD(t, s, "restaurant.example.com_pizzas.yaml"); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	got := waitCRD(t, s, "pizzas.restaurant.example.com", apiextensions.IsEstablished)
	want, err := os.ReadFile("testdata/crd/pizzas.get.reference.json")
	if err != nil {
		t.Fatal(err)
	}
	if g, w := crdVolatile.ReplaceAllString(string(got), `"$1":"X"`), crdVolatile.ReplaceAllString(string(want), `"$1":"X"`); g != w {
		t.Errorf("got\n%s\nwant\n%s", g, w)
	}
}
