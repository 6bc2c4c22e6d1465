package aggregatortest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/admission"
)

// postConfigMap creates a ConfigMap in default through the API and
// returns the status code, the body and the Warning headers.
func postConfigMap(t *testing.T, s *Server, body string) (int, string, []string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/v1/namespaces/default/configmaps", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Values("Warning")
}

func statusMessage(t *testing.T, body string) string {
	t.Helper()
	var st struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("not a Status: %s", body)
	}
	return st.Message
}

func TestRegisterAdmissionWebhookDeniesThroughService(t *testing.T) {
	s := Start(t)
	w := s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "deny.example.com", Handler: func(r *AdmissionRequest) AdmissionResponse {
		if r.Name == "bad" {
			return AdmissionResponse{Message: "bad is not allowed"}
		}
		return AdmissionResponse{Allowed: true, Warnings: []string{"looked at " + r.Name}}
	}})
	code, body, warns := postConfigMap(t, s, `{"metadata":{"name":"bad"}}`)
	if code != http.StatusForbidden || statusMessage(t, body) != `admission webhook "deny.example.com" denied the request: bad is not allowed` {
		t.Fatalf("deny: %d %s", code, body)
	}
	code, body, warns = postConfigMap(t, s, `{"metadata":{"name":"good"}}`)
	if code != http.StatusCreated || len(warns) != 1 || warns[0] != `299 - "looked at good"` {
		t.Fatalf("allow: %d %q %s", code, warns, body)
	}
	// aggsim's own writes (the extension-apiserver-authentication
	// ConfigMap in kube-system) pass the webhook too, as upstream's do.
	var reqs []AdmissionRequest
	for _, r := range w.Requests() {
		if r.Namespace == "default" {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 || reqs[0].Operation != "CREATE" || reqs[0].Namespace != "default" || reqs[1].Name != "good" ||
		reqs[0].Resource.Resource != "configmaps" || reqs[0].UserInfo.Username == "" {
		t.Fatalf("requests: %d, first %s", len(reqs), reqs[0].Raw)
	}
	// the debug ring shows both calls with their verdicts
	calls := s.Aggregator().AdmissionWebhooks().Ring().Calls()
	var verdicts []string
	for _, c := range calls {
		if c.Webhook == "deny.example.com" && c.Namespace == "default" {
			verdicts = append(verdicts, c.Verdict)
			if !strings.HasPrefix(c.URL, "https://deny-example-com.webhooks.svc:443/?timeout=10s") || len(c.Request) == 0 || len(c.Response) == 0 {
				t.Errorf("call record: %+v", c)
			}
		}
	}
	if strings.Join(verdicts, ",") != "denied,allowed" {
		t.Fatalf("ring verdicts %q", verdicts)
	}
	resp, err := s.Client().Get(s.URL + admission.DebugWebhooksPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Calls []admission.Call `json:"calls"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %v", admission.DebugWebhooksPath, resp.StatusCode, err)
	}
	if len(page.Calls) != len(calls) || page.Calls[0].Webhook != calls[0].Webhook {
		t.Fatalf("debug page has %d calls, ring %d", len(page.Calls), len(calls))
	}
}

func TestRegisterAdmissionWebhookMutates(t *testing.T) {
	s := Start(t)
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "label.example.com", Mutating: true, ByURL: true,
		Handler: func(r *AdmissionRequest) AdmissionResponse {
			return AdmissionResponse{Allowed: true, Patch: []byte(`[{"op":"add","path":"/data","value":{"added":"by-webhook"}}]`)}
		}})
	code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"m"}}`)
	if code != http.StatusCreated || !strings.Contains(body, `"added":"by-webhook"`) {
		t.Fatalf("%d %s", code, body)
	}
}

// The failure texts are kube-apiserver 1.33.13's for the same faults
// (measured with a loopback webhook, see webhook_golden_test.go), with
// the address and port of this test's webhook.
func TestAdmissionWebhookFaults(t *testing.T) {
	s := Start(t)
	w := s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "faulty.example.com", TimeoutSeconds: 1})
	ign := s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "ignored.example.com", FailurePolicy: "Ignore", TimeoutSeconds: 1, Service: "ignored"})
	ign.FailWith(http.StatusInternalServerError)

	w.SetLatency(3 * time.Second)
	code, body, _ := postConfigMap(t, s, `{"metadata":{"name":"slow"}}`)
	want := `Internal error occurred: failed calling webhook "faulty.example.com": failed to call webhook: Post "https://faulty-example-com.webhooks.svc:443/?timeout=1s": context deadline exceeded`
	if code != http.StatusInternalServerError || statusMessage(t, body) != want {
		t.Fatalf("latency: %d %s", code, body)
	}
	w.SetLatency(0)

	w.FailWith(http.StatusServiceUnavailable)
	code, body, _ = postConfigMap(t, s, `{"metadata":{"name":"unavailable"}}`)
	// a Status body is passed through as client-go decodes it
	want = `Internal error occurred: failed calling webhook "faulty.example.com": failed to call webhook: injected failure: 503 Service Unavailable`
	if code != http.StatusInternalServerError || statusMessage(t, body) != want {
		t.Fatalf("503: %d %s", code, body)
	}
	w.Restore()

	w.PresentWrongCertificate()
	code, body, _ = postConfigMap(t, s, `{"metadata":{"name":"wrongcert"}}`)
	re := regexp.MustCompile(`^Internal error occurred: failed calling webhook "faulty.example.com": failed to call webhook: Post "https://faulty-example-com.webhooks.svc:443/\?timeout=1s": tls: failed to verify certificate: x509: certificate is valid for not-faulty-example-com.webhooks.svc, not faulty-example-com.webhooks.svc$`)
	if code != http.StatusInternalServerError || !re.MatchString(statusMessage(t, body)) {
		t.Fatalf("wrong certificate: %d %s", code, body)
	}
	w.Restore()

	// With the faulty webhook healthy, the failing Ignore webhook lets
	// the request through.
	code, body, _ = postConfigMap(t, s, `{"metadata":{"name":"fine"}}`)
	if code != http.StatusCreated {
		t.Fatalf("after restore: %d %s", code, body)
	}
	if n := len(ign.Requests()); n != 0 {
		t.Fatalf("FailWith answers before the handler, yet it saw %d requests", n)
	}
}

// TestAdmissionWebhookWithKubectl: kubectl 1.33 prints a webhook's
// warnings and denial as it does against kube-apiserver 1.33.13 (same
// manifest and webhook answers, output compared by hand:
// `kubectl create -f` of one allowed and one denied ConfigMap).
func TestAdmissionWebhookWithKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	s := Start(t)
	s.RegisterAdmissionWebhook(t, WebhookOptions{Name: "kdeny.example.com", Handler: func(r *AdmissionRequest) AdmissionResponse {
		if r.Name == "kcm" {
			return AdmissionResponse{Message: "nope, not today"}
		}
		return AdmissionResponse{Allowed: true, Warnings: []string{"first warning", "second, with comma"}}
	}})
	dir := t.TempDir()
	manifest := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kcm2}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: kcm}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, "--kubeconfig", s.KubeconfigPath(), "create", "-f", manifest)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err == nil {
		t.Fatal("kubectl succeeded")
	}
	wantErr := "Warning: first warning\nWarning: second, with comma\nError from server: error when creating \"" + manifest +
		"\": admission webhook \"kdeny.example.com\" denied the request: nope, not today\n"
	if stdout.String() != "configmap/kcm2 created\n" || stderr.String() != wantErr {
		t.Fatalf("stdout %q\nstderr %q", stdout.String(), stderr.String())
	}
}
