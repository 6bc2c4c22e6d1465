package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestCustomResourceNumbersAsUpstream POSTs a custom resource whose
// numbers are written in many ways (1.0, 1e2, 0.10, -0.0, 1e21, an
// integer beyond int64, ...) to a CRD that keeps unknown fields, then
// GETs it: both answers carry the numbers as kube-apiserver 1.33.13's
// (testdata/crd/columns/numbers.{create,get}.reference.txt: 1, 100, 0.1,
// 0, 1e+21, 12345678901234567000, ...), compared as text. aggsim echoed
// the request's text (1.0, 1e2, 0.10, -0.0, ...).
func TestCustomResourceNumbersAsUpstream(t *testing.T) {
	s, _ := runServer(t, Options{Storage: storage.NewMemory()})
	curl := loopback{api: s.api, userAgent: "curl/8.5.0"}
	ctx := context.Background()
	crd, err := os.ReadFile("testdata/crd/columns/columns.crd.json")
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := curl.send(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", "application/json", "application/json", crd); code != http.StatusCreated {
		t.Fatalf("create CRD: %d %s", code, out)
	}
	waitCRD(t, s, "columns.probe.example.com", apiextensions.IsEstablished)
	obj, err := os.ReadFile("testdata/crd/columns/numbers.json")
	if err != nil {
		t.Fatal(err)
	}
	p := "/apis/probe.example.com/v1/namespaces/default/columns"
	var code int
	var created []byte
	waitForCond(t, "columns served", func() bool {
		code, created, _ = curl.send(ctx, http.MethodPost, p, "", "application/json", "application/json", obj)
		return code != http.StatusNotFound
	})
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, created)
	}
	_, got, _ := curl.send(ctx, http.MethodGet, p+"/numbers", "", "", "application/json", nil)
	spec := regexp.MustCompile(`(?s)"spec": ?\{[^}]*\}`)
	compact := func(b []byte) string {
		var v map[string]json.RawMessage
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return string(spec.Find(regexp.MustCompile(`\s+`).ReplaceAll(b, nil)))
	}
	for _, c := range []struct {
		what string
		got  []byte
		ref  string
	}{{"POST", created, "numbers.create.reference.txt"}, {"GET", got, "numbers.get.reference.txt"}} {
		want := readCaptured(t, "testdata/crd/columns/"+c.ref)
		if g, w := compact(c.got), compact(want); g != w || g == "" {
			t.Errorf("%s spec:\ngot  %s\nwant %s", c.what, g, w)
		}
	}
}
