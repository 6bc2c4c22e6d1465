package aggregator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/storage"
)

// TestIndexPaths pins GET / against kube-apiserver 1.33.13's answer
// (testdata/aggregator/index/ref-root.json, captured from the reference
// with `curl -sk --cert admin.crt --key admin.key https://127.0.0.1:24443/`):
// 200, Content-Type application/json, two-space indentation, no trailing
// newline, and every path aggsim lists is listed there. Upstream's list
// has in addition exactly what aggsim does not serve: the API groups it
// does not implement, OIDC discovery, /metrics/slis and the post-start
// hooks README lists as not run. No unlisted path (/api/, /version/,
// /apis/<group>/, /debug/pprof, ...) appears. aggsim answered 404 before.
func TestIndexPaths(t *testing.T) {
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	s, _ := runServer(t, Options{Storage: st, Anonymous: true, SecurePort: 21443, Profiling: true})
	raw, err := os.ReadFile("../testdata/aggregator/index/ref-root.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref rootPaths
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/index.html"} {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %v", path, w.Code, w.Header())
		}
		body := w.Body.String()
		var got rootPaths
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, body)
		}
		// Same encoding as the reference: re-encoding the reference's
		// shape with aggsim's list must give aggsim's bytes.
		want, _ := json.MarshalIndent(rootPaths{Paths: got.Paths}, "", "  ")
		if body != string(want) || strings.HasSuffix(body, "\n") || !strings.HasPrefix(body, "{\n  \"paths\": [\n    \"/api\",\n    \"/api/v1\",\n") {
			t.Errorf("GET %s encoding:\n%s", path, body)
		}
		var missing []string
		for _, p := range ref.Paths {
			if !slices.Contains(got.Paths, p) {
				missing = append(missing, p)
			}
		}
		for _, p := range got.Paths {
			if !slices.Contains(ref.Paths, p) {
				t.Errorf("GET %s lists %q, which kube-apiserver 1.33 does not", path, p)
			}
		}
		if !slices.IsSorted(got.Paths) || len(slices.Compact(slices.Clone(got.Paths))) != len(got.Paths) {
			t.Errorf("GET %s: not sorted or repeated: %q", path, got.Paths)
		}
		for _, p := range missing {
			if !notServedByAggsim(p) {
				t.Errorf("GET %s misses %q", path, p)
			}
		}
	}
}

// notServedByAggsim reports whether path, listed by kube-apiserver 1.33, is
// one README says aggsim does not serve.
func notServedByAggsim(path string) bool {
	for _, g := range []string{"apiextensions.k8s.io", "apps", "autoscaling", "batch", "certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "networking.k8s.io", "node.k8s.io", "policy", "scheduling.k8s.io", "storage.k8s.io"} {
		if path == "/apis/"+g || strings.HasPrefix(path, "/apis/"+g+"/") {
			return true
		}
	}
	switch path {
	case "/.well-known/openid-configuration", "/openid/v1/jwks", "/metrics/slis":
		return true
	}
	for _, hook := range []string{"start-apiserver-admission-initializer", "priority-and-fairness-config-consumer", "priority-and-fairness-filter", "storage-object-count-tracker-hook", "start-apiextensions-informers", "start-apiextensions-controllers", "crd-informer-synced", "start-kube-apiserver-identity-lease-controller", "start-kube-apiserver-identity-lease-garbage-collector", "start-legacy-token-tracking-controller", "start-service-ip-repair-controllers", "rbac/bootstrap-roles", "scheduling/bootstrap-system-priority-classes", "priority-and-fairness-config-producer", "bootstrap-controller", "start-kubernetes-service-cidr-controller"} {
		for _, ep := range []string{"healthz", "livez", "readyz"} {
			if path == "/"+ep+"/poststarthook/"+hook {
				return true
			}
		}
	}
	return false
}
