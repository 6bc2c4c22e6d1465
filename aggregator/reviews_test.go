package aggregator_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"slices"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
)

// restConfig returns the admin rest.Config with JSON request bodies
// (aggsim's protobuf decoding does not cover these kinds).
func restConfig(t *testing.T, s *aggregatortest.Server) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ContentType = "application/json"
	return cfg
}

// groupClient is the REST client the typed clientset builds for one
// group/version (k8s.io/client-go/kubernetes needs a module go.mod lacks,
// so the tests make the same calls through this client).
func groupClient(t *testing.T, s *aggregatortest.Server, group, version string) *rest.RESTClient {
	t.Helper()
	cfg := rest.CopyConfig(restConfig(t, s))
	cfg.GroupVersion = &schema.GroupVersion{Group: group, Version: version}
	cfg.APIPath = "/apis"
	if group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// create POSTs obj to resource (in namespace ns when not "") and decodes
// the answer into out, as a typed client's Create does.
func create(c *rest.RESTClient, ns, resource string, obj, out runtime.Object) error {
	return c.Post().NamespaceIfScoped(ns, ns != "").Resource(resource).Body(obj).Do(context.Background()).Into(out)
}

// managedTime matches the time of a managedFields entry.
var managedTime = regexp.MustCompile(`"time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"`)

// post sends body to path as the admin and returns code and body, the
// times of managedFields entries replaced by "T" (they are the request's).
func post(t *testing.T, s *aggregatortest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL+path, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, managedTime.ReplaceAllString(string(b), `"time":"T"`)
}

// TestTokenReview checks kube-apiserver's TokenReview answers for a token
// of --token-auth-file and an unknown one: 201, spec and the create
// handler's managedFields kept, system:authenticated added, the API
// audiences echoed, status.error "invalid bearer token" when the token
// does not authenticate. The bodies are kube-apiserver 1.33.13's answers
// (curl -A Go-http-client/1.1 -XPOST -d <body> .../tokenreviews, tokens
// from its --token-auth-file, times normalised).
func TestTokenReview(t *testing.T) {
	s := aggregatortest.Start(t, aggregatortest.WithToken("tok-alice", "alice", "dev", "ops"))
	authn := groupClient(t, s, "authentication.k8s.io", "v1")
	got := &authnv1.TokenReview{}
	if err := create(authn, "", "tokenreviews", &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: "tok-alice"}}, got); err != nil {
		t.Fatal(err)
	}
	if !got.Status.Authenticated || got.Status.User.Username != "alice" ||
		!slices.Equal(got.Status.User.Groups, []string{"dev", "ops", "system:authenticated"}) ||
		!slices.Equal(got.Status.Audiences, aggregator.DefaultAPIAudiences) || got.Spec.Token != "tok-alice" {
		t.Fatalf("known token: %+v", got)
	}

	for _, tc := range []struct {
		name, method, body string
		wantCode           int
		wantBody           string
	}{
		{
			name: "known", method: "POST", body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"tok-alice"}}`,
			wantCode: 201,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null,"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"authentication.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:token":{}}}}]},"spec":{"token":"tok-alice"},"status":{"authenticated":true,"user":{"username":"alice","groups":["dev","ops","system:authenticated"]},"audiences":["https://kubernetes.default.svc.cluster.local"]}}` + "\n",
		},
		{
			name: "unknown", method: "POST", body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"nope"}}`,
			wantCode: 201,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null,"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"authentication.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:token":{}}}}]},"spec":{"token":"nope"},"status":{"user":{},"error":"invalid bearer token"}}` + "\n",
		},
		{
			name: "foreign audience", method: "POST", body: `{"spec":{"token":"tok-alice","audiences":["other"]}}`,
			wantCode: 201,
			wantBody: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null,"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"authentication.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:audiences":{},"f:token":{}}}}]},"spec":{"token":"tok-alice","audiences":["other"]},"status":{"user":{},"error":"invalid bearer token"}}` + "\n",
		},
		{
			name: "empty token", method: "POST", body: `{"spec":{}}`,
			wantCode: 400,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"token is required for TokenReview in authentication","reason":"BadRequest","code":400}` + "\n",
		},
		{
			name: "wrong apiVersion", method: "POST", body: `{"apiVersion":"v1","kind":"TokenReview","spec":{"token":"x"}}`,
			wantCode: 400,
			// kube-apiserver 1.33.13 (curl POST .../tokenreviews with this body)
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"TokenReview in version \"v1\" cannot be handled as a TokenReview: no kind \"TokenReview\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:110\"","reason":"BadRequest","code":400}` + "\n",
		},
		{
			name: "GET", method: "GET",
			wantCode: 405,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}` + "\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, s, tc.method, "/apis/authentication.k8s.io/v1/tokenreviews", tc.body)
			if code != tc.wantCode || body != tc.wantBody {
				t.Fatalf("got %d %s\nwant %d %s", code, body, tc.wantCode, tc.wantBody)
			}
		})
	}
}

// mastersOrDeny mirrors kube-apiserver with --authorization-mode=AlwaysDeny:
// system:masters is always allowed (the privileged-group authorizer), user
// carol is explicitly denied, everyone else gets AlwaysDeny's NoOpinion.
var mastersOrDeny = aggregator.AuthorizerFunc(func(ctx context.Context, a aggregator.Attributes) (aggregator.Decision, string, error) {
	if a.User != nil && slices.Contains(a.User.Groups, aggregator.GroupMasters) {
		return aggregator.DecisionAllow, "", nil
	}
	if a.User != nil && a.User.Username == "carol" {
		return aggregator.DecisionDeny, "carol is banned", nil
	}
	return aggregator.AlwaysDeny{}.Authorize(ctx, a)
})

// TestSubjectAccessReview checks SubjectAccessReview answers with
// AlwaysAllow and AlwaysDeny (exact status.allowed/denied/reason), the
// request shapes sample-apiserver sends, validation, and the local and
// self variants.
func TestSubjectAccessReview(t *testing.T) {
	sarBob := `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"resourceAttributes":{"namespace":"default","verb":"list","group":"wardle.example.com","version":"v1beta1","resource":"flunders"},"user":"bob","groups":["devs","system:authenticated"],"extra":{"authentication.kubernetes.io/credential-id":["X509SHA256=ab"]}}}`
	// The metadata are kube-apiserver 1.33.13's (the same bodies POSTed with
	// curl -A Go-http-client/1.1); its status answers RBAC's decisions.
	sarBobOut := `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null,"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"authorization.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:extra":{".":{},"f:authentication.kubernetes.io/credential-id":{}},"f:groups":{},"f:resourceAttributes":{".":{},"f:group":{},"f:namespace":{},"f:resource":{},"f:verb":{},"f:version":{}},"f:user":{}}}}]},"spec":{"resourceAttributes":{"namespace":"default","verb":"list","group":"wardle.example.com","version":"v1beta1","resource":"flunders"},"user":"bob","groups":["devs","system:authenticated"],"extra":{"authentication.kubernetes.io/credential-id":["X509SHA256=ab"]}},"status":`
	nonRes := `{"spec":{"nonResourceAttributes":{"path":"/openapi/v2","verb":"get"},"user":"system:aggregator","groups":["system:authenticated"]}}`
	nonResOut := `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null,"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"authorization.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:groups":{},"f:nonResourceAttributes":{".":{},"f:path":{},"f:verb":{}},"f:user":{}}}}]},"spec":{"nonResourceAttributes":{"path":"/openapi/v2","verb":"get"},"user":"system:aggregator","groups":["system:authenticated"]},"status":`
	carol := `{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"},"user":"carol"}}`
	carolOut := `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"creationTimestamp":null,"managedFields":[{"manager":"Go-http-client","operation":"Update","apiVersion":"authorization.k8s.io/v1","time":"T","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:resourceAttributes":{".":{},"f:resource":{},"f:verb":{}},"f:user":{}}}}]},"spec":{"resourceAttributes":{"verb":"get","resource":"pods"},"user":"carol"},"status":`

	t.Run("AlwaysAllow", func(t *testing.T) {
		s := aggregatortest.Start(t)
		for _, tc := range []struct{ in, want string }{
			{sarBob, sarBobOut + `{"allowed":true}}` + "\n"},
			{nonRes, nonResOut + `{"allowed":true}}` + "\n"},
		} {
			if code, body := post(t, s, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", tc.in); code != 201 || body != tc.want {
				t.Errorf("got %d %s\nwant %s", code, body, tc.want)
			}
		}
		authz := groupClient(t, s, "authorization.k8s.io", "v1")
		got := &authzv1.SubjectAccessReview{}
		err := create(authz, "", "subjectaccessreviews", &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: "bob", ResourceAttributes: &authzv1.ResourceAttributes{Verb: "create", Group: "wardle.example.com", Resource: "flunders", Namespace: "ns1"},
		}}, got)
		if err != nil || !got.Status.Allowed || got.Status.Denied || got.Status.Reason != "" {
			t.Fatalf("typed client: %+v %v", got, err)
		}
		rr := &authzv1.SelfSubjectRulesReview{}
		err = create(authz, "", "selfsubjectrulesreviews", &authzv1.SelfSubjectRulesReview{Spec: authzv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}, rr)
		if err != nil || len(rr.Status.ResourceRules) != 1 || rr.Status.ResourceRules[0].Verbs[0] != "*" || rr.Status.Incomplete {
			t.Fatalf("rules review: %+v %v", rr, err)
		}
	})

	t.Run("AlwaysDeny", func(t *testing.T) {
		s := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.Authorizer = mastersOrDeny }))
		for _, tc := range []struct{ in, want string }{
			{sarBob, sarBobOut + `{"allowed":false,"reason":"Everything is forbidden."}}` + "\n"},
			{nonRes, nonResOut + `{"allowed":false,"reason":"Everything is forbidden."}}` + "\n"},
			{carol, carolOut + `{"allowed":false,"denied":true,"reason":"carol is banned"}}` + "\n"},
		} {
			if code, body := post(t, s, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", tc.in); code != 201 || body != tc.want {
				t.Errorf("got %d %s\nwant %s", code, body, tc.want)
			}
		}
		authz := groupClient(t, s, "authorization.k8s.io", "v1")
		got := &authzv1.SubjectAccessReview{}
		err := create(authz, "", "subjectaccessreviews", &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: "bob", Groups: []string{"devs"}, ResourceAttributes: &authzv1.ResourceAttributes{Verb: "get", Resource: "flunders"},
		}}, got)
		if err != nil || got.Status.Allowed || got.Status.Denied || got.Status.Reason != "Everything is forbidden." {
			t.Fatalf("typed client: %+v %v", got, err)
		}
		// The admin (system:masters) asking about itself.
		self := &authzv1.SelfSubjectAccessReview{}
		err = create(authz, "", "selfsubjectaccessreviews", &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
			NonResourceAttributes: &authzv1.NonResourceAttributes{Path: "/healthz", Verb: "get"},
		}}, self)
		if err != nil || !self.Status.Allowed {
			t.Fatalf("self review: %+v %v", self, err)
		}
		local := &authzv1.LocalSubjectAccessReview{}
		err = create(authz, "team-a", "localsubjectaccessreviews", &authzv1.LocalSubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: "bob", ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "team-a", Verb: "get", Resource: "pods"},
		}}, local)
		if err != nil || local.Namespace != "team-a" || local.Status.Allowed || local.Status.Reason != "Everything is forbidden." {
			t.Fatalf("local review: %+v %v", local, err)
		}
	})

	t.Run("errors", func(t *testing.T) {
		s := aggregatortest.Start(t)
		for _, tc := range []struct {
			name, path, body string
			wantCode         int
			wantBody         string
		}{
			{
				name: "no user", path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
				body:     `{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`,
				wantCode: 422,
				wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":".authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified","reason":"Invalid","details":{"group":"authorization.k8s.io","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"\": at least one of user or group must be specified","field":"spec.user"}]},"code":422}` + "\n", // kube-apiserver 1.33 names no kind here (measured)
			},
			{
				name: "no attributes", path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
				body:     `{"spec":{"user":"bob"}}`,
				wantCode: 422,
				wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":".authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified","reason":"Invalid","details":{"group":"authorization.k8s.io","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified","field":"spec.resourceAttributes"}]},"code":422}` + "\n",
			},
			{
				name: "local namespace mismatch", path: "/apis/authorization.k8s.io/v1/namespaces/a/localsubjectaccessreviews",
				body:     `{"metadata":{"namespace":"b"},"spec":{"user":"bob","resourceAttributes":{"namespace":"b"}}}`,
				wantCode: 400,
				wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the namespace of the provided object does not match the namespace sent on the request","reason":"BadRequest","code":400}` + "\n",
			},
			{
				name: "unknown namespaced resource", path: "/apis/authorization.k8s.io/v1/namespaces/a/pods",
				body:     `{}`,
				wantCode: 404,
				wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n",
			},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, body := post(t, s, "POST", tc.path, tc.body)
				if code != tc.wantCode || body != tc.wantBody {
					t.Fatalf("got %d %s\nwant %d %s", code, body, tc.wantCode, tc.wantBody)
				}
			})
		}
		// Reviews are never stored: the generic list verb is not served.
		if code, _ := post(t, s, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ""); code != 405 {
			t.Fatalf("GET selfsubjectaccessreviews: %d", code)
		}
	})
}

// TestSelfSubjectReview returns the caller's identity, as `kubectl auth
// whoami` reads it.
func TestSelfSubjectReview(t *testing.T) {
	s := aggregatortest.Start(t)
	got := &authnv1.SelfSubjectReview{}
	if err := create(groupClient(t, s, "authentication.k8s.io", "v1"), "", "selfsubjectreviews", &authnv1.SelfSubjectReview{}, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.UserInfo.Username != "aggsim-admin" || !slices.Contains(got.Status.UserInfo.Groups, "system:masters") || got.CreationTimestamp.IsZero() {
		t.Fatalf("%+v", got)
	}
}
