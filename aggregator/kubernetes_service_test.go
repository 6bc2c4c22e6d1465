package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/storage"
)

// runServer runs a Server over st until the test ends or stop is called,
// and returns once it is ready.
func runServer(t *testing.T, opts Options) (s *Server, stop func()) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	select {
	case <-s.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("server not ready")
	}
	return s, stop
}

// volatile matches what differs between two servers' answers: uids,
// resourceVersions and timestamps.
var volatile = regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"`)

func normalizedJSON(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return volatile.ReplaceAllString(out.String(), `"$1":"X"`)
}

func getJSON(t *testing.T, s *Server, path string) []byte {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	r.Header.Set("User-Agent", "curl/8.5.0")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
	}
	return w.Body.Bytes()
}

// The default/kubernetes Service and its Endpoints exist from the start
// as on kube-apiserver 1.33.13 (captured with curl .../services/kubernetes
// and .../endpoints/kubernetes from the reference started with
// --secure-port=21443 --advertise-address=192.0.2.10
// --endpoint-reconciler-type=lease: testdata/registry/services/ref-svc.json
// and ref-ep.json), managedFields included; the same bytes but uids,
// resourceVersions and times. A later start on another port brings the
// Endpoints port up to date but leaves the Service, targetPort included, as
// it was: the reference restarted with KEEP_DATA=1 on --secure-port=24447
// after 24443 answered `kubectl get svc kubernetes -o yaml` unchanged
// (targetPort: 24443, same resourceVersion); upstream's bootstrap controller
// only creates it. aggsim had neither object before.
func TestKubernetesServiceReference(t *testing.T) {
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	opts := Options{Storage: st, Anonymous: true, SecurePort: 21443, AdvertiseAddress: "192.0.2.10"}
	s, stop := runServer(t, opts)
	for _, c := range []struct{ path, file string }{
		{"/api/v1/namespaces/default/services/kubernetes", "ref-svc.json"},
		{"/api/v1/namespaces/default/endpoints/kubernetes", "ref-ep.json"},
	} {
		want, err := os.ReadFile("../testdata/registry/services/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := normalizedJSON(t, getJSON(t, s, c.path)), normalizedJSON(t, want); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.path, got, want)
		}
	}
	stop()

	opts.SecurePort, opts.AdvertiseAddress = 21500, ""
	s, _ = runServer(t, opts)
	// The Endpoints update runs once the server is ready, as upstream's
	// endpoint reconciler after start: wait for it (bounded).
	wantEp := `"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"name":"https","port":21500,"protocol":"TCP"}]}]`
	var svc, ep string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ep = normalizedJSON(t, getJSON(t, s, "/api/v1/namespaces/default/endpoints/kubernetes"))
		if strings.Contains(ep, wantEp) || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(ep, wantEp) {
		t.Errorf("after a restart on 21500: %s", ep)
	}
	wantSvc, err := os.ReadFile("../testdata/registry/services/ref-svc.json")
	if err != nil {
		t.Fatal(err)
	}
	if svc = normalizedJSON(t, getJSON(t, s, "/api/v1/namespaces/default/services/kubernetes")); svc != normalizedJSON(t, wantSvc) {
		t.Errorf("after a restart on 21500 the Service changed (upstream keeps it, targetPort 21443):\n got %s\nwant %s", svc, normalizedJSON(t, wantSvc))
	}
	if n := bytes.Count([]byte(svc+ep), []byte(`"manager":`)); n != 2 {
		t.Errorf("%d managedFields entries, want one each:\n%s\n%s", n, svc, ep)
	}
}
