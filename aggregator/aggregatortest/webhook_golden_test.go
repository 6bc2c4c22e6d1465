package aggregatortest

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
)

// webhookGoldenDir holds what kube-apiserver 1.33.13 answered, and what
// its admission webhooks received, for steps.txt. Captured with
// ../shared/reference (NO_BACKEND=1) and a loopback HTTPS webhook on
// 127.0.0.1:17920 answering by path as goldenWebhook does (its CA as every
// caBundle; 17949 had no listener): for each line "name|method|path|
// content-type|body" of steps.txt, in order,
//
//	curl -s -D <name>.hdr -o <name>.body --cacert ca.crt --cert admin.crt --key admin.key \
//	  -X <method> -H "Content-Type: <content-type>" --data-binary "<body>" https://127.0.0.1:17900<path>
//
// with the webhook's log lines of that step in <name>.wh.jsonl (method,
// request URI, Content-Type, Accept, User-Agent, protocol, the
// AdmissionReview received). <name>.code keeps the status code and the
// Warning headers; ports are WH_PORT and REFUSED_PORT.
const webhookGoldenDir = "../../testdata/admission/webhooks"

// goldenWebhook answers AdmissionReviews by URL path as the capture's
// webhook did, and logs each call as a line of <name>.wh.jsonl.
type goldenWebhook struct {
	webhookCallLog
}

func (g *goldenWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := g.record(r)
	var rev map[string]any
	_ = json.Unmarshal(b, &rev)
	req, _ := rev["request"].(map[string]any)
	uid, _ := req["uid"].(string)
	resp := map[string]any{"uid": uid, "allowed": true}
	switch r.URL.Path {
	case "/allow", "/mallow":
	case "/deny":
		resp["allowed"] = false
		resp["status"] = map[string]any{"message": "nope, not today", "code": 403}
	case "/deny-bare":
		resp["allowed"] = false
	case "/deny-reason":
		resp["allowed"] = false
		resp["status"] = map[string]any{"reason": "NotAllowedHere", "code": 422}
	case "/patch":
		resp["patchType"] = "JSONPatch"
		resp["patch"] = []byte(`[{"op":"add","path":"/metadata/labels","value":{"patched":"yes"}}]`)
	case "/add-a":
		obj, _ := req["object"].(map[string]any)
		md, _ := obj["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		if labels["a"] == nil {
			resp["patchType"] = "JSONPatch"
			resp["patch"] = []byte(`[{"op":"add","path":"/metadata/labels/a","value":"1"}]`)
		}
	case "/warn":
		resp["warnings"] = []string{"first warning", "second, with comma"}
		resp["auditAnnotations"] = map[string]string{"a": "b"}
	case "/slow":
		t := time.NewTimer(3 * time.Second)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	case "/wronguid":
		resp["uid"] = "not-the-uid"
	case "/garbage":
		_, _ = w.Write([]byte("not json"))
		return
	case "/500":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": rev["apiVersion"], "kind": "AdmissionReview", "response": resp})
}

// webhookCallLog records each call a golden webhook receives as one
// line of <name>.wh.jsonl: method, request URI, Content-Type, Accept,
// User-Agent, protocol and the body.
type webhookCallLog struct {
	mu  sync.Mutex
	log [][]byte
}

// record reads r's body, logs the call and returns the body.
func (l *webhookCallLog) record(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	e, _ := json.Marshal(map[string]any{"method": r.Method, "uri": r.RequestURI, "ct": r.Header.Get("Content-Type"),
		"accept": r.Header.Get("Accept"), "ua": r.Header.Get("User-Agent"), "proto": r.Proto, "body": json.RawMessage(b)})
	l.mu.Lock()
	l.log = append(l.log, e)
	l.mu.Unlock()
	return b
}

// since returns the calls logged from the n-th on.
func (l *webhookCallLog) since(n int) [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.log[n:])
}

func (l *webhookCallLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.log)
}

// serveGoldenWebhook serves h over HTTPS (h2 and http/1.1) on a loopback
// port until the test ends, with a certificate for localhost,
// <host>.default.svc and 127.0.0.1 from a new CA; it returns the port and
// the CA's PEM.
func serveGoldenWebhook(t *testing.T, host string, h http.Handler) (port string, caPEM []byte) {
	t.Helper()
	ca, err := certs.NewCA("golden-"+host+"-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.IssueServing(host, []string{"localhost", host + ".default.svc"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}}
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = hs.Close() })
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), ca.CertPEM
}

