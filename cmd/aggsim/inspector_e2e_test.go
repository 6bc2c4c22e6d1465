package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/aggsim/aggsim/demo"
)

// chromiumPath finds Debian's chromium (or another Chromium/Chrome) for
// the browser test; "" when none is installed.
func chromiumPath() string {
	if p := os.Getenv("AGGSIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestInspectorBrowser is issue 18's browser test: `aggsim serve --demo`
// as a process, its inspector page in headless Chromium. It logs in with
// the banner's one-time URL, sees both wardle APIServices Available in
// discovery order, runs `kubectl get fl --as=jane` and sees that request
// appear live with X-Remote-User: jane sent and Impersonate-User removed,
// filters the list by user, then breaks the demo backend (POST /debug/fail?status=503) and sees the
// APIService turn unavailable with upstream's reason,
// FailedDiscoveryCheck. Each step's screenshot is saved in the test's
// temporary directory (AGGSIM_INSPECTOR_SCREENSHOTS=<dir> keeps copies).
// Without Chromium it skips, unless AGGSIM_REQUIRE_BROWSER is set (CI):
// then it fails.
func TestInspectorBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e")
	}
	chromium := chromiumPath()
	if chromium == "" {
		if os.Getenv("AGGSIM_REQUIRE_BROWSER") != "" {
			t.Fatal("AGGSIM_REQUIRE_BROWSER is set but no chromium is installed (make e2e-inspector installs Debian's chromium)")
		}
		t.Skip("chromium is not installed: `apt-get install -y chromium` (or make e2e-inspector) runs this test; set AGGSIM_REQUIRE_BROWSER=1 to fail instead")
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	dataDir := filepath.Join(t.TempDir(), "aggsim")
	srv := startDemoServe(t, dataDir)
	login := ""
	for _, l := range srv.banner {
		if u, ok := strings.CutPrefix(l, "inspector: "); ok {
			login, _, _ = strings.Cut(u, " ")
		}
	}
	if !strings.HasPrefix(login, "http://127.0.0.1:") || !strings.Contains(login, "/login?token=") {
		t.Fatalf("no inspector login URL in the banner:\n%s", strings.Join(srv.banner, "\n"))
	}
	shots := t.TempDir()
	keep := os.Getenv("AGGSIM_INSPECTOR_SCREENSHOTS")

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1500, 1100))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	step := 0
	shot := func(name string) {
		t.Helper()
		step++
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		file := fmt.Sprintf("%d-%s.png", step, name)
		for _, dir := range []string{shots, keep} {
			if dir == "" {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, file), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("screenshot %s", filepath.Join(shots, file))
	}
	// waitJS waits until the JavaScript expression is true in the page.
	waitJS := func(what, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			html, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 3000) : ""`))
			t.Fatalf("waiting for %s: %v\npage text:\n%s", what, err, html)
		}
	}

	// 1. Log in: the one-time URL sets the session cookie and redirects
	// to the page, whose panels load.
	if err := chromedp.Do(ctx, chromedp.Navigate(login)); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil || loc != "/" {
		t.Fatalf("after login the page is at %q (%v), want /", loc, err)
	}

	// 2. Both wardle APIServices Available, in discovery order: v1alpha1
	// (versionPriority 15) before v1beta1 (10).
	waitJS("both wardle APIServices Available", `document.querySelectorAll('tr.apiservice[data-name$=".wardle.example.com"][data-available="True"]').length == 2`)
	order, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('tr.apiservice[data-name$=".wardle.example.com"]')).map(e => e.dataset.name)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "v1alpha1.wardle.example.com,v1beta1.wardle.example.com" {
		t.Errorf("wardle APIServices in the order %q", order)
	}
	shot("apiservices-available")

	// 3. kubectl get fl --as=jane, seen live. jane is given read access
	// explicitly, so the request is proxied whatever the authorization
	// mode (with RBAC she has none by default).
	kubectl := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("kubectl", append([]string{"--kubeconfig", srv.kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	kubectl("create", "clusterrole", "flunder-reader", "--verb=get,list,watch", "--resource=flunders.wardle.example.com")
	kubectl("create", "clusterrolebinding", "jane-flunder-reader", "--clusterrole=flunder-reader", "--user=jane")
	kubectl("get", "fl", "--as=jane")
	row := `document.querySelector('details.req[data-user="jane"][data-path$="/flunders"]')`
	waitJS("jane's request in the live list", row+` !== null`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](row+`.open = true`)); err != nil {
		t.Fatal(err)
	}
	sent, err := chromedp.Run(ctx, chromedp.Evaluate[string](row+`.querySelector('section.sent tr[data-h="X-Remote-User"] td').textContent`))
	if err != nil || sent != "jane" {
		t.Errorf("X-Remote-User sent: %q (%v), want jane", sent, err)
	}
	removed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(`+row+`.querySelectorAll('ul.removed li')).map(e => e.textContent)`))
	if err != nil || !containsString(removed, "Impersonate-User") {
		t.Errorf("headers removed: %q (%v), want Impersonate-User among them", removed, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](row+`.scrollIntoView({block: "start"})`)); err != nil {
		t.Fatal(err)
	}
	shot("request-jane")

	// The user filter: the list is rebuilt from the stream for jane only.
	if err := chromedp.Do(ctx, chromedp.SendKeys(`input[name="user"]`, "jane")); err != nil {
		t.Fatal(err)
	}
	waitJS("the list filtered to jane", `(() => {
		const l = document.getElementById('request-list'), rows = l ? l.querySelectorAll('details.req') : [];
		return l && l.dataset.events == '/events/requests?user=jane' && rows.length > 0 && Array.from(rows).every(e => e.dataset.user == 'jane');
	})()`)

	// 4. Break the backend: the APIService turns unavailable with
	// upstream's reason.
	failDemoBackend(t, dataDir, http.StatusServiceUnavailable)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	sel := `document.querySelector('tr.apiservice[data-name="v1alpha1.wardle.example.com"]')`
	waitJS("v1alpha1 unavailable", sel+`.dataset.available == "False"`)
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](sel+`.textContent`))
	if err != nil || !strings.Contains(text, "(FailedDiscoveryCheck)") || !strings.Contains(text, "503") {
		t.Errorf("v1alpha1 row %q (%v), want reason FailedDiscoveryCheck with the 503", text, err)
	}
	shot("apiservice-unavailable")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// failDemoBackend tells the demo backend of dataDir to answer every
// request with status (demo.DebugFailPath), with the front-proxy client
// certificate it requires.
func failDemoBackend(t *testing.T, dataDir string, status int) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("https://127.0.0.1:%d%s?status=%d", endpointsPort(t, dataDir), demo.DebugFailPath, status), nil)
	req.Header.Set("X-Remote-User", "inspector")
	resp, err := demoBackendClient(t, dataDir).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d", demo.DebugFailPath, resp.StatusCode)
	}
}
