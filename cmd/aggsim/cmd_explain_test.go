package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/apiregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// startExplainServer runs an aggsim Server behind a TLS listener on
// 127.0.0.1 that authenticates client certificates of clientCA, and waits
// until the local APIService "v1." is Available.
func startExplainServer(t *testing.T, clientCA *certs.CA) *httptest.Server {
	t.Helper()
	s, err := aggregator.New(aggregator.Options{Storage: storage.NewMemory(), ClientCA: clientCA.Pool})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	srv := httptest.NewUnstartedServer(s.Handler())
	srv.TLS = &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: clientCA.Pool()}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	deadline := time.Now().Add(15 * time.Second)
	for {
		o, err := s.API().Store(meta.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}).Get(ctx, "", "v1.")
		if err == nil && o.(*apiregistration.APIService).IsAvailable() {
			return srv
		}
		if time.Now().After(deadline) {
			t.Fatalf("v1. never Available: %v %+v", err, o)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startExplainAdmin starts an explain server (startExplainServer) and
// returns it, the path of a kubeconfig for a system:masters client
// certificate user, and the server's CA certificate in PEM.
func startExplainAdmin(t *testing.T) (*httptest.Server, string, []byte) {
	t.Helper()
	clientCA, err := certs.NewCA("client-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := clientCA.IssueClient("admin", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	srv := startExplainServer(t, clientCA)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	kc, err := certs.KubeconfigBytes(srv.URL, caPEM, admin.CertPEM, admin.KeyPEM, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, path, caPEM
}

func runExplainCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newExplainCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

var explainTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// TestExplainCommand reads a kubeconfig with embedded CA and client
// certificate (no client-go), asks the debug endpoint and prints it; an
// unknown name fails as kubectl does; the server refuses a client without
// credentials (anonymous is off).
func TestExplainCommand(t *testing.T) {
	srv, path, caPEM := startExplainAdmin(t)

	out, err := runExplainCmd(t, "apiservice", "v1.", "--kubeconfig", path)
	if err != nil {
		t.Fatal(err)
	}
	want := `APIService:   v1.
Group:        v1 (legacy core group)
Service:      Local
Available:    True (Local)
              since TIME
              Local APIServices are always available
Checks:
  1. local      ok       no spec.service: served by aggsim itself
Proxying:     will work
Advice:       none: aggsim serves this group/version itself
`
	if got := explainTime.ReplaceAllString(out, "TIME"); got != want {
		t.Errorf("explain v1.:\n%s\nwant:\n%s", got, want)
	}

	out, err = runExplainCmd(t, "apiservices", "--kubeconfig", path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(out, "\n"); len(lines) < 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME SERVICE AVAILABLE REASON MESSAGE" ||
		strings.Join(strings.Fields(lines[1]), " ") != "v1. Local True Local Local APIServices are always available" {
		t.Errorf("list:\n%s", out)
	}

	out, err = runExplainCmd(t, "apiservice", "v1.", "--kubeconfig", path, "-o", "json")
	if err != nil || !strings.Contains(out, `"reason": "Local"`) || !strings.HasPrefix(out, "{\n  \"name\": \"v1.\",") {
		t.Errorf("json: %v\n%s", err, out)
	}

	_, err = runExplainCmd(t, "apiservice", "v1.nosuch.example.com", "--kubeconfig", path)
	if want := `Error from server (NotFound): apiservices.apiregistration.k8s.io "v1.nosuch.example.com" not found`; err == nil || err.Error() != want {
		t.Errorf("unknown name: %v, want %s", err, want)
	}

	// --server and --certificate-authority without a client certificate:
	// authentication fails with upstream's 401 Status.
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
	_, err = runExplainCmd(t, "apiservice", "v1.", "--server", srv.URL, "--certificate-authority", caFile, "--kubeconfig", "")
	if err == nil {
		t.Error("missing kubeconfig file: no error")
	}
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	_, err = runExplainCmd(t, "apiservice", "v1.", "--server", srv.URL, "--certificate-authority", caFile)
	if want := "Error from server (Unauthorized): Unauthorized"; err == nil || err.Error() != want {
		t.Errorf("no credentials: %v, want %s", err, want)
	}
}