// doGoldenStep sends one step as the capture's curl did and returns the
// status code followed by the Warning headers, one a line (as <name>.code
// holds them), and the body.
func doGoldenStep(t *testing.T, client *http.Client, name, method, url, ct, body string) (code, got string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("User-Agent", "curl/8.5.0")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	code = strconv.Itoa(resp.StatusCode) + "\n"
	for _, w := range resp.Header.Values("Warning") {
		code += w + "\n"
	}
	return code, string(b)
}

var (
	goldenVolatile = regexp.MustCompile(`"(uid|creationTimestamp|time|resourceVersion|caBundle)": ?"[^"]*"`)
	goldenUUID     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	goldenGenName  = regexp.MustCompile(`gen-[a-z0-9]{5}`)
	goldenCredID   = regexp.MustCompile(`X509SHA256=[0-9a-f]{64}`)
	goldenAdmin    = regexp.MustCompile(`"username": ?"(kubernetes-admin|aggsim-admin)"`)
)

// normalizeGolden blanks what differs between any two servers: uids,
// timestamps, resourceVersions, generated names, the admin's name and
// certificate hash; managedFields entries, which only their blanked
// times may order, are put in one order (sortManagedFieldsText).
func normalizeGolden(s string) string {
	s = sortManagedFieldsText(goldenVolatile.ReplaceAllString(s, `"$1":"X"`))
	s = goldenUUID.ReplaceAllString(s, "UUID")
	s = goldenGenName.ReplaceAllString(s, "gen-XXXXX")
	s = goldenCredID.ReplaceAllString(s, "X509SHA256=X")
	return goldenAdmin.ReplaceAllString(s, `"username":"ADMIN"`)
}

// normalizeCalls normalises webhook log lines and sorts them (validating
// webhooks are called in parallel, so their order is free).
func normalizeCalls(t *testing.T, lines [][]byte) []string {
	t.Helper()
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		var v any
		if err := json.Unmarshal(l, &v); err != nil {
			t.Fatalf("webhook log line %q: %v", l, err)
		}
		b, _ := json.MarshalIndent(v, "", " ")
		out = append(out, normalizeGolden(string(b)))
	}
	slices.Sort(out)
	return out
}

// TestAdmissionWebhooksMatchReference replays steps.txt against aggsim
// with the same webhook and compares status codes, Warning headers,
// bodies and every AdmissionReview the webhook received with what
// kube-apiserver 1.33.13 answered and sent.
func TestAdmissionWebhooksMatchReference(t *testing.T) {
	replayAdmissionSteps(t, "steps.txt", 25, nil)
}

// TestMutatingReinvocationMatchesReference: two mutating configurations
// (reinv-steps.txt) where a later webhook replaces the labels an earlier
// IfNeeded webhook added; the calls, the objects each one saw, and what
// the validating webhook saw are 1.33.13's. (The answers to the first two
// creates are the reference's GET of the objects, which carries the same
// fields.)
func TestMutatingReinvocationMatchesReference(t *testing.T) {
	replayAdmissionSteps(t, "reinv-steps.txt", 5, nil)
}

// TestConnectAdmissionMatchesReference: a CONNECT to services/proxy is
// sent as 1.33.13 sends it (kind ServiceProxyOptions, subResource proxy,
// the path as the object, options null) and the denial answered before
// the proxy looks at the Service. (The reference held a second, identical
// CONNECT webhook at capture time; its call is left out.)
func TestConnectAdmissionMatchesReference(t *testing.T) {
	replayAdmissionSteps(t, "connect-steps.txt", 4, nil)
}

// TestValidatingAdmissionPoliciesMatchReference replays vap-steps.txt
// (captured from a freshly started kube-apiserver 1.33.13 with
// ../shared/reference/up.sh, waiting 3 s after each policy, binding and
// parameter write for its informers): denials by message,
// messageExpression and reason, variables, params through paramRef and
// parameterNotFoundAction Deny, match conditions, evaluation errors under
// failurePolicy Fail, and Warn.
func TestValidatingAdmissionPoliciesMatchReference(t *testing.T) {
	replayAdmissionSteps(t, "vap-steps.txt", 13, map[string]string{
		"vap-policy": "managedFields: upstream's Variable is atomic (k:{\"name\":\"keys\"}: {}), aggsim tracks its fields",
	})
}

