package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

type ctxT = context.Context

// TestNewRequestInfo follows upstream's requestinfo_test.go examples.
func TestNewRequestInfo(t *testing.T) {
	tests := []struct {
		method, url string
		want        request.RequestInfo
	}{
		{"GET", "/api/v1/namespaces", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Resource: "namespaces", Parts: []string{"namespaces"}}},
		{"GET", "/api/v1/namespaces/other", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other", Parts: []string{"namespaces", "other"}}},
		{"GET", "/api/v1/namespaces/other/pods/foo", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods", "foo"}}},
		{"GET", "/api/v1/namespaces/other/pods", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/pods", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Resource: "pods", Parts: []string{"pods"}}},
		{"HEAD", "/api/v1/namespaces/other/pods/foo", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods", "foo"}}},
		{"GET", "/api/v1/namespaces/other/pods?watch=true", request.RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?watch=1", request.RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?watch=", request.RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?watch=False", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?watch=0", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/watch/pods", request.RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/watch/namespaces/other/pods", request.RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?watch=1&fieldSelector=metadata.name%3D%3Dfoo,spec.x%3Dy", request.RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name!%3Dfoo", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Da%25b", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"POST", "/api/v1/namespaces/other/pods", request.RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"PUT", "/api/v1/namespaces/other/pods/foo", request.RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods", "foo"}}},
		{"PATCH", "/api/v1/namespaces/other/pods/foo", request.RequestInfo{IsResourceRequest: true, Verb: "patch", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods", "foo"}}},
		{"DELETE", "/api/v1/namespaces/other/pods/foo", request.RequestInfo{IsResourceRequest: true, Verb: "delete", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods", "foo"}}},
		{"DELETE", "/api/v1/namespaces/other/pods", request.RequestInfo{IsResourceRequest: true, Verb: "deletecollection", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"OPTIONS", "/api/v1/namespaces/other/pods", request.RequestInfo{IsResourceRequest: true, Verb: "", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Parts: []string{"pods"}}},
		{"GET", "/api/v1/namespaces/other/pods/foo/status", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Subresource: "status", Parts: []string{"pods", "foo", "status"}}},
		{"GET", "/api/v1/namespaces/other/pods/foo/log/extra", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Subresource: "log", Parts: []string{"pods", "foo", "log", "extra"}}},
		{"PUT", "/api/v1/namespaces/other/finalize", request.RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other", Subresource: "finalize", Parts: []string{"namespaces", "other", "finalize"}}},
		{"PUT", "/api/v1/namespaces/other/status", request.RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other", Subresource: "status", Parts: []string{"namespaces", "other", "status"}}},
		{"GET", "/api/v1/proxy/namespaces/other/pods/foo/a/b", request.RequestInfo{IsResourceRequest: true, Verb: "proxy", APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Parts: []string{"pods", "foo", "a", "b"}}},
		{"GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/c08-forbidden-bob", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "apis", APIGroup: "wardle.example.com", APIVersion: "v1alpha1", Namespace: "default", Resource: "flunders", Name: "c08-forbidden-bob", Parts: []string{"flunders", "c08-forbidden-bob"}}},
		{"GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1.foo/status", request.RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "apis", APIGroup: "apiregistration.k8s.io", APIVersion: "v1", Resource: "apiservices", Name: "v1.foo", Subresource: "status", Parts: []string{"apiservices", "v1.foo", "status"}}},
		{"GET", "/apis/wardle.example.com/v1alpha1/namespaces", request.RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "apis", APIGroup: "wardle.example.com", APIVersion: "v1alpha1", Resource: "namespaces", Parts: []string{"namespaces"}}},
		// non-resource requests
		{"GET", "/apis", request.RequestInfo{Verb: "get"}},
		{"GET", "/apis/wardle.example.com", request.RequestInfo{Verb: "get"}},
		{"GET", "/apis/wardle.example.com/v1alpha1", request.RequestInfo{Verb: "get", APIPrefix: "apis"}},
		{"GET", "/apis/wardle.example.com/v1alpha1/", request.RequestInfo{Verb: "get", APIPrefix: "apis"}},
		{"GET", "/api/v1", request.RequestInfo{Verb: "get"}},
		{"POST", "/healthz/ping", request.RequestInfo{Verb: "post"}},
		{"GET", "/other/v1/namespaces/x/pods", request.RequestInfo{Verb: "get"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			got, err := request.NewRequestInfo(req)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Path = req.URL.Path
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestNewRequestInfoErrors(t *testing.T) {
	for _, u := range []string{"/api/v1/watch", "/apis/g/v1/proxy"} {
		req := httptest.NewRequest("GET", u, nil)
		if _, err := request.NewRequestInfo(req); err == nil || !strings.HasPrefix(err.Error(), "unable to determine kind and namespace from url") {
			t.Errorf("%s: err %v", u, err)
		}
	}
	rec := httptest.NewRecorder()
	WithRequestInfo(echoUser).ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/watch", nil))
	if want := `Internal Server Error: "/api/v1/watch": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch` + "\n"; rec.Code != 500 || rec.Body.String() != want {
		t.Errorf("%d %q", rec.Code, rec.Body)
	}
}

// denyAll refuses everything with no reason, as RBAC does for an unbound user.
var denyAll = AuthorizerFunc(func(ctxT, Attributes) (Decision, string, error) { return DecisionNoOpinion, "", nil })

func authorize(t *testing.T, a Authorizer, u *authentication.UserInfo, method, url, userAgent string) *httptest.ResponseRecorder {
	t.Helper()
	h := WithRequestInfo(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(request.WithUser(r.Context(), u))
		WithAuthorization(echoUser, a, nil).ServeHTTP(w, r)
	}))
	req := httptest.NewRequest(method, url, nil)
	req.Header.Set("User-Agent", userAgent)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestAuthorizationForbiddenGolden compares with c-proxy/c08 and c09 byte for
// byte (pretty JSON because the client was curl).
func TestAuthorizationForbiddenGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		user *authentication.UserInfo
		name string
	}{
		{"c08-forbidden-bob.body.json", &authentication.UserInfo{Username: "bob", Groups: []string{"system:authenticated"}}, "c08-forbidden-bob"},
		{"c09-anonymous.body.json", &authentication.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}, "c09-anonymous"},
	} {
		want, err := os.ReadFile("../testdata/aggregator/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		rec := authorize(t, denyAll, tc.user, "GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/"+tc.name, "curl/8.5.0")
		if rec.Code != 403 || rec.Body.String() != string(want) {
			t.Errorf("%s: got %d\n%s\nwant\n%s", tc.file, rec.Code, rec.Body, want)
		}
		if rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("headers %v", rec.Header())
		}
	}
}

func TestAuthorizationMessages(t *testing.T) {
	bob := &authentication.UserInfo{Username: "bob"}
	tests := []struct {
		name, method, url string
		a                 Authorizer
		want              string
	}{
		{"non-resource", "GET", "/foo", denyAll,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"bob\" cannot get path \"/foo\"","reason":"Forbidden","details":{},"code":403}`},
		{"always deny reason", "GET", "/apis/apiregistration.k8s.io/v1/apiservices", AlwaysDeny{},
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiservices.apiregistration.k8s.io is forbidden: User \"bob\" cannot list resource \"apiservices\" in API group \"apiregistration.k8s.io\" at the cluster scope: Everything is forbidden.","reason":"Forbidden","details":{"group":"apiregistration.k8s.io","kind":"apiservices"},"code":403}`},
		{"core subresource", "PUT", "/api/v1/namespaces/default/services/s/status", denyAll,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"services \"s\" is forbidden: User \"bob\" cannot update resource \"services/status\" in API group \"\" in the namespace \"default\"","reason":"Forbidden","details":{"name":"s","kind":"services"},"code":403}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := authorize(t, tt.a, bob, tt.method, tt.url, "kubectl/v1.33")
			if rec.Code != 403 || rec.Body.String() != tt.want+"\n" {
				t.Errorf("got %d %s\nwant %s", rec.Code, rec.Body, tt.want)
			}
		})
	}
	// An authorizer error without Allow is a 500.
	failing := AuthorizerFunc(func(ctxT, Attributes) (Decision, string, error) { return DecisionNoOpinion, "", context.Canceled })
	if rec := authorize(t, failing, bob, "GET", "/foo", ""); rec.Code != 500 {
		t.Errorf("error: %d", rec.Code)
	}
	// Allow passes and the attributes reach the authorizer.
	var got Attributes
	rec := authorize(t, AuthorizerFunc(func(_ ctxT, a Attributes) (Decision, string, error) { got = a; return DecisionAllow, "", nil }),
		bob, "GET", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders?watch=1", "")
	want := Attributes{User: bob, Verb: "watch", Namespace: "default", APIGroup: "wardle.example.com", APIVersion: "v1alpha1",
		Resource: "flunders", Path: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", ResourceRequest: true}
	if rec.Code != 200 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d %+v", rec.Code, got)
	}
}

func TestImpersonationAuthorizer(t *testing.T) {
	ctx := context.Background()
	master := &authentication.UserInfo{Username: "admin", Groups: []string{"system:masters"}}
	bob := &authentication.UserInfo{Username: "bob", Groups: []string{"devs"}}
	tests := []struct {
		name string
		a    ImpersonationAuthorizer
		user *authentication.UserInfo
		verb string
		want Decision
	}{
		{"master may impersonate", ImpersonationAuthorizer{}, master, "impersonate", DecisionAllow},
		{"others may not", ImpersonationAuthorizer{}, bob, "impersonate", DecisionDeny},
		{"other verbs go to the delegate (nil: allow)", ImpersonationAuthorizer{}, bob, "get", DecisionAllow},
		{"other verbs go to the delegate", ImpersonationAuthorizer{Delegate: AlwaysDeny{}}, bob, "get", DecisionNoOpinion},
		{"custom groups", ImpersonationAuthorizer{ImpersonatorGroups: []string{"devs"}}, bob, "impersonate", DecisionAllow},
		{"empty groups defer to delegate", ImpersonationAuthorizer{ImpersonatorGroups: []string{}, Delegate: AlwaysAllow{}}, bob, "impersonate", DecisionAllow},
	}
	for _, tt := range tests {
		if d, _, _ := tt.a.Authorize(ctx, Attributes{User: tt.user, Verb: tt.verb}); d != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, d, tt.want)
		}
	}
}

