package aggregator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// apfTestdata is where the kube-apiserver 1.33.13 captures live (see its
// README.md for the commands).
const apfTestdata = "../testdata/flowcontrol"

const apfPath = "/apis/flowcontrol.apiserver.k8s.io/v1/"

// apfVolatile are the values that differ between any two servers.
var (
	apfVolatile = regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp|time|lastTransitionTime)":"[^"]*"`)
	goPointer   = regexp.MustCompile(`0x[0-9a-f]+`)
)

// apfNormalize compacts a JSON body and blanks the volatile values and
// Go pointer addresses; key order is kept.
func apfNormalize(t *testing.T, body []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	s := apfVolatile.ReplaceAllString(b.String(), `"$1":"X"`)
	return goPointer.ReplaceAllString(s, "0xADDR")
}

// curlDo sends a request as the admin with curl's User-Agent (the
// manager name the captures recorded) and returns code and body.
func curlDo(t *testing.T, s *aggregatortest.Server, method, path, contentType, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "curl/8.5.0")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(apfTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitFor polls path until cond holds for its body (at most 10 s).
func waitFor(t *testing.T, s *aggregatortest.Server, path string, cond func([]byte) bool) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, b := curlDo(t, s, http.MethodGet, path, "", "")
		if code == http.StatusOK && cond(b) {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: condition not reached in 10s; last answer %d:\n%s", path, code, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// allDangling reports whether every FlowSchema of a list has a status
// condition.
func allDangling(b []byte) bool {
	var l struct {
		Items []struct {
			Status struct {
				Conditions []json.RawMessage `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
	if json.Unmarshal(b, &l) != nil || len(l.Items) == 0 {
		return false
	}
	for _, it := range l.Items {
		if len(it.Status.Conditions) == 0 {
			return false
		}
	}
	return true
}

// TestAPFBootstrapObjects: a fresh aggsim lists the 13 FlowSchemas and 8
// PriorityLevelConfigurations kube-apiserver 1.33.13 creates, with its
// specs, annotation, managedFields (producer Update, consumer Apply to
// /status) and Dangling conditions, byte for byte in upstream's field
// order (testdata/flowcontrol/bootstrap-*.json).
func TestAPFBootstrapObjects(t *testing.T) {
	s := aggregatortest.Start(t)
	fs := waitFor(t, s, apfPath+"flowschemas", allDangling)
	if got, want := apfNormalize(t, fs), apfNormalize(t, readTestdata(t, "bootstrap-flowschemas.json")); got != want {
		t.Errorf("flowschemas differ from kube-apiserver's:\n got %s\nwant %s", got, want)
	}
	code, plc := curlDo(t, s, http.MethodGet, apfPath+"prioritylevelconfigurations", "", "")
	if code != http.StatusOK {
		t.Fatalf("list prioritylevelconfigurations: %d %s", code, plc)
	}
	if got, want := apfNormalize(t, plc), apfNormalize(t, readTestdata(t, "bootstrap-prioritylevelconfigurations.json")); got != want {
		t.Errorf("prioritylevelconfigurations differ from kube-apiserver's:\n got %s\nwant %s", got, want)
	}
}

