package aggregator_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// The 403s a real kube-apiserver 1.33.13 (--authorization-mode=Node,RBAC,
// flunders.wardle.example.com served by a CRD) answers bob, captured with
//
//	curl -sS -A Go-http-client/2.0 --cert admin.crt --key admin.key -H 'Impersonate-User: bob' \
//	  https://127.0.0.1:17400/apis/wardle.example.com/v1alpha1/namespaces/default/flunders
//	curl ... -H 'Impersonate-User: bob' https://127.0.0.1:17400/debug/aggsim/access
const (
	refBobListFlunders = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"flunders.wardle.example.com is forbidden: User \"bob\" cannot list resource \"flunders\" in API group \"wardle.example.com\" in the namespace \"default\"","reason":"Forbidden","details":{"group":"wardle.example.com","kind":"flunders"},"code":403}` + "\n"
	refBobDebugAccess  = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"bob\" cannot get path \"/debug/aggsim/access\"","reason":"Forbidden","details":{},"code":403}` + "\n"
)

// wardleDiscovery is the demo group's APIResourceList with flunders.
const wardleDiscovery = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1alpha1","resources":[{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list","watch","create","delete"],"shortNames":["fl"]}]}`

// TestExplainAccessEndpoint runs a server with --authorization-mode=RBAC and
// an aggregated wardle.example.com: bob's list of flunders through the
// proxy is refused with upstream's 403 body (not the backend's, which is
// never asked), /debug/aggsim/access refuses bob as upstream refuses a
// non-resource path, and tells the admin why bob is refused (the same
// message) and, after a ClusterRole aggregated into view and a RoleBinding
// to view, which binding and rule allow him.
func TestExplainAccessEndpoint(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithToken("bob-token", "bob"),
		aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.AuthorizationMode = "RBAC" }))
	srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "wardle.example.com", Versions: []string{"v1alpha1"},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == "/apis/wardle.example.com/v1alpha1" {
				_, _ = io.WriteString(w, wardleDiscovery)
				return
			}
			_, _ = io.WriteString(w, `{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","metadata":{},"items":[]}`)
		})})
	bob := &http.Client{Transport: &http.Transport{TLSClientConfig: srv.AdminTLSConfig().Clone()}, Timeout: 10 * time.Second}
	bob.Transport.(*http.Transport).TLSClientConfig.Certificates = nil
	do := func(c *http.Client, path, token, accept string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const flunders = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
	if code, body := do(bob, flunders, "bob-token", ""); code != 403 || body != refBobListFlunders {
		t.Errorf("bob lists flunders through the proxy: %d %s\nwant 403 %s", code, body, refBobListFlunders)
	}
	q := url.Values{"as": {"bob"}, "verb": {"list"}, "resource": {"fl"}, "namespace": {"default"}}.Encode()
	if code, body := do(bob, aggregator.DebugAccessPath+"?"+q, "bob-token", ""); code != 403 || body != refBobDebugAccess {
		t.Errorf("bob reads %s: %d %s\nwant 403 %s", aggregator.DebugAccessPath, code, body, refBobDebugAccess)
	}
	explain := func() aggregator.AccessExplanation {
		t.Helper()
		code, body := do(srv.Client(), aggregator.DebugAccessPath+"?"+q, "", "application/json")
		if code != 200 {
			t.Fatalf("explain: %d %s", code, body)
		}
		var e aggregator.AccessExplanation
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := explain()
	var st meta.Status
	_ = json.Unmarshal([]byte(refBobListFlunders), &st)
	if e.Allowed || e.Decision != "NoOpinion" || e.Forbidden != st.Message || e.Request.APIGroup != "wardle.example.com" || e.Request.Resource != "flunders" ||
		strings.Join(e.Request.Groups, ",") != "system:authenticated" || strings.Join(e.Modes, ",") != "system:masters,RBAC" || len(e.Warnings) != 0 {
		t.Errorf("explanation of the denial: %+v", e)
	}
	if len(e.Advice) == 0 || e.Advice[len(e.Advice)-1] != "kubectl create role <name> --verb=list --resource=flunders.wardle.example.com -n default && kubectl create rolebinding <name> --role=<name> --user=bob -n default" {
		t.Errorf("advice %q", e.Advice)
	}

	// Without a namespace a namespaced resource is asked in "default"; a
	// cluster-scoped one drops a namespace given, with a warning.
	for _, c := range []struct{ query, namespace, warning string }{
		{"as=bob&verb=list&resource=flunders.wardle.example.com", "default", ""},
		{"as=bob&verb=list&resource=flunders&namespace=", "", ""},
		{"as=bob&verb=list&resource=apiservices&namespace=team", "", `apiservices.apiregistration.k8s.io is cluster-scoped: its requests name no namespace, so "team" is ignored`},
		{"as=bob&verb=list&resource=nosuchthings", "default", "the server doesn't have a resource type 'nosuchthings'"},
	} {
		code, body := do(srv.Client(), aggregator.DebugAccessPath+"?"+c.query, "", "application/json")
		var e aggregator.AccessExplanation
		if err := json.Unmarshal([]byte(body), &e); code != 200 || err != nil {
			t.Fatalf("%s: %d %s", c.query, code, body)
		}
		if e.Request.Namespace != c.namespace || strings.Join(e.Warnings, "|") != c.warning {
			t.Errorf("%s: namespace %q warnings %q, want %q %q", c.query, e.Request.Namespace, e.Warnings, c.namespace, c.warning)
		}
	}

	ctx := context.Background()
	api := srv.Aggregator().API()
	if _, err := api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "clusterroles"}).Create(ctx, &rbac.ClusterRole{
		TypeMeta:   meta.TypeMeta{Kind: "ClusterRole", APIVersion: "rbac.authorization.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "wardle-view", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbac.PolicyRule{{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Store(meta.GroupResource{Group: rbac.GroupRBAC, Resource: "rolebindings"}).Create(ctx, &rbac.RoleBinding{
		TypeMeta:   meta.TypeMeta{Kind: "RoleBinding", APIVersion: "rbac.authorization.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "bob-view"},
		RoleRef:    rbac.RoleRef{APIGroup: rbac.GroupRBAC, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbac.Subject{{Kind: "User", APIGroup: rbac.GroupRBAC, Name: "bob"}},
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second) // a bound for the aggregation controller, not a timing goal
	for e = explain(); !e.Allowed && time.Now().Before(deadline); e = explain() {
		time.Sleep(20 * time.Millisecond)
	}
	const reason = `RBAC: allowed by RoleBinding "bob-view/default" of ClusterRole "view" to User "bob"`
	if !e.Allowed || e.AllowedBy != "RBAC" || e.Reason != reason || e.Grant == nil || e.Grant.Via != reason[len("RBAC: allowed by "):] ||
		e.Grant.RuleString != `{APIGroups:["wardle.example.com"], Resources:["flunders"], Verbs:["get" "list" "watch"]}` || e.Forbidden != "" || e.NearMisses != nil {
		t.Errorf("explanation once allowed: %+v (grant %+v)", e, e.Grant)
	}
	if code, body := do(bob, flunders, "bob-token", ""); code != 200 || !strings.Contains(body, `"kind":"FlunderList"`) {
		t.Errorf("bob lists flunders after the RoleBinding: %d %s", code, body)
	}
}

// TestExplainAccessBadQuery: missing parameters answer 400 Status.
func TestExplainAccessBadQuery(t *testing.T) {
	srv := aggregatortest.Start(t)
	for q, want := range map[string]string{
		"verb=list&resource=flunders":                `the user is required: /debug/aggsim/access?as=<user>&verb=<verb>&resource=<resource>[.<group>] (or path=<url>)`,
		"as=bob&resource=flunders":                   `verb is required`,
		"as=bob&verb=get":                            `exactly one of resource and path is required`,
		"as=bob&verb=get&path=/healthz&namespace=ns": `a non-resource path takes no subresource, namespace or name`,
		"as=bob&verb=get&path=healthz":               `path "healthz" must start with "/"`,
	} {
		resp, err := srv.Client().Get(srv.URL + aggregator.DebugAccessPath + "?" + q)
		if err != nil {
			t.Fatal(err)
		}
		var st meta.Status
		_ = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if resp.StatusCode != 400 || st.Message != want || st.Reason != meta.StatusReasonBadRequest {
			t.Errorf("%s: %d %+v, want 400 %q", q, resp.StatusCode, st, want)
		}
	}
}
