package main

// End-to-end tests of `aggsim serve` driven by the real kubectl binaries
// (the installed one and kubectl.1.27 from the same folder), and a kill -9
// durability test of the bbolt store behind a running server.
//
// Invariants checked:
//   - every kubectl verb the registry issue lists works unchanged, without
//     --validate=false;
//   - invalid APIServices are refused with kube-apiserver 1.33's exact
//     kubectl output (captures in testdata/registry-types/d-validation);
//   - every write the server acknowledged before a SIGKILL is there after a
//     restart, and resourceVersions keep increasing.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// aggsimBinary builds cmd/aggsim once per test binary run, as `make build`
// does (CGO_ENABLED=0).
func aggsimBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aggsim-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "aggsim")
		// as `make build` builds it: static, no libc mapped in
		build := exec.Command("go", "build", "-o", builtBin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("CGO_ENABLED=0 go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// servedAggsim is one `aggsim serve` process started by a test.
type servedAggsim struct {
	cmd        *exec.Cmd
	URL        string
	Kubeconfig string
	DataDir    string
	stderr     *bytes.Buffer
	done       chan struct{}
}

var bannerServing = regexp.MustCompile(`serving on (https://\S+)`)

// startServe runs `aggsim serve --secure-port 0 --data-dir dataDir extra...`
// and waits for its banner. The process is killed (by its PID) at cleanup.
func startServe(t testing.TB, dataDir string, extra ...string) *servedAggsim {
	t.Helper()
	args := append([]string{"serve", "--secure-port", "0", "--data-dir", dataDir}, extra...)
	cmd := exec.Command(aggsimBinary(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &servedAggsim{cmd: cmd, DataDir: dataDir, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = &lockedWriter{w: s.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.kill() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("aggsim exited before its banner; stderr:\n%s", s.stderr)
			}
			if m := bannerServing.FindStringSubmatch(l); m != nil {
				s.URL = m[1]
			}
			if strings.HasPrefix(l, "export KUBECONFIG=") {
				s.Kubeconfig = strings.TrimPrefix(l, "export KUBECONFIG=")
				go func() {
					for range lines {
					}
				}()
				if s.URL == "" {
					t.Fatal("banner did not name the serving address")
				}
				return s
			}
		case <-deadline:
			t.Fatalf("no banner within 60s; stderr:\n%s", s.stderr)
		}
	}
}

func (s *servedAggsim) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.done
	}
}

// stderrText returns what the process wrote to its standard error so far.
func (s *servedAggsim) stderrText() string {
	w := s.cmd.Stderr.(*lockedWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return s.stderr.String()
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// kubectlBinaries returns the kubectl versions the e2e tests run: the
// installed one and kubectl.1.27 beside it.
func kubectlBinaries(t *testing.T) map[string]string {
	t.Helper()
	k, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}
	real, err := filepath.EvalSymlinks(k)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"kubectl": real}
	if _, err := os.Stat(filepath.Join(filepath.Dir(real), "kubectl.1.27")); err == nil {
		out["kubectl.1.27"] = filepath.Join(filepath.Dir(real), "kubectl.1.27")
	} else {
		t.Logf("kubectl.1.27 not found beside %s; testing only the installed kubectl", real)
	}
	return out
}

type kubectlRunner struct {
	t          *testing.T
	bin        string
	kubeconfig string
}

// run executes kubectl with args (and stdin) and returns stdout, stderr
// and the exit code.
func (k kubectlRunner) run(stdin string, args ...string) (string, string, int) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.kubeconfig, "HOME="+filepath.Dir(k.kubeconfig))
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			k.t.Fatalf("kubectl %v: %v", args, err)
		}
	}
	return so.String(), se.String(), code
}