// TestAPFMandatorySpec: the specs of the mandatory exempt and catch-all
// objects cannot change (exempt's spec.exempt aside); kube-apiserver
// answers 422 with the spec in Go syntax (testdata/flowcontrol/mandatory-*.txt).
func TestAPFMandatorySpec(t *testing.T) {
	s := aggregatortest.Start(t)
	waitFor(t, s, apfPath+"flowschemas", allDangling)
	const merge = "application/merge-patch+json"
	for _, c := range []struct{ file, method, path, ctype, body string }{
		{"m1-patch-fs-exempt", http.MethodPatch, "flowschemas/exempt", merge, `{"spec":{"matchingPrecedence":2}}`},
		{"m2-patch-plc-catchall", http.MethodPatch, "prioritylevelconfigurations/catch-all", merge, `{"spec":{"limited":{"nominalConcurrencyShares":7}}}`},
		{"m3-patch-plc-exempt-type", http.MethodPatch, "prioritylevelconfigurations/exempt", merge, `{"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":7}}}`},
		{"m4-post-fs-exempt", http.MethodPost, "flowschemas", "application/json", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"exempt"},"spec":{"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":1}}`},
		{"m5-patch-fs-catchall", http.MethodPatch, "flowschemas/catch-all", merge, `{"spec":{"distinguisherMethod":{"type":"ByNamespace"}}}`},
	} {
		t.Run(c.file, func(t *testing.T) {
			ref := strings.TrimRight(string(readTestdata(t, "mandatory-"+c.file+".txt")), "\n")
			i := strings.LastIndex(ref, "\n")
			wantCode, _ := strconv.Atoi(ref[i+1:])
			code, body := curlDo(t, s, c.method, apfPath+c.path, c.ctype, c.body)
			if code != wantCode {
				t.Errorf("code %d, kube-apiserver answers %d", code, wantCode)
			}
			if got, want := apfNormalize(t, body), apfNormalize(t, []byte(ref[:i])); got != want {
				t.Errorf("body differs from kube-apiserver's:\n got %s\nwant %s", got, want)
			}
		})
	}
	// the exempt level's spec.exempt may change
	code, body := curlDo(t, s, http.MethodPatch, apfPath+"prioritylevelconfigurations/exempt", merge, `{"spec":{"exempt":{"nominalConcurrencyShares":7}}}`)
	if code != http.StatusOK || !strings.Contains(string(body), `"nominalConcurrencyShares": 7`) && !strings.Contains(string(body), `"nominalConcurrencyShares":7`) {
		t.Errorf("patch of exempt's spec.exempt: %d %s", code, body)
	}
}

// TestAPFDanglingCondition: a FlowSchema referencing a missing level is
// created with status {} and then gets Dangling True/NotFound; creating
// the level turns it False/Found, deleting it True again — each the
// consumer's Apply to /status (testdata/flowcontrol/dangling-*.json).
func TestAPFDanglingCondition(t *testing.T) {
	s := aggregatortest.Start(t)
	waitFor(t, s, apfPath+"flowschemas", allDangling)
	check := func(name string, body []byte) {
		t.Helper()
		if got, want := apfNormalize(t, body), apfNormalize(t, readTestdata(t, "dangling-"+name+".json")); got != want {
			t.Errorf("%s differs from kube-apiserver's:\n got %s\nwant %s", name, got, want)
		}
	}
	hasStatus := func(status string) func([]byte) bool {
		return func(b []byte) bool {
			var o struct {
				Status struct {
					Conditions []struct{ Status string } `json:"conditions"`
				} `json:"status"`
			}
			return json.Unmarshal(b, &o) == nil && len(o.Status.Conditions) == 1 && o.Status.Conditions[0].Status == status
		}
	}
	code, body := curlDo(t, s, http.MethodPost, apfPath+"flowschemas", "application/json",
		`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"dangle"},"spec":{"priorityLevelConfiguration":{"name":"nope"},"matchingPrecedence":500}}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	check("create-fs", body)
	check("fs-dangling", waitFor(t, s, apfPath+"flowschemas/dangle", hasStatus("True")))

	code, body = curlDo(t, s, http.MethodPost, apfPath+"prioritylevelconfigurations", "application/json",
		`{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"nope"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}}`)
	if code != http.StatusCreated {
		t.Fatalf("create level: %d %s", code, body)
	}
	check("create-plc", body)
	check("fs-found", waitFor(t, s, apfPath+"flowschemas/dangle", hasStatus("False")))

	if code, body := curlDo(t, s, http.MethodDelete, apfPath+"prioritylevelconfigurations/nope", "", ""); code != http.StatusOK {
		t.Fatalf("delete level: %d %s", code, body)
	}
	check("fs-dangling-again", waitFor(t, s, apfPath+"flowschemas/dangle", hasStatus("True")))
}

