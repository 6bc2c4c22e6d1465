package aggregatortest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
)

// widgetsCRD is the golden test's Widget CRD without conversion.
func widgetsCRD(t *testing.T) *apiextensions.CustomResourceDefinition {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(conversionGoldenDir, "widgets-crd.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m["spec"].(map[string]any), "conversion") // its caBundle is a placeholder
	b, _ = json.Marshal(m)
	var crd apiextensions.CustomResourceDefinition
	if err := json.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	return &crd
}

func doJSON(t *testing.T, s *Server, method, path, body string) (int, map[string]any, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, m, string(b)
}

// TestRegisterConversionWebhook: a conversion webhook registered on a
// two-version CRD converts reads, writes, lists and watches; its calls are
// recorded (Requests, /debug/aggsim/conversions); the backends' faults
// fail reads with upstream's messages (500, wrong certificate, too slow).
func TestRegisterConversionWebhook(t *testing.T) {
	s := Start(t, WithCRDObjects(widgetsCRD(t)))
	wh := s.RegisterConversionWebhook(t, ConversionWebhookOptions{CRD: "widgets.conv.example.com", Handler: func(o map[string]any, to string) (map[string]any, error) {
		return convertToppings(o, to), nil
	}})
	const v1, v2 = "/apis/conv.example.com/v1/namespaces/default/widgets", "/apis/conv.example.com/v2/namespaces/default/widgets"

	// a watch in v2 sees the object created in v1 converted
	wreq, _ := http.NewRequest(http.MethodGet, s.URL+v2+"?watch=1&timeoutSeconds=5", nil)
	wresp, err := s.Client().Do(wreq)
	if err != nil {
		t.Fatal(err)
	}
	defer wresp.Body.Close()

	if code, _, out := doJSON(t, s, http.MethodPost, v1, `{"apiVersion":"conv.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"toppings":["ham"]}}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, out)
	}
	line, err := bufio.NewReader(wresp.Body).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type   string         `json:"type"`
		Object map[string]any `json:"object"`
	}
	_ = json.Unmarshal([]byte(line), &ev)
	if ev.Type != "ADDED" || ev.Object["apiVersion"] != "conv.example.com/v2" || mustJSON(ev.Object["spec"]) != `{"toppings":[{"name":"ham","quantity":1}]}` {
		t.Errorf("watch event: %s", line)
	}

	code, obj, out := doJSON(t, s, http.MethodGet, v2+"/w1", "")
	if code != http.StatusOK || obj["apiVersion"] != "conv.example.com/v2" || mustJSON(obj["spec"]) != `{"toppings":[{"name":"ham","quantity":1}]}` {
		t.Fatalf("GET v2: %d %s", code, out)
	}
	code, obj, out = doJSON(t, s, http.MethodGet, v2, "")
	items, _ := obj["items"].([]any)
	if code != http.StatusOK || len(items) != 1 || !strings.Contains(out, `"quantity":1`) {
		t.Fatalf("LIST v2: %d %s", code, out)
	}
	reqs := wh.Requests()
	if len(reqs) < 2 || reqs[len(reqs)-1].DesiredAPIVersion != "conv.example.com/v2" || len(reqs[len(reqs)-1].Objects) != 1 {
		t.Fatalf("requests: %+v", reqs)
	}
	calls := s.Aggregator().ConversionCalls()
	last := calls[len(calls)-1]
	if last.CRD != "widgets.conv.example.com" || last.From != "conv.example.com/v1" || last.To != "conv.example.com/v2" || last.Error != "" || last.StatusCode != 200 ||
		last.URL != "https://"+wh.ServerName+":443/convert?timeout=30s" {
		t.Errorf("last call: %+v", last)
	}
	code, _, out = doJSON(t, s, http.MethodGet, "/debug/aggsim/conversions", "")
	if code != http.StatusOK || !strings.Contains(out, `"crd":"widgets.conv.example.com","from":"conv.example.com/v1","to":"conv.example.com/v2"`) {
		t.Errorf("/debug/aggsim/conversions: %d %s", code, out)
	}

	prefix := "conversion webhook for conv.example.com/v1, Kind=Widget failed: "
	wh.FailWith(http.StatusInternalServerError)
	code, obj, out = doJSON(t, s, http.MethodGet, v2+"/w1", "")
	// the backend answers a Status, whose message client-go passes on
	if msg, _ := obj["message"].(string); code != http.StatusInternalServerError || msg != prefix+"injected failure: 500 Internal Server Error" || obj["reason"] != nil {
		t.Errorf("FailWith(500): %d %s", code, out)
	}
	wh.Restore()
	wh.PresentWrongCertificate()
	s.Aggregator().AdmissionWebhooks().CloseIdleConnections()
	code, obj, out = doJSON(t, s, http.MethodGet, v2+"/w1", "")
	if msg, _ := obj["message"].(string); code != http.StatusInternalServerError ||
		!strings.HasPrefix(msg, prefix+`Post "https://`+wh.ServerName+`:443/convert?timeout=30s": tls: failed to verify certificate: x509: certificate is valid for not-`) {
		t.Errorf("PresentWrongCertificate: %d %s", code, out)
	}
	wh.Restore()
	s.Aggregator().AdmissionWebhooks().CloseIdleConnections()
	s.Aggregator().SetConversionWebhookWait(300 * time.Millisecond)
	wh.SetLatency(2 * time.Second)
	code, obj, _ = doJSON(t, s, http.MethodGet, v2+"/w1", "")
	if msg, _ := obj["message"].(string); code != http.StatusInternalServerError || msg != prefix+`Post "https://`+wh.ServerName+`:443/convert?timeout=30s": context deadline exceeded` {
		t.Errorf("SetLatency: %d %v", code, obj["message"])
	}
	wh.Restore()
	s.Aggregator().SetConversionWebhookWait(30 * time.Second)
	// reads in the storage version never call the webhook
	n := len(wh.Requests())
	if code, _, out := doJSON(t, s, http.MethodGet, v1+"/w1", ""); code != http.StatusOK || len(wh.Requests()) != n {
		t.Errorf("GET v1: %d %s, %d calls", code, out, len(wh.Requests())-n)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