// costlyUnderRace are the replayed requests whose policies evaluate
// millions of CEL cost units (the budget cases of vapcel-steps.txt and
// vapcel-vars-steps.txt): over a minute under -race, where a request may
// time out (504). They are the last of their files, so nothing after them
// depends on them; `make unit` replays them without -race.
var costlyUnderRace = map[string]bool{"vc-budget": true, "vc-budget-warn": true, "vc-budget-ignore": true, "vc-budget-ok": true, "vc-msgbudget": true}

// replayAdmissionSteps runs the steps of file against a new Server and a
// loopback webhook (see goldenWebhook) and compares them with the
// captures; knownBodyDiffs names steps whose body is not compared, with
// the reason; opts configure the Server.
func replayAdmissionSteps(t *testing.T, file string, minSteps int, knownBodyDiffs map[string]string, opts ...Option) {
	s := Start(t, opts...)
	wh := &goldenWebhook{}
	whPort, caPEM := serveGoldenWebhook(t, "wh", wh)
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedPort := strconv.Itoa(refused.Addr().(*net.TCPAddr).Port)
	refused.Close()
	ports := strings.NewReplacer(whPort, "WH_PORT", refusedPort, "REFUSED_PORT")
	fill := strings.NewReplacer("WH_PORT", whPort, "REFUSED_PORT", refusedPort, "CA_BUNDLE", base64.StdEncoding.EncodeToString(caPEM))

	steps := 0
	for _, st := range readGoldenSteps(t, filepath.Join(webhookGoldenDir, file)) {
		name, method, path, ct, body := st.name, st.method, st.path, st.ct, st.body
		if file, ok := strings.CutPrefix(body, "@"); ok {
			b, err := os.ReadFile(filepath.Join(webhookGoldenDir, file))
			if err != nil {
				t.Fatal(err)
			}
			body = string(b)
		}
		body = fill.Replace(body)
		steps++
		if raceEnabled && costlyUnderRace[name] {
			t.Logf("%s: skipped under -race (millions of CEL cost units; `make unit` replays it without -race)", name)
			continue
		}
		if name == "create-plain" {
			// managedFields entries are ordered by time, then manager: the
			// capture's create and update of "plain" shared a second, so
			// start them at the beginning of one.
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
		}
		before := wh.len()
		gotCode, got := doGoldenStep(t, s.Client(), name, method, s.URL+path, ct, body)
		gotCalls := normalizeCalls(t, bytesLines(ports.Replace(strings.Join(toStrings(wh.since(before)), "\n"))))

		wantCode, err := os.ReadFile(filepath.Join(webhookGoldenDir, "ref", name+".code"))
		if err != nil {
			t.Fatal(err)
		}
		if gotCode != string(wantCode) {
			t.Errorf("%s: status and warnings\n got %q\nwant %q", name, gotCode, wantCode)
		}
		wantBody, err := os.ReadFile(filepath.Join(webhookGoldenDir, "ref", name+".body"))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := normalizeGolden(ports.Replace(got)), normalizeGolden(string(wantBody)); g != w && knownBodyDiffs[name] == "" {
			t.Errorf("%s: body\n got %s\nwant %s", name, g, w)
		}
		wantLog, err := os.ReadFile(filepath.Join(webhookGoldenDir, "ref", name+".wh.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		wantCalls := normalizeCalls(t, bytesLines(string(wantLog)))
		if len(gotCalls) != len(wantCalls) {
			t.Errorf("%s: webhook calls: got %d, want %d\n got %s\nwant %s", name, len(gotCalls), len(wantCalls), gotCalls, wantCalls)
			continue
		}
		for i := range gotCalls {
			if gotCalls[i] != wantCalls[i] {
				t.Errorf("%s: webhook call %d\n got %s\nwant %s", name, i, gotCalls[i], wantCalls[i])
			}
		}
	}
	if steps < minSteps {
		t.Fatalf("only %d steps read", steps)
	}
}

func toStrings(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// bytesLines splits s into its non-empty lines.
func bytesLines(s string) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}
