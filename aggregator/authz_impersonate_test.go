package aggregator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

func impersonate(t *testing.T, caller *authentication.UserInfo, a Authorizer, hdr http.Header) (*httptest.ResponseRecorder, seen) {
	t.Helper()
	h := WithImpersonation(echoUser, a, nil)
	req := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x", nil)
	for k, vs := range hdr {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req = req.WithContext(request.WithUser(req.Context(), caller))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var s seen
	if rec.Code == 200 {
		if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
	}
	return rec, s
}

var (
	adminUser = &authentication.UserInfo{Username: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"},
		Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"X509SHA256=abc"}}}
	bobUser = &authentication.UserInfo{Username: "bob", Groups: []string{"devs", "system:authenticated"}}
)

// TestImpersonation follows c-proxy/c02-c04: the backend saw jane with the
// requested groups plus system:authenticated, the uid, the extras with
// lower-cased unescaped keys, and none of the caller's extra.
func TestImpersonation(t *testing.T) {
	def := ImpersonationAuthorizer{}
	tests := []struct {
		name     string
		caller   *authentication.UserInfo
		hdr      http.Header
		wantUser *authentication.UserInfo
	}{
		{
			name: "c02 user and groups", caller: adminUser,
			hdr:      http.Header{"Impersonate-User": {"jane"}, "Impersonate-Group": {"devs", "qa"}},
			wantUser: &authentication.UserInfo{Username: "jane", Groups: []string{"devs", "qa", "system:authenticated"}},
		},
		{
			name: "c03 uid", caller: adminUser,
			hdr:      http.Header{"Impersonate-User": {"jane"}, "Impersonate-Group": {"devs"}, "Impersonate-Uid": {"uid-1234"}},
			wantUser: &authentication.UserInfo{Username: "jane", UID: "uid-1234", Groups: []string{"devs", "system:authenticated"}},
		},
		{
			name: "c04 extra", caller: adminUser,
			hdr: http.Header{"Impersonate-User": {"jane"}, "Impersonate-Group": {"devs"},
				"Impersonate-Extra-Reason": {"change ticket 42"}, http.CanonicalHeaderKey("Impersonate-Extra-acme.com%2Fproject"): {"p1"}},
			wantUser: &authentication.UserInfo{Username: "jane", Groups: []string{"devs", "system:authenticated"},
				Extra: map[string][]string{"reason": {"change ticket 42"}, "acme.com/project": {"p1"}}},
		},
		{
			name: "user only", caller: adminUser, hdr: http.Header{"Impersonate-User": {"jane"}},
			wantUser: &authentication.UserInfo{Username: "jane", Groups: []string{"system:authenticated"}},
		},
		{
			name: "explicit system:unauthenticated suppresses system:authenticated", caller: adminUser,
			hdr:      http.Header{"Impersonate-User": {"jane"}, "Impersonate-Group": {"system:unauthenticated"}},
			wantUser: &authentication.UserInfo{Username: "jane", Groups: []string{"system:unauthenticated"}},
		},
		{
			name: "anonymous", caller: adminUser, hdr: http.Header{"Impersonate-User": {"system:anonymous"}},
			wantUser: &authentication.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}},
		},
		{
			name: "service account gets its groups", caller: adminUser, hdr: http.Header{"Impersonate-User": {"system:serviceaccount:default:robot"}},
			wantUser: &authentication.UserInfo{Username: "system:serviceaccount:default:robot",
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}},
		},
		{
			name: "no impersonation keeps the caller", caller: bobUser, hdr: http.Header{},
			wantUser: bobUser,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, s := impersonate(t, tt.caller, def, tt.hdr)
			if rec.Code != 200 {
				t.Fatalf("code %d body %s", rec.Code, rec.Body)
			}
			if !reflect.DeepEqual(s.User, tt.wantUser) {
				t.Errorf("user %+v\nwant %+v", s.User, tt.wantUser)
			}
			if len(s.Header) != 0 {
				t.Errorf("Impersonate-* headers left on the request: %v", s.Header)
			}
		})
	}
}

func TestImpersonationRefused(t *testing.T) {
	tests := []struct {
		name     string
		caller   *authentication.UserInfo
		a        Authorizer
		hdr      http.Header
		wantCode int
		wantBody string
	}{
		{
			name: "non-master impersonating a user", caller: bobUser, a: ImpersonationAuthorizer{},
			hdr:      http.Header{"Impersonate-User": {"jane"}},
			wantCode: 403,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"users \"jane\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"name":"jane","kind":"users"},"code":403}` + "\n",
		},
		{
			name: "group refused by a custom authorizer", caller: bobUser,
			a: ImpersonationAuthorizer{ImpersonatorGroups: []string{}, Delegate: AuthorizerFunc(func(_ ctxT, a Attributes) (Decision, string, error) {
				if a.Resource == "groups" {
					return DecisionNoOpinion, "no groups for you", nil
				}
				return DecisionAllow, "", nil
			})},
			hdr:      http.Header{"Impersonate-User": {"jane"}, "Impersonate-Group": {"system:masters"}},
			wantCode: 403,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"groups \"system:masters\" is forbidden: User \"bob\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope: no groups for you","reason":"Forbidden","details":{"name":"system:masters","kind":"groups"},"code":403}` + "\n",
		},
		{
			name: "extra refused", caller: bobUser, a: ImpersonationAuthorizer{},
			hdr:      http.Header{"Impersonate-User": {"bob"}, "Impersonate-Extra-Scopes": {"view"}},
			wantCode: 403,
			// the user step is refused first
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"users \"bob\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"name":"bob","kind":"users"},"code":403}` + "\n",
		},
		{
			name: "uid refused names its group", caller: bobUser,
			a: ImpersonationAuthorizer{ImpersonatorGroups: []string{}, Delegate: AuthorizerFunc(func(_ ctxT, a Attributes) (Decision, string, error) {
				if a.Resource == "uids" {
					return DecisionDeny, "", nil
				}
				return DecisionAllow, "", nil
			})},
			hdr:      http.Header{"Impersonate-User": {"jane"}, "Impersonate-Uid": {"u1"}},
			wantCode: 403,
			wantBody: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"uids.authentication.k8s.io \"u1\" is forbidden: User \"bob\" cannot impersonate resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope","reason":"Forbidden","details":{"name":"u1","group":"authentication.k8s.io","kind":"uids"},"code":403}` + "\n",
		},
		{
			name: "group without user", caller: adminUser, a: ImpersonationAuthorizer{},
			hdr:      http.Header{"Impersonate-Group": {"devs"}},
			wantCode: 500,
			wantBody: `Internal Server Error: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x": requested [{Group  devs    }] without impersonating a user` + "\n",
		},
		{
			name: "uid without user", caller: adminUser, a: ImpersonationAuthorizer{},
			hdr:      http.Header{"Impersonate-Uid": {"u1"}},
			wantCode: 500,
			wantBody: `Internal Server Error: "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/x": requested [{UID  u1  authentication.k8s.io/v1  }] without impersonating a user` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := impersonate(t, tt.caller, tt.a, tt.hdr)
			if rec.Code != tt.wantCode || rec.Body.String() != tt.wantBody {
				t.Errorf("got %d %s\nwant %d %s", rec.Code, rec.Body, tt.wantCode, tt.wantBody)
			}
		})
	}
}
