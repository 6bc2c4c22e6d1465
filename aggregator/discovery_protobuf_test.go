package aggregator_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// discoveryGet sends GET path with the Accept header and returns the
// status, Content-Type and body.
func discoveryGet(t *testing.T, s *aggregatortest.Server, path, accept string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

// TestDiscoveryProtobuf asks for the legacy discovery documents of the
// groups aggsim serves itself in protobuf, as client-go's discovery client
// configured for protobuf does. Before, aggsim answered 406 ("only the
// following media types are accepted") for /api, /apis and /apis/<group>
// and JSON for /apis/<group>/<version>. The want bytes are
// kube-apiserver 1.33.13's, captured with
//
//	curl -sk --cert admin.crt --key admin.key \
//	  -H 'Accept: application/vnd.kubernetes.protobuf' https://127.0.0.1:<port><path>
//
// into testdata/discovery-protobuf/<path with / as _>.pb. They pin the
// field numbers, the Verbs message, the empty strings upstream writes
// (group, version, storageVersionHash of the reviews, which have no
// storage and so no hash) and the envelope (apiVersion "v1").
func TestDiscoveryProtobuf(t *testing.T) {
	s := aggregatortest.Start(t)
	for _, path := range []string{
		"/apis/apiregistration.k8s.io/v1",
		"/apis/authentication.k8s.io/v1",
		"/apis/authorization.k8s.io/v1",
		"/apis/flowcontrol.apiserver.k8s.io/v1",
		"/apis/admissionregistration.k8s.io/v1",
		"/apis/apiregistration.k8s.io",
		"/apis/flowcontrol.apiserver.k8s.io",
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "discovery-protobuf", strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "_")+".pb"))
		if err != nil {
			t.Fatal(err)
		}
		code, ct, got := discoveryGet(t, s, path, "application/vnd.kubernetes.protobuf")
		if code != http.StatusOK || ct != "application/vnd.kubernetes.protobuf" || !bytes.Equal(got, want) {
			t.Errorf("GET %s: %d %s\n got  %q\n want %q", path, code, ct, got, want)
		}
	}

	// /api carries the server's address: decode both and compare with the
	// address replaced. Upstream's APIVersions has no apiVersion.
	want, err := os.ReadFile(filepath.Join("testdata", "discovery-protobuf", "api.pb"))
	if err != nil {
		t.Fatal(err)
	}
	code, ct, got := discoveryGet(t, s, "/api", "application/vnd.kubernetes.protobuf, application/json")
	if code != http.StatusOK || ct != "application/vnd.kubernetes.protobuf" {
		t.Fatalf("GET /api: %d %s %q", code, ct, got)
	}
	if !bytes.HasPrefix(got, []byte("k8s\x00\n\x0f\n\x00\x12\x0bAPIVersions")) {
		t.Errorf("GET /api envelope: %q", got)
	}
	var gotV, wantV metav1.APIVersions
	decodeProtobuf(t, got, &gotV)
	decodeProtobuf(t, want, &wantV)
	wantV.ServerAddressByClientCIDRs[0].ServerAddress = strings.TrimPrefix(s.URL, "https://")
	if gotV.String() != wantV.String() {
		t.Errorf("GET /api:\n got  %v\n want %v", gotV.String(), wantV.String())
	}

	// /apis lists more groups upstream; its envelope and first group
	// (apiregistration, hard-coded first) are the same.
	code, ct, got = discoveryGet(t, s, "/apis", "application/vnd.kubernetes.protobuf")
	var groups metav1.APIGroupList
	decodeProtobuf(t, got, &groups)
	if code != http.StatusOK || ct != "application/vnd.kubernetes.protobuf" || len(groups.Groups) < 5 || groups.Groups[0].Name != "apiregistration.k8s.io" {
		t.Errorf("GET /apis: %d %s %v", code, ct, groups.String())
	}
}

// decodeProtobuf decodes a "k8s\x00" body (a runtime.Unknown) into obj
// with the generated protobuf unmarshaller of the apimachinery type.
func decodeProtobuf(t *testing.T, body []byte, obj interface{ Unmarshal([]byte) error }) {
	t.Helper()
	rest, ok := bytes.CutPrefix(body, []byte("k8s\x00"))
	var u runtime.Unknown
	if !ok || u.Unmarshal(rest) != nil {
		t.Fatalf("not a protobuf envelope: %q", body)
	}
	if err := obj.Unmarshal(u.Raw); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
}

// TestDiscoveryNotAcceptable pins kube-apiserver 1.33.13's two 406 texts
// for /apis/<group>: apiregistration.k8s.io, the aggregator's own group,
// is a go-restful route (before, aggsim answered the handler's text for
// it too); every other group is answered by the aggregator's group
// handler. Captured with curl -H 'Accept: text/html'.
func TestDiscoveryNotAcceptable(t *testing.T) {
	s := aggregatortest.Start(t)
	restful := "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"406: Not Acceptable\\n\\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf\",\n  \"reason\": \"NotAcceptable\",\n  \"details\": {},\n  \"code\": 406\n}"
	handler := "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n  \"status\": \"Failure\",\n  \"message\": \"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf\",\n  \"reason\": \"NotAcceptable\",\n  \"code\": 406\n}"
	for path, want := range map[string]string{
		"/apis/apiregistration.k8s.io":       restful,
		"/apis/apiregistration.k8s.io/":      restful,
		"/apis/flowcontrol.apiserver.k8s.io": handler,
		"/apis/authorization.k8s.io/":        handler,
		"/apis/admissionregistration.k8s.io": handler,
		"/apis/authentication.k8s.io":        handler,
	} {
		code, ct, got := discoveryGet(t, s, path, "text/html")
		if code != http.StatusNotAcceptable || ct != "application/json" || string(got) != want {
			t.Errorf("GET %s: %d %s %s", path, code, ct, got)
		}
	}
}

// TestDiscoveryResourceListJSON pins two facts of kube-apiserver 1.33.13's
// JSON APIResourceLists (curl /api/v1, /apis/authentication.k8s.io/v1):
// the core group's has no apiVersion (before, aggsim wrote "v1"), and
// the review resources, which have no storage, list no storageVersionHash
// (before, aggsim listed one).
func TestDiscoveryResourceListJSON(t *testing.T) {
	s := aggregatortest.Start(t)
	_, _, core := discoveryGet(t, s, "/api/v1", "application/json")
	if !bytes.HasPrefix(core, []byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[`)) {
		t.Errorf("/api/v1: %.80s", core)
	}
	_, _, authn := discoveryGet(t, s, "/apis/authentication.k8s.io/v1", "application/json")
	want := `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"authentication.k8s.io/v1","resources":[{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]},{"name":"tokenreviews","singularName":"tokenreview","namespaced":false,"kind":"TokenReview","verbs":["create"]}]}` + "\n"
	if string(authn) != want {
		t.Errorf("/apis/authentication.k8s.io/v1:\n got  %s\n want %s", authn, want)
	}
}