// TestAPFFlowSchemaTableOrder: kubectl get flowschemas lists rows by
// matchingPrecedence, then name, as upstream's printFlowSchemaList
// (measured: kube-controller-manager before kube-scheduler, both 800);
// the store lists by name.
func TestAPFFlowSchemaTableOrder(t *testing.T) {
	s := aggregatortest.Start(t)
	waitFor(t, s, apfPath+"flowschemas", allDangling)
	req, _ := http.NewRequest(http.MethodGet, s.URL+apfPath+"flowschemas", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var table struct {
		Rows []struct {
			Cells []any `json:"cells"`
		} `json:"rows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range table.Rows {
		got = append(got, r.Cells[0].(string)+" "+r.Cells[1].(string)+" "+strconv.Itoa(int(r.Cells[2].(float64)))+" "+r.Cells[3].(string)+" "+r.Cells[5].(string))
	}
	// kubectl get flowschemas on kube-apiserver 1.33.13 right after start-up
	// (NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD MISSINGPL)
	want := []string{
		"exempt exempt 1 <none> False",
		"probes exempt 2 <none> False",
		"system-leader-election leader-election 100 ByUser False",
		"endpoint-controller workload-high 150 ByUser False",
		"workload-leader-election leader-election 200 ByUser False",
		"system-node-high node-high 400 ByUser False",
		"system-nodes system 500 ByUser False",
		"kube-controller-manager workload-high 800 ByNamespace False",
		"kube-scheduler workload-high 800 ByNamespace False",
		"kube-system-service-accounts workload-high 900 ByNamespace False",
		"service-accounts workload-low 9000 ByUser False",
		"global-default global-default 9900 ByUser False",
		"catch-all catch-all 10000 ByUser False",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAPFProducerPutsBack: as kube-apiserver's producer does every
// minute (here every 50 ms), a deleted mandatory or suggested object is
// created again, a suggested spec changed while its annotation says true
// is reset, one whose annotation says false is kept, the exempt level's
// spec.exempt is kept, and a non-bootstrap object annotated true is
// deleted; without the annotation, an object never changed is marked
// "true" again and a changed one "false" and kept. Each outcome was
// measured on kube-apiserver 1.33.13 after its next minute tick.
func TestAPFProducerPutsBack(t *testing.T) {
	s := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) {
		o.APFEnsureInterval = 50 * time.Millisecond
	}))
	waitFor(t, s, apfPath+"flowschemas", allDangling)
	const merge = "application/merge-patch+json"
	for _, r := range []struct{ method, path, ctype, body string }{
		{http.MethodDelete, "flowschemas/exempt", "", ""},
		{http.MethodDelete, "prioritylevelconfigurations/catch-all", "", ""},
		{http.MethodDelete, "flowschemas/global-default", "", ""},
		{http.MethodPatch, "flowschemas/service-accounts", merge, `{"spec":{"matchingPrecedence":9001}}`},
		{http.MethodPatch, "flowschemas/probes", merge, `{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"matchingPrecedence":3}}`},
		{http.MethodPatch, "prioritylevelconfigurations/exempt", merge, `{"spec":{"exempt":{"nominalConcurrencyShares":7}}}`},
		{http.MethodPatch, "flowschemas/system-nodes", merge, `{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":null}},"spec":{"matchingPrecedence":501}}`},
		{http.MethodPatch, "flowschemas/kube-scheduler", merge, `{"metadata":{"annotations":{"apf.kubernetes.io/autoupdate-spec":null}}}`},
		{http.MethodPost, "flowschemas", "application/json", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"stale-auto","annotations":{"apf.kubernetes.io/autoupdate-spec":"true"}},"spec":{"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":500}}`},
		{http.MethodPost, "flowschemas", "application/json", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"stale-off","annotations":{"apf.kubernetes.io/autoupdate-spec":"false"}},"spec":{"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":500}}`},
	} {
		if code, body := curlDo(t, s, r.method, apfPath+r.path, r.ctype, r.body); code/100 != 2 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, code, body)
		}
	}
	precedence := func(want int) func([]byte) bool {
		return func(b []byte) bool {
			var o struct {
				Spec struct {
					MatchingPrecedence int `json:"matchingPrecedence"`
				} `json:"spec"`
			}
			return json.Unmarshal(b, &o) == nil && o.Spec.MatchingPrecedence == want
		}
	}
	waitFor(t, s, apfPath+"flowschemas/exempt", precedence(1))
	waitFor(t, s, apfPath+"flowschemas/global-default", precedence(9900))
	waitFor(t, s, apfPath+"flowschemas/service-accounts", precedence(9000))
	waitFor(t, s, apfPath+"prioritylevelconfigurations/catch-all", func([]byte) bool { return true })
	// without the annotation: a changed object (generation 2) is left
	// alone and marked "false", an unchanged one marked "true" again
	annotation := func(want string) func([]byte) bool {
		return func(b []byte) bool {
			var o struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			return json.Unmarshal(b, &o) == nil && o.Metadata.Annotations["apf.kubernetes.io/autoupdate-spec"] == want
		}
	}
	if b := waitFor(t, s, apfPath+"flowschemas/system-nodes", annotation("false")); !precedence(501)(b) {
		t.Errorf("system-nodes (changed, no annotation) was reset: %s", b)
	}
	waitFor(t, s, apfPath+"flowschemas/kube-scheduler", annotation("true"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := curlDo(t, s, http.MethodGet, apfPath+"flowschemas/stale-auto", "", "")
		if code == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stale-auto never deleted (last %d)", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// two more passes have run by now: what the producer keeps stays
	time.Sleep(150 * time.Millisecond)
	if _, b := curlDo(t, s, http.MethodGet, apfPath+"flowschemas/probes", "", ""); !precedence(3)(b) {
		t.Errorf("probes (annotation false) was reset: %s", b)
	}
	if code, _ := curlDo(t, s, http.MethodGet, apfPath+"flowschemas/stale-off", "", ""); code != http.StatusOK {
		t.Errorf("stale-off (annotation false) was deleted: %d", code)
	}
	if _, b := curlDo(t, s, http.MethodGet, apfPath+"prioritylevelconfigurations/exempt", "", ""); !bytes.Contains(b, []byte(`"nominalConcurrencyShares": 7`)) && !bytes.Contains(b, []byte(`"nominalConcurrencyShares":7`)) {
		t.Errorf("exempt's spec.exempt was reset: %s", b)
	}
}