// ok runs kubectl and fails the test unless it exits 0.
func (k kubectlRunner) ok(args ...string) string {
	k.t.Helper()
	so, se, code := k.run("", args...)
	if code != 0 {
		k.t.Fatalf("kubectl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, so, se)
	}
	return so
}

func repoFile(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

func TestServeKubectlE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e")
	}
	for name, bin := range kubectlBinaries(t) {
		t.Run(name, func(t *testing.T) {
			srv := startServe(t, t.TempDir())
			k := kubectlRunner{t: t, bin: bin, kubeconfig: srv.Kubeconfig}
			testKubectlAPIServices(t, k)
			testKubectlInvalid(t, k)
			testKubectlCore(t, k)
		})
	}
}

func testKubectlAPIServices(t *testing.T, k kubectlRunner) {
	manifests := []string{"apiservice-wardle.yaml", "apiservice-pizza-v1alpha1.yaml", "apiservice-pizza-v1beta1.yaml", "apiservice-custom-metrics.yaml"}
	names := []string{"v1alpha1.wardle.example.com", "v1alpha1.restaurant.programming-kubernetes.info", "v1beta1.restaurant.programming-kubernetes.info", "v1beta1.custom.metrics.k8s.io"}
	for i, m := range manifests {
		out := k.ok("apply", "-f", repoFile("testdata", "manifests", m))
		if want := "apiservice.apiregistration.k8s.io/" + names[i] + " created\n"; out != want {
			t.Fatalf("apply %s: got %q, want %q", m, out, want)
		}
	}
	// get: sorted by name; the automanaged local APIServices (v1., v1.authentication.k8s.io, ...)
	// are left out with a "!key" label selector.
	out := k.ok("get", "apiservices", "-l", "!kube-aggregator.kubernetes.io/automanaged", "-o", "custom-columns=NAME:.metadata.name,SERVICE:.spec.service.name,GPM:.spec.groupPriorityMinimum")
	want := "NAME                                              SERVICE                    GPM\n" +
		"v1alpha1.restaurant.programming-kubernetes.info   api                        1000\n" +
		"v1alpha1.wardle.example.com                       api                        1000\n" +
		"v1beta1.custom.metrics.k8s.io                     custom-metrics-apiserver   100\n" +
		"v1beta1.restaurant.programming-kubernetes.info    api                        1000\n"
	if out != want {
		t.Fatalf("get apiservices:\n%s\nwant:\n%s", out, want)
	}
	header := strings.SplitN(k.ok("get", "apiservices"), "\n", 2)[0]
	if !regexp.MustCompile(`^NAME\s+SERVICE\s+AVAILABLE\s+AGE$`).MatchString(header) {
		t.Fatalf("table header %q", header)
	}

	// get -o yaml shows the stored, defaulted object.
	y := k.ok("get", "apiservice", "v1alpha1.wardle.example.com", "-o", "yaml")
	for _, frag := range []string{"kind: APIService\n", "    port: 443\n", "  versionPriority: 15\n", "  groupPriorityMinimum: 1000\n"} {
		if !strings.Contains(y, frag) {
			t.Fatalf("get -o yaml lacks %q:\n%s", frag, y)
		}
	}

	// get -w sees a later change.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := exec.CommandContext(ctx, k.bin, "get", "apiservices", "-w", "--output-watch-events", "-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name,VP:.object.spec.versionPriority", "--no-headers")
	w.Env = append(os.Environ(), "KUBECONFIG="+k.kubeconfig)
	wout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(wout)
		for sc.Scan() {
			events <- strings.Join(strings.Fields(sc.Text()), " ")
		}
		close(events)
	}()
	waitLine := func(want string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		var seen []string
		for {
			select {
			case l, ok := <-events:
				if !ok {
					t.Fatalf("watch ended before %q; saw %q", want, seen)
				}
				seen = append(seen, l)
				if l == want {
					return
				}
			case <-timeout:
				t.Fatalf("watch did not show %q within 30s; saw %q", want, seen)
			}
		}
	}
	waitLine("ADDED v1alpha1.wardle.example.com 15")

	// edit-style merge patch, and the watch sees it.
	out = k.ok("patch", "apiservice", "v1alpha1.wardle.example.com", "--type=merge", "-p", `{"spec":{"versionPriority":20}}`)
	if out != "apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com patched\n" {
		t.Fatalf("patch: %q", out)
	}
	waitLine("MODIFIED v1alpha1.wardle.example.com 20")
	// An APIService has no generation in kube-apiserver 1.33, also after a
	// spec change.
	if g := k.ok("get", "apiservice", "v1alpha1.wardle.example.com", "-o", "jsonpath={.metadata.generation}"); g != "" {
		t.Fatalf("generation after spec patch = %q, want none", g)
	}

	// label, and list by label selector.
	k.ok("label", "apiservice", "v1beta1.custom.metrics.k8s.io", "tier=metrics")
	if out := k.ok("get", "apiservices", "-l", "tier=metrics", "-o", "name"); out != "apiservice.apiregistration.k8s.io/v1beta1.custom.metrics.k8s.io\n" {
		t.Fatalf("get -l: %q", out)
	}

	// server-side apply: create and then change.
	ssa := "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1.ssa.example.com\nspec:\n  group: ssa.example.com\n  version: v1\n  groupPriorityMinimum: 500\n  versionPriority: 5\n  insecureSkipTLSVerify: true\n  service:\n    name: ssa\n    namespace: default\n"
	so, se, code := k.run(ssa, "apply", "--server-side", "-f", "-")
	if code != 0 || so != "apiservice.apiregistration.k8s.io/v1.ssa.example.com serverside-applied\n" {
		t.Fatalf("apply --server-side: exit %d %q %q", code, so, se)
	}
	so, se, code = k.run(strings.Replace(ssa, "versionPriority: 5", "versionPriority: 6", 1), "apply", "--server-side", "-f", "-")
	if code != 0 || so != "apiservice.apiregistration.k8s.io/v1.ssa.example.com serverside-applied\n" {
		t.Fatalf("second apply --server-side: exit %d %q %q", code, so, se)
	}
	if vp := k.ok("get", "apiservice", "v1.ssa.example.com", "-o", "jsonpath={.spec.versionPriority}"); vp != "6" {
		t.Fatalf("versionPriority after server-side apply = %q", vp)
	}

	// delete, and the watch sees it.
	if out := k.ok("delete", "apiservice", "v1.ssa.example.com"); out != "apiservice.apiregistration.k8s.io \"v1.ssa.example.com\" deleted\n" {
		t.Fatalf("delete: %q", out)
	}
	waitLine("DELETED v1.ssa.example.com 6")
	if _, se, code := k.run("", "get", "apiservice", "v1.ssa.example.com"); code == 0 || se != "Error from server (NotFound): apiservices.apiregistration.k8s.io \"v1.ssa.example.com\" not found\n" {
		t.Fatalf("get after delete: exit %d, stderr %q", code, se)
	}

	// api-resources lists aggsim's own resources. The remote APIServices
	// above have no backend (unavailable), and kubectl exits 1 on those as
	// it does against kube-apiserver, so delete them first.
	for _, n := range names {
		k.ok("delete", "apiservice", n)
	}
	res := k.ok("api-resources", "--no-headers")
	for _, re := range []string{
		`(?m)^apiservices\s+apiregistration.k8s.io/v1\s+false\s+APIService$`,
		`(?m)^namespaces\s+ns\s+v1\s+false\s+Namespace$`,
		`(?m)^services\s+svc\s+v1\s+true\s+Service$`,
		`(?m)^endpoints\s+ep\s+v1\s+true\s+Endpoints$`,
		`(?m)^configmaps\s+cm\s+v1\s+true\s+ConfigMap$`,
	} {
		if !regexp.MustCompile(re).MatchString(res) {
			t.Fatalf("api-resources lacks %s:\n%s", re, res)
		}
	}
}

