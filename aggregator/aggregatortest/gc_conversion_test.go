package aggregatortest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGarbageCollectorCallsNoConversionWebhook: the garbage collector
// follows the changes of a custom resource whose storage version (v1)
// is not the version its store serves last (v2), with a conversion
// webhook. The collector needs metadata only, so the webhook must not be
// called for the changes it watches: requests in the storage version
// (create, patches, delete) convert nothing, and the webhook's log
// stays empty while the collector deletes the widget's dependent.
// Before, the collector's watch decoded each event in the served version
// and so called the webhook for every change (TestConversionWebhookMatchesReference
// saw one such late call during its get-failed step on a loaded machine:
// 2 calls, the reference's 1).
func TestGarbageCollectorCallsNoConversionWebhook(t *testing.T) {
	wh := &goldenConverter{}
	whPort, caPEM := serveGoldenWebhook(t, "convwh", wh)
	s := Start(t)
	client := s.Client()
	do := func(method, path, ct, body string, want int) []byte {
		t.Helper()
		code, got := doGoldenStep(t, client, method+" "+path, method, s.URL+path, ct, body)
		if !strings.HasPrefix(code, strconv.Itoa(want)+"\n") {
			t.Fatalf("%s %s: %s%s", method, path, code, got)
		}
		return []byte(got)
	}
	crd, err := os.ReadFile(filepath.Join(conversionGoldenDir, "widgets-crd.json"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.NewReplacer("WH_PORT", whPort, "CA_BUNDLE", base64.StdEncoding.EncodeToString(caPEM)).Replace(string(crd))
	do(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", body, http.StatusCreated)
	widgets := "/apis/conv.example.com/v1/namespaces/default/widgets"
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _ := doGoldenStep(t, client, "served", http.MethodGet, s.URL+widgets, "", "")
		if strings.HasPrefix(code, "200\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("widgets not served within 30 s: %s", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := wh.len()
	var owner struct {
		Metadata struct{ UID string } `json:"metadata"`
	}
	out := do(http.MethodPost, widgets, "application/json", `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"owner"},"spec":{"toppings":["cheese"]}}`, http.StatusCreated)
	if err := json.Unmarshal(out, &owner); err != nil || owner.Metadata.UID == "" {
		t.Fatalf("created widget: %v %s", err, out)
	}
	for _, l := range []string{"a", "b", "c"} {
		do(http.MethodPatch, widgets+"/owner", "application/merge-patch+json", `{"metadata":{"labels":{"`+l+`":"x"}}}`, http.StatusOK)
	}
	cms := "/api/v1/namespaces/default/configmaps"
	do(http.MethodPost, cms, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"widget-dep","ownerReferences":[{"apiVersion":"conv.example.com/v1","kind":"Widget","name":"owner","uid":"`+owner.Metadata.UID+`"}]}}`, http.StatusCreated)
	do(http.MethodDelete, widgets+"/owner", "", "", http.StatusOK)
	// The collector saw the widget's deletion once it deletes the
	// dependent (bounded: 60 s).
	deadline = time.Now().Add(60 * time.Second)
	for {
		code, _ := doGoldenStep(t, client, "dependent", http.MethodGet, s.URL+cms+"/widget-dep", "", "")
		if strings.HasPrefix(code, "404\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the widget's dependent is still there after 60 s: %s", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if calls := wh.since(before); len(calls) != 0 {
		t.Errorf("the conversion webhook got %d calls, want none; the first:\n%s", len(calls), calls[0])
	}
}
