package aggregatortest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/aggsim/aggsim/certs"
)

// conversionGoldenDir holds what kube-apiserver 1.33.13 answered, and
// what its conversion webhook received, for steps.txt. Captured with
// ../shared/reference (NO_BACKEND=1, API_PORT=18300) by this file's own
// replay loop pointed at the reference:
//
//	CONV_CAPTURE=https://127.0.0.1:18300 CONV_PKI=/tmp/ref-conv/pki \
//	  go test ./aggregator/aggregatortest -run TestConversionWebhookMatchesReference -timeout 5m
//
// which serves goldenConverter on a loopback port (WH_PORT) and writes,
// per step, <name>.code (status and Warning headers), <name>.body and
// <name>.wh.jsonl (each ConversionReview received: method, URI, headers,
// protocol, body).
const conversionGoldenDir = "../../testdata/crd-conversion"

// goldenConverter converts Widgets and Gadgets between v1 (toppings:
// [string]) and v2 (toppings: [{name, quantity}]), and answers wrongly
// in the way `mode` names (set by the steps' "arm" lines).
type goldenConverter struct {
	webhookCallLog
	armedMode
}

func (g *goldenConverter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := g.record(r)
	mode := g.current()
	var rev struct {
		APIVersion string `json:"apiVersion"`
		Request    struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	_ = json.Unmarshal(b, &rev)
	switch mode {
	case "500":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case "garbage":
		_, _ = w.Write([]byte("not json"))
		return
	case "empty":
		return
	case "404":
		http.Error(w, "no such page", http.StatusNotFound)
		return
	case "status-500": // a metav1.Status body, as an apiserver answers
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"webhook says no","reason":"InternalError","code":500}`))
		return
	case "status-422":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"webhook says invalid","reason":"Invalid","code":422}`))
		return
	case "yaml": // a correct answer, as YAML
		b, _ := json.Marshal(map[string]any{"apiVersion": rev.APIVersion, "kind": "ConversionReview", "response": map[string]any{
			"uid": rev.Request.UID, "result": map[string]any{"status": "Success"}, "convertedObjects": convertAll(rev.Request.Objects, rev.Request.DesiredAPIVersion)}})
		y, _ := yaml.JSONToYAML(b)
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(y)
		return
	case "upper-keys": // a Go webhook whose structs lack json tags
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"APIVersion": rev.APIVersion, "Kind": "ConversionReview", "Response": map[string]any{
			"UID": rev.Request.UID, "Result": map[string]any{"Status": "Success"}, "ConvertedObjects": convertAll(rev.Request.Objects, rev.Request.DesiredAPIVersion)}})
		return
	case "status-200":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}`))
		return
	case "array":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[1,2]`))
		return
	case "slow":
		t := time.NewTimer(40 * time.Second)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	out := convertAll(rev.Request.Objects, rev.Request.DesiredAPIVersion)
	resp := map[string]any{"uid": rev.Request.UID, "result": map[string]any{"status": "Success"}, "convertedObjects": out}
	md := func() map[string]any { m, _ := out[0]["metadata"].(map[string]any); return m }
	switch mode {
	case "wronguid":
		resp["uid"] = "not-the-uid"
	case "failed":
		resp["result"] = map[string]any{"status": "Failure", "message": "cannot convert this one", "code": 422}
		resp["convertedObjects"] = nil
	case "failed-bare":
		resp["result"] = map[string]any{"status": "Failure"}
		resp["convertedObjects"] = nil
	case "rename":
		md()["name"] = "other"
	case "renamespace":
		md()["namespace"] = "kube-system"
	case "reuid":
		md()["uid"] = "00000000-0000-0000-0000-000000000000"
	case "relabel":
		md()["labels"] = map[string]any{"changed": "yes"}
	case "badlabel":
		md()["labels"] = map[string]any{"bad key!": "x"}
	case "annotate":
		md()["annotations"] = map[string]any{"converted-by": "golden"}
		md()["generation"] = 99
	case "wrongversion":
		out[0]["apiVersion"] = "conv.example.com/v9"
	case "wrongkind":
		out[0]["kind"] = "Other"
	case "none":
		resp["convertedObjects"] = []any{}
	case "more":
		resp["convertedObjects"] = append(out, out[0])
	case "null-object":
		resp["convertedObjects"] = []any{nil}
	case "string-object":
		resp["convertedObjects"] = []any{"x"}
	case "no-metadata":
		delete(out[0], "metadata")
	case "metadata-string":
		out[0]["metadata"] = "x"
	case "label-number":
		md()["labels"] = map[string]any{"a": 1}
	case "labels-list":
		md()["labels"] = []any{"a"}
	case "bad-annotation":
		md()["annotations"] = map[string]any{"bad key!": "x"}
	case "no-result":
		delete(resp, "result")
	case "lower-success":
		resp["result"] = map[string]any{"status": "success"}
	case "no-kind":
		delete(out[0], "kind")
	case "empty-object":
		resp["convertedObjects"] = []any{map[string]any{}}
	case "label-null":
		md()["labels"] = map[string]any{"a": nil}
	case "label-float":
		md()["labels"] = map[string]any{"a": 1.5}
	case "failed-reason":
		resp["result"] = map[string]any{"status": "Failure", "reason": "Invalid", "code": 422}
		resp["convertedObjects"] = nil
	}
	review := map[string]any{"apiVersion": rev.APIVersion, "kind": "ConversionReview", "response": resp}
	reviewEnvelopeFault(review, mode, "AdmissionReview")
	switch mode {
	case "v1beta1-answer":
		review["apiVersion"] = "apiextensions.k8s.io/v1beta1"
	case "v1-answer":
		review["apiVersion"] = "apiextensions.k8s.io/v1"
	case "crd-kind":
		review["kind"] = "CustomResourceDefinition"
	case "core-version":
		review["apiVersion"] = "v1"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// convertAll converts each object with convertToppings.
func convertAll(objs []map[string]any, apiVersion string) []map[string]any {
	out := []map[string]any{}
	for _, o := range objs {
		out = append(out, convertToppings(o, apiVersion))
	}
	return out
}

// convertToppings converts one object to apiVersion: v1 toppings are
// names, v2 toppings {name, quantity} (quantity 1 from v1).
func convertToppings(o map[string]any, apiVersion string) map[string]any {
	o["apiVersion"] = apiVersion
	spec, _ := o["spec"].(map[string]any)
	ts, _ := spec["toppings"].([]any)
	if ts == nil {
		return o
	}
	toV1 := strings.HasSuffix(apiVersion, "/v1")
	var conv []any
	for _, t := range ts {
		switch t := t.(type) {
		case map[string]any:
			if toV1 {
				conv = append(conv, t["name"])
				continue
			}
		case string:
			if !toV1 {
				conv = append(conv, map[string]any{"name": t, "quantity": 1})
				continue
			}
		}
		conv = append(conv, t)
	}
	spec["toppings"] = conv
	return o
}

// TestConversionWebhookMatchesReference replays steps.txt (a Widget CRD
// converted by url with ConversionReview v1, a Gadget CRD by service
// with v1beta1 listed first) against aggsim and compares codes, Warning
// headers, bodies and every ConversionReview the webhook received with
// what kube-apiserver 1.33.13 answered and sent: reads, writes and
// patches in the non-storage version, and the webhook failing (500,
// garbage, wrong uid, Failure results, changed name/namespace/uid/
// labels, wrong apiVersion/kind, too few objects, too slow).
func TestConversionWebhookMatchesReference(t *testing.T) {
	replayConversionSteps(t, "steps.txt", "ref", 20, nil)
}

// TestConversionWebhookFaultsMatchReference replays faults-steps.txt: a
// get and a list in the non-storage version while the webhook answers
// badly in each way kube-apiserver 1.33.13 tells apart (review
// apiVersion/kind, response, result, object count and shape, metadata
// types, HTTP errors and bodies), with ConversionReview v1 and v1beta1.
func TestConversionWebhookFaultsMatchReference(t *testing.T) {
	replayConversionSteps(t, "faults-steps.txt", "faults", 30, map[string]string{
		"list-rv0-500":      "resourceVersion=0 lists come from upstream's watch cache, converted before the webhook broke (README: no watch cache)",
		"list-late-rv0-500": "resourceVersion=0 lists come from upstream's watch cache, which lacks the object it could not convert (README: no watch cache)",
	})
}

// replayConversionSteps replays the steps of file in conversionGoldenDir
// with a goldenConverter (replayArmedSteps).
func replayConversionSteps(t *testing.T, file, refDir string, minSteps int, knownDiffs map[string]string) {
	replayArmedSteps(t, conversionGoldenDir, file, refDir, "convwh", &goldenConverter{}, false, minSteps, knownDiffs)
}

// armedWebhook is a golden webhook whose answers the steps' "arm" lines
// choose, with its call log.
type armedWebhook interface {
	http.Handler
	arm(mode string)
	len() int
	since(n int) [][]byte
}

// replayArmedSteps replays the steps of dir/file against aggsim (or,
// with CONV_CAPTURE set, against the reference, writing its answers into
// dir/refDir) with wh served on a loopback port (its certificate for
// host), and compares them with the answers in refDir: codes, Warning
// headers, bodies, and the calls wh received (exactCalls: the same
// calls per step; else see compareConversionStep). Fewer than minSteps
// requests fail the test. knownDiffs names steps whose answer is not
// compared, with the reason (their webhook calls still are).
func replayArmedSteps(t *testing.T, dir, file, refDir, host string, wh armedWebhook, exactCalls bool, minSteps int, knownDiffs map[string]string) {
	capture := os.Getenv("CONV_CAPTURE")
	whPort, caPEM := serveGoldenWebhook(t, host, wh)
	// REFUSED_PORT: a loopback port nothing listens on; OTHER_CA: a CA
	// that did not sign the webhook's certificate
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedPort := strconv.Itoa(refused.Addr().(*net.TCPAddr).Port)
	refused.Close()
	otherCA, err := certs.NewCA("golden-other-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ports := strings.NewReplacer(whPort, "WH_PORT", refusedPort, "REFUSED_PORT")
	fill := strings.NewReplacer("WH_PORT_INT", whPort, "WH_PORT", whPort, "REFUSED_PORT", refusedPort,
		"CA_BUNDLE", base64.StdEncoding.EncodeToString(caPEM), "OTHER_CA", base64.StdEncoding.EncodeToString(otherCA.CertPEM))

	var base string
	var client *http.Client
	if capture != "" {
		pki := os.Getenv("CONV_PKI")
		pair, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
		if err != nil {
			t.Fatal(err)
		}
		caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		base, client = capture, &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool}}}
	} else {
		s := Start(t)
		base, client = s.URL, s.Client()
		// the slow step waits 2 s, not upstream's 30 s; the URL and the
		// message still say ?timeout=30s
		s.agg.SetConversionWebhookWait(2 * time.Second)
	}
	refCalls := map[string]bool{} // every ConversionReview the reference received
	if capture == "" {
		files, _ := filepath.Glob(filepath.Join(dir, refDir, "*.wh.jsonl"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range normalizeCalls(t, bytesLines(string(b))) {
				refCalls[c] = true
			}
		}
	}

	steps := 0
	for _, st := range readGoldenSteps(t, filepath.Join(dir, file)) {
		name, method, path, ct, body := st.name, st.method, st.path, st.ct, st.body
		switch name {
		case "sleep":
			d, _ := strconv.Atoi(ct)
			if capture != "" {
				time.Sleep(time.Duration(d) * time.Second)
			} else {
				time.Sleep(200 * time.Millisecond)
				settleCRDs(t, client, base)
			}
			continue
		case "arm":
			wh.arm(ct)
			continue
		}
		if file, ok := strings.CutPrefix(body, "@"); ok {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			body = string(b)
		}
		body = fill.Replace(body)
		steps++
		before := wh.len()
		start := time.Now()
		gotCode, got := doGoldenStep(t, client, name, method, base+path, ct, body)
		took := time.Since(start)
		gotCalls := ports.Replace(strings.Join(toStrings(wh.since(before)), "\n"))
		if capture != "" {
			t.Logf("%s: %s in %v, %d calls", name, strings.SplitN(gotCode, "\n", 2)[0], took.Round(time.Millisecond), len(wh.since(before)))
			for ext, b := range map[string]string{".code": gotCode, ".body": ports.Replace(got), ".wh.jsonl": gotCalls} {
				if err := os.WriteFile(filepath.Join(dir, refDir, name+ext), []byte(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if knownDiffs[name] != "" {
			t.Logf("%s: answer not compared: %s", name, knownDiffs[name])
			gotCode, got = "", ""
		}
		compareConversionStep(t, filepath.Join(dir, refDir), name, gotCode, ports.Replace(got), gotCalls, refCalls, exactCalls)
	}
	if steps < minSteps {
		t.Fatalf("only %d steps read", steps)
	}
}

// goldenEscapedTime matches timestamps inside a JSON string (an object
// quoted in a message); goldenTransition a condition's
// lastTransitionTime.
var (
	goldenEscapedTime = regexp.MustCompile(`\\"(creationTimestamp|time)\\":\\"[^\\]*\\"`)
	goldenTransition  = regexp.MustCompile(`"lastTransitionTime": ?"[^"]*"`)
)

// normalizeConversion is normalizeGolden that also blanks the
// timestamps of objects quoted in messages and of conditions.
func normalizeConversion(s string) string {
	s = goldenTransition.ReplaceAllString(s, `"lastTransitionTime":"X"`)
	return normalizeGolden(goldenEscapedTime.ReplaceAllString(s, `\"$1\":\"X\"`))
}

// compareConversionStep compares one step with the reference. The
// reference's watch cache converts objects for its own list and watch as
// events arrive, so which step its calls land in varies from run to run,
// and lists are served from the cache without calls: every call aggsim
// makes must be one the reference made (same review, object and headers;
// uids and times normalised), and a failing step must have made exactly
// the calls the reference made (one, or none when the webhook could not
// be reached).
func compareConversionStep(t *testing.T, refDir, name, gotCode, gotBody, gotCalls string, refCalls map[string]bool, exactCalls bool) {
	t.Helper()
	read := func(ext string) string {
		b, err := os.ReadFile(filepath.Join(refDir, name+ext))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	wantCode := read(".code")
	if gotCode == "" && gotBody == "" { // a known difference
		return
	}
	if gotCode != wantCode {
		t.Errorf("%s: status and warnings\n got %q\nwant %q", name, gotCode, wantCode)
	}
	if g, w := normalizeConversion(gotBody), normalizeConversion(read(".body")); g != w {
		t.Errorf("%s: body\n got %s\nwant %s", name, g, w)
	}
	g, w := normalizeCalls(t, bytesLines(gotCalls)), normalizeCalls(t, bytesLines(read(".wh.jsonl")))
	if exactCalls {
		if !slices.Equal(g, w) {
			t.Errorf("%s: webhook calls\n got %s\nwant %s", name, g, w)
		}
		return
	}
	for i, c := range g {
		if !refCalls[c] {
			t.Errorf("%s: webhook call %d not among the reference's:\n%s\nreference's of this step:\n%s", name, i, c, strings.Join(w, "\n"))
		}
	}
	if !strings.HasPrefix(wantCode, "2") && !slices.Equal(g, w) {
		t.Errorf("%s: webhook calls\n got %s\nwant %s", name, g, w)
	}
}

// reviewEnvelopeFault applies to an answer review (a ConversionReview or
// an AdmissionReview) the envelope faults both replays inject, for mode:
// foreign-version, no-typemeta, no-kind-review, review-kind (kind
// otherKind), bad-apiversion and no-response. Other modes leave it as it
// is.
func reviewEnvelopeFault(review map[string]any, mode, otherKind string) {
	switch mode {
	case "foreign-version":
		review["apiVersion"] = "example.com/v1"
	case "no-typemeta":
		delete(review, "apiVersion")
		delete(review, "kind")
	case "no-kind-review":
		delete(review, "kind")
	case "review-kind":
		review["kind"] = otherKind
	case "bad-apiversion":
		review["apiVersion"] = "a/b/c"
	case "no-response":
		delete(review, "response")
	}
}