// testKubectlInvalid replays the captured invalid APIServices with
// `kubectl create --dry-run=server -f -` and compares kubectl's stderr and
// exit code with what it printed against kube-apiserver 1.33.
func testKubectlInvalid(t *testing.T, k kubectlRunner) {
	files, err := filepath.Glob(repoFile("testdata", "registry-types", "d-validation", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no validation captures: %v", err)
	}
	sort.Strings(files)
	// The captured requests name the caBundle by a placeholder; the bytes
	// are in backend-ca.b64.
	caB64, err := os.ReadFile(repoFile("testdata", "registry-types", "backend-ca.b64"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		var c struct {
			Case    string          `json:"case"`
			Request json.RawMessage `json:"request"`
			Kubectl *struct {
				Exit   int    `json:"exit"`
				Stdout string `json:"stdout"`
				Stderr string `json:"stderr"`
			} `json:"kubectlCreateDryRun"`
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &c); err != nil || c.Kubectl == nil || len(c.Request) == 0 {
			continue
		}
		req := strings.ReplaceAll(string(c.Request), "<base64 backend-ca.crt>", strings.TrimSpace(string(caB64)))
		so, se, code := k.run(req, "create", "--dry-run=server", "-f", "-")
		// kubectl 1.27 prints the same lines; only the dry-run suffix of
		// success output differs in spacing between versions, so compare
		// failures exactly and successes by exit code.
		// The capture created each valid object before the dry run, so
		// kube-apiserver answered AlreadyExists; here nothing exists yet and
		// the dry run succeeds.
		if c.Kubectl.Exit != 0 && !strings.Contains(c.Kubectl.Stderr, "(AlreadyExists)") {
			if code != c.Kubectl.Exit || se != c.Kubectl.Stderr {
				t.Errorf("%s: exit %d stderr %q; kube-apiserver 1.33 gave exit %d stderr %q", c.Case, code, se, c.Kubectl.Exit, c.Kubectl.Stderr)
			}
		} else if code != 0 {
			t.Errorf("%s: exit %d (%s%s), want success", c.Case, code, so, se)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d validation captures replayed", checked)
	}
}

// testKubectlCore drives the legacy core subset with kubectl.
func testKubectlCore(t *testing.T, k kubectlRunner) {
	for _, m := range []string{"namespace-wardle.yaml", "service-wardle-api.yaml", "service-wardle-cip.yaml", "endpoints-wardle-cip.yaml", "configmap-example.yaml"} {
		k.ok("apply", "-f", repoFile("testdata", "manifests", m))
	}
	if out := k.ok("get", "ns", "-o", "name"); out != "namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\nnamespace/wardle\n" {
		t.Fatalf("namespaces: %q", out)
	}
	out := k.ok("get", "svc", "-n", "wardle", "-o", "custom-columns=NAME:.metadata.name,TYPE:.spec.type", "--no-headers")
	if strings.Join(strings.Fields(out), " ") != "api ExternalName api-cip ClusterIP" {
		t.Fatalf("services: %q", out)
	}
	k.ok("label", "svc", "-n", "wardle", "api", "app=wardle")
	if out := k.ok("get", "svc", "-n", "wardle", "-l", "app=wardle", "-o", "name"); out != "service/api\n" {
		t.Fatalf("label selector on services: %q", out)
	}
	// An object in a missing namespace is refused as upstream refuses it.
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: nosuchns\ndata:\n  a: b\n"
	if _, se, code := k.run(cm, "apply", "-f", "-"); code == 0 || !strings.Contains(se, `namespaces "nosuchns" not found`) {
		t.Fatalf("configmap in a missing namespace: exit %d stderr %q", code, se)
	}
	// Invalid core manifests get upstream's messages.
	exp, err := os.ReadFile(repoFile("testdata", "manifests", "invalid", "EXPECTED.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(exp), "\n") {
		file, msg, ok := strings.Cut(line, ": ")
		if !ok || strings.HasPrefix(line, "#") || strings.HasPrefix(file, "apiservice-") {
			continue
		}
		_, se, code := k.run("", "create", "-f", repoFile("testdata", "manifests", "invalid", file))
		if code == 0 {
			t.Errorf("%s: accepted", file)
			continue
		}
		// kubectl prints an Invalid error as `The <Kind> "<name>" is invalid: <causes>`,
		// and several causes as one "* <cause>" line each, where the
		// server's message lists them as "[<cause>, <cause>]".
		_, causes, _ := strings.Cut(msg, " is invalid: ")
		if _, list, ok := strings.Cut(se, " is invalid: \n* "); ok {
			se = "[" + strings.ReplaceAll(strings.TrimSpace(list), "\n* ", ", ") + "]"
		}
		if !strings.Contains(se, causes) {
			t.Errorf("%s: stderr %q does not contain %q", file, se, causes)
		}
	}
	k.ok("delete", "configmap", "-n", "wardle", "wardle-config")
	k.ok("delete", "ns", "wardle")
}

// TestServeSurvivesKill9 streams creates at a running aggsim, kills it
// with SIGKILL mid-stream, restarts it on the same data dir and checks
// that every acknowledged object is there and that resourceVersions keep
// increasing past the largest acknowledged one.
func TestServeSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e")
	}
	dataDir := t.TempDir()
	srv := startServe(t, dataDir)
	client := adminClient(t, srv.Kubeconfig)

	type ack struct {
		name string
		rv   int64
	}
	var (
		mu    sync.Mutex
		acked []ack
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("cm-%d-%d", w, i)
				body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"i":"%d"}}`, name, i)
				resp, err := client.Post(srv.URL+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(body))
				if err != nil {
					return // the server died
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					return
				}
				var obj struct {
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
				}
				if json.Unmarshal(b, &obj) != nil {
					return
				}
				rv, _ := strconv.ParseInt(obj.Metadata.ResourceVersion, 10, 64)
				mu.Lock()
				acked = append(acked, ack{name, rv})
				mu.Unlock()
			}
		}()
	}
	// Wait until enough writes are acknowledged, then kill mid-stream.
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes acknowledged in 60s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv.kill()
	close(stop)
	wg.Wait()

	srv2 := startServe(t, dataDir)
	client2 := adminClient(t, srv2.Kubeconfig)
	resp, err := client2.Get(srv2.URL + "/api/v1/namespaces/default/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []struct {
			Metadata struct {
				Name            string `json:"name"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, it := range list.Items {
		have[it.Metadata.Name] = it.Metadata.ResourceVersion
	}
	var maxRV int64
	for _, a := range acked {
		rv, ok := have[a.name]
		if !ok {
			t.Errorf("acknowledged %s (rv %d) is missing after kill -9", a.name, a.rv)
			continue
		}
		if rv != strconv.FormatInt(a.rv, 10) {
			t.Errorf("%s: resourceVersion %s after restart, %d when acknowledged", a.name, rv, a.rv)
		}
		maxRV = max(maxRV, a.rv)
	}
	t.Logf("%d acknowledged writes before SIGKILL, %d objects after restart", len(acked), len(list.Items))
	resp2, err := client2.Post(srv2.URL+"/api/v1/namespaces/default/configmaps", "application/json",
		strings.NewReader(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after-restart"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	var obj struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &obj); err != nil || resp2.StatusCode != http.StatusCreated {
		t.Fatalf("create after restart: %d %s", resp2.StatusCode, b)
	}
	if rv, _ := strconv.ParseInt(obj.Metadata.ResourceVersion, 10, 64); rv <= maxRV {
		t.Fatalf("resourceVersion after restart %d is not above the largest acknowledged %d", rv, maxRV)
	}
}

// adminClient builds an HTTP client from the kubeconfig aggsim wrote.
func adminClient(t testing.TB, kubeconfig string) *http.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true}, Timeout: 30 * time.Second}
}

var _ = tls.VersionTLS12
