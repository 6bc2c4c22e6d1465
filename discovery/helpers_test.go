package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aggsim/aggsim/aggregator/request"
	"sigs.k8s.io/yaml"
)

// testdata returns the path of a file under testdata/discovery.
func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "discovery"}, parts...)...)
}

func readFile(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(testdata(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// yamlAPIService is the part of an apiregistration.k8s.io/v1 APIService the
// tests read from the captured apiservices.yaml files.
type yamlAPIService struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group                 string `json:"group"`
		Version               string `json:"version"`
		GroupPriorityMinimum  int32  `json:"groupPriorityMinimum"`
		VersionPriority       int32  `json:"versionPriority"`
		InsecureSkipTLSVerify bool   `json:"insecureSkipTLSVerify"`
		CABundle              []byte `json:"caBundle"`
		Service               *struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			Port      *int32 `json:"port"`
		} `json:"service"`
	} `json:"spec"`
}

// loadAPIServices parses a multi-document apiservices.yaml; every
// APIService is Available.
func loadAPIServices(t testing.TB, parts ...string) []APIService {
	t.Helper()
	var out []APIService
	for _, doc := range strings.Split(string(readFile(t, parts...)), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var y yamlAPIService
		if err := yaml.Unmarshal([]byte(doc), &y); err != nil {
			t.Fatal(err)
		}
		s := APIService{
			Name:                  y.Metadata.Name,
			Group:                 y.Spec.Group,
			Version:               y.Spec.Version,
			GroupPriorityMinimum:  y.Spec.GroupPriorityMinimum,
			VersionPriority:       y.Spec.VersionPriority,
			CABundle:              y.Spec.CABundle,
			InsecureSkipTLSVerify: y.Spec.InsecureSkipTLSVerify,
			Available:             true,
		}
		if y.Spec.Service != nil {
			port := int32(443)
			if y.Spec.Service.Port != nil {
				port = *y.Spec.Service.Port
			}
			s.Service = &ServiceRef{Namespace: y.Spec.Service.Namespace, Name: y.Spec.Service.Name, Port: port}
		}
		out = append(out, s)
	}
	return out
}

// recordedRequest is what a fake backend received.
type recordedRequest struct {
	Path, Accept, IfNoneMatch, User string
	Groups                          []string
}

func (r recordedRequest) String() string {
	return fmt.Sprintf("GET %s accept=%s inm=%s user=%s groups=%v", r.Path, r.Accept, r.IfNoneMatch, r.User, r.Groups)
}

// fakeBackends is a Fetcher that serves each request with the handler
// registered for the APIService's service name and port, and records it.
type fakeBackends struct {
	mu       sync.Mutex // guards handlers and log
	handlers map[string]http.Handler
	log      map[string][]recordedRequest
}

func newFakeBackends() *fakeBackends {
	return &fakeBackends{handlers: map[string]http.Handler{}, log: map[string][]recordedRequest{}}
}

func backendName(name string, port int32) string { return fmt.Sprintf("%s:%d", name, port) }

func (f *fakeBackends) set(name string, port int32, h http.Handler) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[backendName(name, port)] = h
}

func (f *fakeBackends) requests(name string, port int32) []recordedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedRequest(nil), f.log[backendName(name, port)]...)
}

func (f *fakeBackends) Do(ctx context.Context, svc APIService, req *http.Request) (*http.Response, error) {
	key := backendName(svc.Service.Name, svc.Service.Port)
	rr := recordedRequest{Path: req.URL.Path, Accept: req.Header.Get("Accept"), IfNoneMatch: req.Header.Get("If-None-Match")}
	if u, ok := request.UserFrom(req.Context()); ok {
		rr.User, rr.Groups = u.Username, u.Groups
	}
	f.mu.Lock()
	h := f.handlers[key]
	f.log[key] = append(f.log[key], rr)
	f.mu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("dial tcp 127.0.0.1:%d: connect: connection refused", svc.Service.Port)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// legacyBackend answers /apis with 404 (no aggregated discovery) and every
// /apis/<g>/<v> with the wardle backend's APIResourceList, re-labelled.
func legacyBackend(t testing.TB) http.Handler {
	list := readFile(t, "a-discovery", "apis.wardle.example.com.v1alpha1.json")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if len(parts) != 3 || parts[0] != "apis" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bytes.Replace(list, []byte(`"wardle.example.com/v1alpha1"`), []byte(`"`+parts[1]+"/"+parts[2]+`"`), 1))
	})
}

