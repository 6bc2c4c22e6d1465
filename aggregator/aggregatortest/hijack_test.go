package aggregatortest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// send makes one request with the admin client and returns its code and
// body.
func send(t *testing.T, srv *aggregatortest.Server, method, path, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAPIServiceCannotHijackAPIRegistration: an APIService named
// v1.apiregistration.k8s.io with a spec.service is stored (201, as a real
// kube-apiserver 1.33 answers) but never takes the APIService API: the
// aggregator serves its own group before any proxy, so reading, listing
// and deleting it keep working. Before the router's built-in precedence
// every such request went to the (missing) service: 503.
func TestAPIServiceCannotHijackAPIRegistration(t *testing.T) {
	srv := aggregatortest.Start(t)
	const hijack = `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.apiregistration.k8s.io"},"spec":{"group":"apiregistration.k8s.io","version":"v1","groupPriorityMinimum":100,"versionPriority":100,"service":{"namespace":"x","name":"y","port":443},"insecureSkipTLSVerify":true}}`
	if code, body := send(t, srv, "POST", "/apis/apiregistration.k8s.io/v1/apiservices", "application/json", hijack); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	// Give the registration controller time to (not) reroute.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		code, body := send(t, srv, "GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apiregistration.k8s.io", "", "")
		if code != http.StatusOK || !strings.Contains(body, `"kind":"APIService"`) {
			t.Fatalf("GET after the hijack attempt: %d %s", code, body)
		}
		if strings.Contains(body, `"ServiceNotFound"`) {
			break // the availability controller has seen it: routing settled
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := send(t, srv, "GET", "/apis/apiregistration.k8s.io/v1/apiservices", "", ""); code != http.StatusOK || !strings.Contains(body, `"kind":"APIServiceList"`) {
		t.Errorf("list: %d %.200s", code, body)
	}
	if code, body := send(t, srv, "DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/v1.apiregistration.k8s.io", "", ""); code != http.StatusOK {
		t.Errorf("delete: %d %s", code, body)
	}
}

// TestRemoteAPIServiceOfABuiltinGroupIsProxied: for the groups aggsim
// serves itself other than apiregistration.k8s.io, a real kube-apiserver
// 1.33 proxies once their APIService gets a spec.service (measured: a
// SelfSubjectAccessReview then answers 503 `service unavailable`), and so
// does aggsim, review resources included; removing the service again
// serves them locally.
func TestRemoteAPIServiceOfABuiltinGroupIsProxied(t *testing.T) {
	srv := aggregatortest.Start(t)
	const ssar = `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`
	if code, body := send(t, srv, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json", ssar); code != http.StatusCreated {
		t.Fatalf("local review: %d %s", code, body)
	}
	if code, body := send(t, srv, "PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.authorization.k8s.io", "application/merge-patch+json",
		`{"spec":{"service":{"namespace":"x","name":"y","port":443},"insecureSkipTLSVerify":true}}`); code != http.StatusOK {
		t.Fatalf("patch: %d %s", code, body)
	}
	waitFor := func(what string, want int, wantBody string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			code, body := send(t, srv, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json", ssar)
			if code == want && strings.Contains(body, wantBody) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d %s, want %d with %q", what, code, body, want, wantBody)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("remote", http.StatusServiceUnavailable, "service unavailable")
	if code, body := send(t, srv, "PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.authorization.k8s.io", "application/json-patch+json",
		`[{"op":"remove","path":"/spec/service"},{"op":"remove","path":"/spec/insecureSkipTLSVerify"}]`); code != http.StatusOK {
		t.Fatalf("patch back: %d %s", code, body)
	}
	waitFor("local again", http.StatusCreated, `"allowed":true`)
}

// TestRemoteLegacyAPIServiceProxiesAPI: the APIService "v1." stands for
// the whole /api tree; with a spec.service a real kube-apiserver 1.33
// proxies /api and /api/v1/... to it (measured: 503 `service unavailable`
// for a missing service), and so does aggsim until the service is removed.
func TestRemoteLegacyAPIServiceProxiesAPI(t *testing.T) {
	srv := aggregatortest.Start(t)
	wait := func(what, path string, want int, wantBody string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			code, body := send(t, srv, "GET", path, "", "")
			if code == want && strings.Contains(body, wantBody) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: GET %s = %d %.200s, want %d with %q", what, path, code, body, want, wantBody)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if code, body := send(t, srv, "PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.", "application/merge-patch+json",
		`{"spec":{"service":{"namespace":"x","name":"y","port":443},"insecureSkipTLSVerify":true}}`); code != http.StatusOK {
		t.Fatalf("patch: %d %s", code, body)
	}
	wait("remote", "/api/v1/namespaces", http.StatusServiceUnavailable, "service unavailable")
	wait("remote", "/api", http.StatusServiceUnavailable, "service unavailable")
	if code, body := send(t, srv, "PATCH", "/apis/apiregistration.k8s.io/v1/apiservices/v1.", "application/json-patch+json",
		`[{"op":"remove","path":"/spec/service"},{"op":"remove","path":"/spec/insecureSkipTLSVerify"}]`); code != http.StatusOK {
		t.Fatalf("patch back: %d %s", code, body)
	}
	wait("local again", "/api/v1/namespaces", http.StatusOK, `"kind":"NamespaceList"`)
	wait("local again", "/api", http.StatusOK, `"kind":"APIVersions"`)
}