// FuzzRequestInfo checks that any method and URL parse without panicking and
// that a resource request always has a version and a verb in upstream's set.
func FuzzRequestInfo(f *testing.F) {
	for _, s := range []string{
		"/api/v1/namespaces/default/pods/foo/status", "/apis/g/v/watch/namespaces/x/r", "/apis/g/v/proxy/a",
		"/api/v1/namespaces?watch=0&fieldSelector=metadata.name%3Dx", "/apis", "//api//v1//", "/apis/g/v/namespaces",
		"/api/v1/pods?fieldSelector=a%3D%5C", "/apis/g/v/r?fieldSelector=metadata.name%3D%3Dy,,z",
	} {
		f.Add("GET", s)
		f.Add("DELETE", s)
	}
	f.Fuzz(func(t *testing.T, method, rawURL string) {
		if !strings.HasPrefix(rawURL, "/") {
			return
		}
		req, err := http.NewRequest("GET", "http://x"+rawURL, nil)
		if err != nil {
			return
		}
		req.Method = method
		ri, err := request.NewRequestInfo(req)
		if err != nil {
			return
		}
		if ri.IsResourceRequest {
			if ri.APIVersion == "" && !strings.Contains(ri.Path, "//") {
				t.Errorf("resource request without version: %+v", ri)
			}
			switch ri.Verb {
			case "get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "proxy", "":
			default:
				t.Errorf("verb %q", ri.Verb)
			}
		}
		_ = IsLongRunning(ri)
	})
}