// aggregatedBackend answers /apis with doc (an APIGroupDiscoveryList of
// apiVersion apidiscovery.k8s.io/<version>) and ETag etag, and 304 when
// If-None-Match matches.
func aggregatedBackend(doc []byte, version, etag string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Etag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v="+version+";as=APIGroupDiscoveryList")
		_, _ = w.Write(doc)
	})
}

// get serves one request through m and returns the recorder.
func get(m http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	return rec
}

const aggAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// filterGroups keeps, in a decoded APIGroupList ("groups") or
// APIGroupDiscoveryList ("items"), only the groups in keep, in their order.
//
// The captures come from a real kube-apiserver, which also serves ~20
// built-in groups (apps, batch, policy, ...) that aggsim does not serve as
// Local APIServices in these tests, and some captures were already cut down
// by the capture harness to the groups under test. So the golden tests apply
// this one filter to BOTH the capture and aggsim's answer, with keep = the
// groups of the input APIServices, plus apiregistration.k8s.io only when the
// capture lists it (it is hard-coded first by the aggregator, but the
// harness's pre-filtered captures dropped it).
func filterGroups(doc map[string]any, keep map[string]bool) {
	for _, field := range []string{"groups", "items"} {
		list, ok := doc[field].([]any)
		if !ok {
			continue
		}
		var out []any
		for _, g := range list {
			gm := g.(map[string]any)
			name, _ := gm["name"].(string)
			if md, ok := gm["metadata"].(map[string]any); ok {
				name, _ = md["name"].(string)
			}
			if keep[name] {
				out = append(out, g)
			}
		}
		doc[field] = out
	}
}

// groupNames lists the groups of a decoded discovery document in order.
func groupNames(doc map[string]any) []string {
	var names []string
	for _, field := range []string{"groups", "items"} {
		list, _ := doc[field].([]any)
		for _, g := range list {
			gm := g.(map[string]any)
			name, _ := gm["name"].(string)
			if md, ok := gm["metadata"].(map[string]any); ok {
				name, _ = md["name"].(string)
			}
			names = append(names, name)
		}
	}
	return names
}

// keepSet returns the filterGroups set for a capture and input.
func keepSet(capture map[string]any, svcs []APIService) map[string]bool {
	keep := map[string]bool{}
	for _, s := range svcs {
		keep[s.Group] = true
	}
	for _, n := range groupNames(capture) {
		if n == apiRegistrationGroup {
			keep[n] = true
		}
	}
	return keep
}

func decodeMap(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode: %v\n%s", err, b)
	}
	return m
}

func indent(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertSameGroups compares aggsim's answer with a capture after
// filterGroups, as normalised JSON.
func assertSameGroups(t *testing.T, got, capture []byte, svcs []APIService) {
	t.Helper()
	want := decodeMap(t, capture)
	have := decodeMap(t, got)
	keep := keepSet(want, svcs)
	filterGroups(want, keep)
	filterGroups(have, keep)
	if w, h := indent(t, want), indent(t, have); w != h {
		t.Errorf("document differs from capture\n--- got\n%s\n--- want\n%s", h, w)
	}
}

// newTestManager returns a Manager over the APIServices, fetched once.
func newTestManager(t testing.TB, f Fetcher, svcs []APIService) *Manager {
	t.Helper()
	m, err := New(Options{Fetcher: f})
	if err != nil {
		t.Fatal(err)
	}
	m.Set(svcs)
	m.Sync(context.Background())
	return m
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
