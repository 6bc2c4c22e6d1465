package inspectorpage_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/aggregatortest"
	"github.com/aggsim/aggsim/aggregator/inspectorpage"
)

func startPage(t *testing.T) (*aggregatortest.Server, *inspectorpage.Page, *httptest.Server) {
	t.Helper()
	srv := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.InspectorRingSize = 20 }))
	p, err := inspectorpage.New(srv.Aggregator(), inspectorpage.Options{Server: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	return srv, p, hs
}

func body(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLogin checks the one-time token: it logs in once, a second use and
// a wrong token are refused, and nothing but the login is served without
// the session cookie.
func TestLogin(t *testing.T) {
	_, p, hs := startPage(t)
	login := p.LoginPath()
	if !strings.HasPrefix(login, "/login?token=") || len(login) != len("/login?token=")+32 {
		t.Fatalf("login path %q", login)
	}
	anon := hs.Client()
	for _, path := range []string{"/", "/panels/apiservices", "/events/requests", "/assets/htmx-2.0.11.min.js", "/login?token=wrong"} {
		if code, _ := body(t, anon, hs.URL+path); code != http.StatusUnauthorized {
			t.Errorf("%s without a session: %d, want 401", path, code)
		}
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	code, page := body(t, c, hs.URL+login)
	if code != http.StatusOK || !strings.Contains(page, `hx-get="/panels/apiservices"`) || !strings.Contains(page, `/assets/htmx-2.0.11.min.js`) {
		t.Fatalf("after login: %d %s", code, page)
	}
	if p.LoginPath() != "" {
		t.Error("the token is still usable after the login")
	}
	if code, _ := body(t, &http.Client{}, hs.URL+login); code != http.StatusUnauthorized {
		t.Errorf("second use of the token: %d, want 401", code)
	}
	if code, js := body(t, c, hs.URL+"/assets/htmx-2.0.11.min.js"); code != 200 || !strings.Contains(js, "htmx") {
		t.Errorf("htmx asset: %d", code)
	}
	// DNS rebinding: another site's name pointing at 127.0.0.1.
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/", nil)
	req.Host = "evil.example.com"
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %d, want 421", resp.StatusCode)
	}
}

// TestPanels renders each panel over a live aggregator and checks a few
// facts in it, and the request stream's rendered rows.
func TestPanels(t *testing.T) {
	srv, p, hs := startPage(t)
	srv.RegisterBackend(t, aggregatortest.BackendOptions{Group: "wardle.example.com", Versions: []string{"v1alpha1", "v1beta1"}})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, _ := body(t, c, hs.URL+p.LoginPath()); code != 200 {
		t.Fatal("login failed")
	}
	_, apis := body(t, c, hs.URL+"/panels/apiservices")
	i, j := strings.Index(apis, `data-name="v1beta1.wardle.example.com" data-available="True"`), strings.Index(apis, `data-name="v1alpha1.wardle.example.com" data-available="True"`)
	if i < 0 || j < i {
		t.Errorf("apiservices panel: v1beta1 at %d, v1alpha1 at %d:\n%s", i, j, apis)
	}
	if _, one := body(t, c, hs.URL+"/panels/apiservice?name=v1alpha1.wardle.example.com"); !strings.Contains(one, "verification: <b>ok</b>") || !strings.Contains(one, "proxying will work") {
		t.Errorf("apiservice panel:\n%s", one)
	}
	if _, d := body(t, c, hs.URL+"/panels/discovery"); !strings.Contains(d, `<tr data-group="wardle.example.com">`) || !strings.Contains(d, "v1alpha1: Current") {
		t.Errorf("discovery panel:\n%s", d)
	}
	if _, rq := body(t, c, hs.URL+"/panels/requests?user=jane"); !strings.Contains(rq, `data-events="/events/requests?user=jane"`) {
		t.Errorf("requests panel:\n%s", rq)
	}

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/apis/wardle.example.com/v1alpha1", nil)
	req.Header.Set("Impersonate-User", "jane")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ev, err := c.Get(hs.URL + "/events/requests?user=jane")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	var row strings.Builder
	sc := bufio.NewScanner(ev.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" && row.Len() > 0 {
			break
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			row.WriteString(d + "\n")
		}
	}
	for _, want := range []string{`data-user="jane"`, `<tr data-h="X-Remote-User"><th>X-Remote-User</th><td>jane</td></tr>`, `<ul class="removed"><li>Impersonate-User</li></ul>`, `→ v1alpha1.wardle.example.com`} {
		if !strings.Contains(row.String(), want) {
			t.Errorf("row lacks %s:\n%s", want, row.String())
		}
	}
}

// TestNamespacesPanel: a namespace deleted while the namespace controller
// is off stays Terminating; the panel lists it and the namespace panel
// says why.
func TestNamespacesPanel(t *testing.T) {
	srv := aggregatortest.Start(t, aggregatortest.WithAggregatorOptions(func(o *aggregator.Options) { o.Controllers = []string{"-namespace-controller"} }))
	p, err := inspectorpage.New(srv.Aggregator(), inspectorpage.Options{Server: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	defer hs.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, _ := body(t, c, hs.URL+p.LoginPath()); code != 200 {
		t.Fatal("login failed")
	}
	if _, ns := body(t, c, hs.URL+"/panels/namespaces"); !strings.Contains(ns, `<p class="note">none</p>`) {
		t.Errorf("namespaces panel with none terminating:\n%s", ns)
	}
	resp, err := srv.Client().Post(srv.URL+"/api/v1/namespaces", "application/json", strings.NewReader(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/api/v1/namespaces/stuck", nil)
	if resp, err = srv.Client().Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, ns := body(t, c, hs.URL+"/panels/namespaces"); !strings.Contains(ns, `<tr class="namespace" data-name="stuck">`) || !strings.Contains(ns, "<td>kubernetes</td>") {
		t.Errorf("namespaces panel:\n%s", ns)
	}
	if _, one := body(t, c, hs.URL+"/panels/namespace?name=stuck"); !strings.Contains(one, "phase <b>Terminating</b>, finalizers <code>kubernetes</code>; the namespace controller is off") {
		t.Errorf("namespace panel:\n%s", one)
	}
}
