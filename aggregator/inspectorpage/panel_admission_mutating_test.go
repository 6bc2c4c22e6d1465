package inspectorpage_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/aggregator/inspectorpage"
)

// TestAdmissionPanelMutatingPolicy: with MutatingAdmissionPolicies on,
// the panel lists them and names a refusal's MutatingAdmissionPolicy. The
// answer is kube-apiserver 1.33.13's for the same policy (POST of a
// ConfigMap: "policy 'broken' with binding 'broken-b' denied request: JSON
// Patch: error in remove for path: '/nope': Unable to remove nonexistent
// key: nope: missing value").
func TestAdmissionPanelMutatingPolicy(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) {
		o.FeatureGates = map[string]bool{aggregator.FeatureMutatingAdmissionPolicy: true}
		o.RuntimeConfig = map[string]bool{aggregator.GroupVersionAdmissionRegistrationV1Alpha1: true}
	}))
	p, err := inspectorpage.New(srv.Aggregator(), inspectorpage.Options{Server: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, _ := body(t, c, hs.URL+p.LoginPath()); code != 200 {
		t.Fatalf("login: %d", code)
	}
	post := func(path, b string, want int) {
		t.Helper()
		resp, err := srv.Client().Post(srv.URL+path, "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("POST %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	post("/apis/admissionregistration.k8s.io/v1alpha1/mutatingadmissionpolicies", `{"metadata":{"name":"broken"},"spec":{"reinvocationPolicy":"Never",
		"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
		"mutations":[{"patchType":"JSONPatch","jsonPatch":{"expression":"[JSONPatch{op: 'remove', path: '/nope'}]"}}]}}`, http.StatusCreated)
	post("/apis/admissionregistration.k8s.io/v1alpha1/mutatingadmissionpolicybindings", `{"metadata":{"name":"broken-b"},"spec":{"policyName":"broken"}}`, http.StatusCreated)
	post("/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"x"}}`, http.StatusForbidden)
	_, got := body(t, c, hs.URL+"/panels/admission")
	got = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d`).ReplaceAllString(got, "CLOCK")
	for _, want := range []string{
		`<h3>MutatingAdmissionPolicies</h3>`,
		`<tr class="policy" data-name="broken"><td>broken</td><td>Fail</td><td>broken-b</td><td>1</td></tr>`,
		`<tr class="refusal"><td>CLOCK</td><td>MutatingAdmissionPolicy broken (binding broken-b)</td>
<td>aggsim-admin: CREATE configmaps default/x</td><td>403 policy &#39;broken&#39; with binding &#39;broken-b&#39; denied request: JSON Patch: error in remove for path: &#39;/nope&#39;: Unable to remove nonexistent key: nope: missing value</td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("panel lacks\n%s\ngot:\n%s", want, got)
		}
	}
}
