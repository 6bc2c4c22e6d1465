package inspectorpage_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// TestAdmissionPanel: the panel lists a webhook configuration with its
// last call (a denial) and the refusal, from the same data as GET
// /debug/aggsim/admission.
func TestAdmissionPanel(t *testing.T) {
	srv, p, hs := startPage(t)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, page := body(t, c, hs.URL+p.LoginPath()); code != 200 || !strings.Contains(page, `hx-get="/panels/admission"`) {
		t.Fatalf("login: %d, page without the admission panel:\n%s", code, page)
	}
	if _, got := body(t, c, hs.URL+"/panels/admission"); strings.Count(got, `<p class="note">none</p>`) != 3 {
		t.Errorf("empty panel:\n%s", got)
	}
	srv.RegisterAdmissionWebhook(t, aggregatortest.WebhookOptions{Name: "deny.example.com",
		NamespaceSelector: &meta.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "default"}},
		Handler: func(r *aggregatortest.AdmissionRequest) aggregatortest.AdmissionResponse {
			return aggregatortest.AdmissionResponse{Message: "no " + r.Name}
		}})
	resp, err := srv.Client().Post(srv.URL+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(`{"metadata":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	_, got := body(t, c, hs.URL+"/panels/admission")
	got = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d\d\d`).ReplaceAllString(got, "CLOCK")
	got = regexp.MustCompile(`in \d+\.\d ms`).ReplaceAllString(got, "in N ms")
	for _, want := range []string{
		`<tr class="webhook" data-name="deny.example.com/deny.example.com"><td>ValidatingWebhookConfiguration deny.example.com</td><td>deny.example.com<div class="note">aggsim explain webhook deny.example.com/deny.example.com</div></td>
<td>Fail</td><td>1</td>
<td>CLOCK CREATE configmaps default/x: <b>denied</b> in N ms<div>admission webhook &#34;deny.example.com&#34; denied the request: no x</div></td></tr>`,
		`<tr class="refusal"><td>CLOCK</td><td>webhook deny.example.com (deny.example.com)</td>
<td>aggsim-admin: CREATE configmaps default/x</td><td>403 admission webhook &#34;deny.example.com&#34; denied the request: no x</td></tr>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("panel lacks\n%s\ngot:\n%s", want, got)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+aggregator.DebugAdmissionPath, nil)
	req.Header.Set("Accept", "application/json")
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o aggregator.AdmissionOverview
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil || len(o.Configurations) != 1 || len(o.Configurations[0].Webhooks) != 1 ||
		o.Configurations[0].Webhooks[0].LastCall == nil || o.Configurations[0].Webhooks[0].LastCall.Verdict != "denied" || len(o.Refusals) != 1 || len(o.Policies) != 0 {
		t.Fatalf("%s: %v %+v", aggregator.DebugAdmissionPath, err, o)
	}
}
