package main

// End-to-end test: the real upstream k8s.io/sample-apiserver (group
// wardle.example.com, flunders and fischers) runs behind aggsim with its
// upstream-default authentication, authorization and admission flags, and
// its --kubeconfig, --authentication-kubeconfig and
// --authorization-kubeconfig pointing at aggsim (issue 8). The real kubectl
// drives it through aggsim.
//
// It needs an etcd binary and a sample-apiserver binary, so it only runs
// with AGGSIM_E2E_SAMPLE_APISERVER=1 (`make e2e-sample-apiserver` installs
// both and sets SAMPLE_APISERVER_BIN and ETCD_BIN). Every process runs on
// 127.0.0.1 and is started and killed by its PID. Set AGGSIM_E2E_LOG_DIR to
// keep the logs of aggsim, the backend and etcd after the run.
//
// Invariants checked, in each scenario:
//   - the backend becomes ready against aggsim alone: aggsim answers the
//     extension-apiserver-authentication ConfigMap, namespaces, admission
//     and flow-control LIST+WATCHes, SubjectAccessReviews;
//   - both APIServices turn Available, and kubectl creates, lists,
//     labels, watches and deletes flunders and fischers through aggsim;
//   - the backend's admission chain works: BanFlunder refuses a flunder a
//     fischer disallows (403), NamespaceLifecycle refuses a namespace aggsim
//     does not have (404);
//   - a user outside system:masters (bob, group devs) reaches the backend,
//     whose SubjectAccessReview aggsim answers: allowed with AlwaysAllow,
//     refused with AlwaysDeny;
//   - a backend started before aggsim recovers once aggsim is up (like a
//     pod under a restart policy it is restarted when it exits), and a
//     running backend keeps working across an aggsim restart.

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
)

// sampleTestdata is the folder with the manifests this test applies.
func sampleTestdata(name string) string { return repoFile("testdata", "sample-apiserver", name) }

// sampleTools are the external binaries the test runs.
type sampleTools struct {
	sample, etcd, kubectl string
}

func sampleToolsFromEnv(t *testing.T) sampleTools {
	t.Helper()
	if os.Getenv("AGGSIM_E2E_SAMPLE_APISERVER") != "1" {
		t.Skip("set AGGSIM_E2E_SAMPLE_APISERVER=1 (or run `make e2e-sample-apiserver`) to run the real k8s.io/sample-apiserver behind aggsim; see README.md, section Run a real aggregated API server behind aggsim")
	}
	look := func(env, name string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s is not set and %s is not on PATH", env, name)
		}
		return p
	}
	return sampleTools{
		sample:  look("SAMPLE_APISERVER_BIN", "sample-apiserver"),
		etcd:    look("ETCD_BIN", "etcd"),
		kubectl: look("KUBECTL", "kubectl"),
	}
}

// sampleLogDir is where process logs go: $AGGSIM_E2E_LOG_DIR/<test name> when
// set (kept), else a temporary folder.
func sampleLogDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("AGGSIM_E2E_LOG_DIR")
	if base == "" {
		return t.TempDir()
	}
	d := filepath.Join(base, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// sampleFreePort returns a loopback TCP port nobody listens on right now.
func sampleFreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// sampleProc is one child process whose output goes to a log file. With restart
// set it is started again one second after it exits, as a kubelet restarts
// a pod's container, until stop is called.
type sampleProc struct {
	name    string
	bin     string
	args    []string
	dir     string
	logPath string
	restart bool

	mu      sync.Mutex // guards cmd, starts, exits, stopped
	cmd     *exec.Cmd
	starts  int
	exits   []string
	stopped bool
	done    chan struct{}
}

// startSampleProc starts p and registers its stop with t.Cleanup.
func startSampleProc(t *testing.T, p *sampleProc) *sampleProc {
	t.Helper()
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.done = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		defer close(p.done)
		defer logf.Close()
		first := true
		for {
			p.mu.Lock()
			if p.stopped {
				p.mu.Unlock()
				return
			}
			cmd := exec.Command(p.bin, p.args...)
			cmd.Dir = p.dir
			cmd.Stdout, cmd.Stderr = logf, logf
			fmt.Fprintf(logf, "=== %s start %d: %s %s\n", time.Now().Format(time.RFC3339Nano), p.starts+1, p.bin, strings.Join(p.args, " "))
			err := cmd.Start()
			if err == nil {
				p.cmd = cmd
				p.starts++
			}
			p.mu.Unlock()
			if first {
				started <- err
				first = false
			}
			if err != nil {
				return
			}
			werr := cmd.Wait()
			fmt.Fprintf(logf, "=== %s exited: %v\n", time.Now().Format(time.RFC3339Nano), werr)
			p.mu.Lock()
			if !p.stopped {
				p.exits = append(p.exits, fmt.Sprint(werr))
			}
			again := p.restart && !p.stopped
			p.mu.Unlock()
			if !again {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	if err := <-started; err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	t.Cleanup(p.stop)
	return p
}

// stop kills the process by its PID and ends the restart loop.
func (p *sampleProc) stop() {
	p.mu.Lock()
	p.stopped = true
	if p.cmd != nil && p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
	}
	p.mu.Unlock()
	<-p.done
}

// exitCount is how many times the process exited on its own.
func (p *sampleProc) exitCount() (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.exits), append([]string(nil), p.exits...)
}

// tail returns the last n lines of the process log.
func (p *sampleProc) tail(n int) string { return sampleTailFile(p.logPath, n) }

func sampleTailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startSampleEtcd runs etcd on two free loopback ports with a fresh data dir and
// waits until /health answers; it returns the client URL.
func startSampleEtcd(t *testing.T, bin, logs string) string {
	t.Helper()
	client := fmt.Sprintf("http://127.0.0.1:%d", sampleFreePort(t))
	peer := fmt.Sprintf("http://127.0.0.1:%d", sampleFreePort(t))
	startSampleProc(t, &sampleProc{
		name: "etcd", bin: bin, dir: t.TempDir(), logPath: filepath.Join(logs, "etcd.log"),
		args: []string{
			"--name", "e2e", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", "e2e=" + peer, "--log-level", "warn",
		},
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(client + "/health")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(b), `"health":"true"`) {
				return client
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd not healthy within 30s: %v\n%s", err, sampleTailFile(filepath.Join(logs, "etcd.log"), 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sampleEnv is one scenario: an aggsim data dir and port that survive
// aggsim restarts, the backend's certificates and port, and the processes.
type sampleEnv struct {
	t     *testing.T
	tools sampleTools
	logs  string
	etcd  string

	dataDir    string // aggsim --data-dir; its PKI is in dataDir/pki
	aggsimPort int
	aggsimArgs []string
	aggsim     *sampleProc
	aggsimRuns int

	backendDir  string // ca.crt, tls.crt, tls.key from `aggsim certs backend`
	backendPort int
	caBundle    string
	backend     *sampleProc
	// backendKubeconfig is the backend's --kubeconfig,
	// --authentication-kubeconfig and --authorization-kubeconfig; empty
	// means aggsim's admin kubeconfig (the RBAC scenario gives it its
	// ServiceAccount's, sample_apiserver_rbac_e2e_test.go).
	backendKubeconfig string

	k kubectlRunner
}

func newSampleEnv(t *testing.T, tools sampleTools, etcdURL string, aggsimArgs ...string) *sampleEnv {
	t.Helper()
	e := &sampleEnv{
		t: t, tools: tools, logs: sampleLogDir(t), etcd: etcdURL,
		dataDir: t.TempDir(), aggsimPort: sampleFreePort(t), aggsimArgs: aggsimArgs,
		backendDir: t.TempDir(), backendPort: sampleFreePort(t),
	}
	e.k = kubectlRunner{t: t, bin: tools.kubectl, kubeconfig: filepath.Join(e.dataDir, certs.KubeconfigName)}
	// The PKI exists before aggsim or the backend start, as `aggsim certs
	// init` leaves it; `aggsim serve` keeps it.
	e.aggsimCLI("certs", "init", "--dir", e.pki(""), "--server", e.aggsimURL())
	out := e.aggsimCLI("certs", "backend", "--service", "api", "--namespace", "wardle", "--dir", e.backendDir,
		"--group", "wardle.example.com", "--version", "v1alpha1", "--port", strconv.Itoa(e.backendPort))
	m := regexp.MustCompile(`(?m)^caBundle: (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("aggsim certs backend printed no caBundle:\n%s", out)
	}
	e.caBundle = m[1]
	t.Cleanup(func() {
		if t.Failed() {
			e.dumpState()
		}
	})
	return e
}

func (e *sampleEnv) pki(name string) string { return filepath.Join(e.dataDir, "pki", name) }

func (e *sampleEnv) aggsimURL() string { return fmt.Sprintf("https://127.0.0.1:%d", e.aggsimPort) }

// aggsimCLI runs a short aggsim subcommand and returns its stdout.
func (e *sampleEnv) aggsimCLI(args ...string) string {
	e.t.Helper()
	out, err := exec.Command(aggsimBinary(e.t), args...).Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		e.t.Fatalf("aggsim %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// startAggsim runs `aggsim serve` on the scenario's fixed port and data
// dir and waits until /readyz answers 200 to the admin certificate.
func (e *sampleEnv) startAggsim() {
	e.t.Helper()
	e.aggsimRuns++
	args := append([]string{"serve", "--secure-port", strconv.Itoa(e.aggsimPort), "--data-dir", e.dataDir,
		"--availability-check-interval", "5s", "--log-level", "debug"}, e.aggsimArgs...)
	e.aggsim = startSampleProc(e.t, &sampleProc{
		name: "aggsim", bin: aggsimBinary(e.t), args: args, dir: e.dataDir,
		logPath: filepath.Join(e.logs, fmt.Sprintf("aggsim-%d.log", e.aggsimRuns)),
	})
	client := e.adminClient()
	deadline := time.Now().Add(60 * time.Second)
	last := ""
	for {
		resp, err := client.Get(e.aggsimURL() + "/readyz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, b)
		} else {
			last = err.Error()
		}
		if n, exits := e.aggsim.exitCount(); n > 0 {
			e.t.Fatalf("aggsim exited: %v\n%s", exits, e.aggsim.tail(40))
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("aggsim /readyz (admin certificate) not 200 within 60s; last answer: %s\n%s", last, e.aggsim.tail(10))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sampleArgs are the backend's flags: upstream defaults for
// authentication, authorization and admission (no
// --authentication-skip-lookup, no disabled admission plugins, APF on),
// every kubeconfig pointing at aggsim with its admin certificate.
func (e *sampleEnv) sampleArgs() []string {
	kc := e.pki(certs.KubeconfigName)
	if e.backendKubeconfig != "" {
		kc = e.backendKubeconfig
	}
	args := []string{
		"--etcd-servers=" + e.etcd,
		"--etcd-prefix=/registry/" + strings.ReplaceAll(e.t.Name(), "/", "_"),
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(e.backendPort),
		"--tls-cert-file=" + filepath.Join(e.backendDir, certs.BackendCertName),
		"--tls-private-key-file=" + filepath.Join(e.backendDir, certs.BackendKeyName),
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
	}
	// SAMPLE_APISERVER_EXTRA_FLAGS (space-separated) is for other sample
	// versions: v0.37 behind a 1.33 server needs
	// --disable-admission-plugins=MutatingAdmissionPolicy.
	return append(args, strings.Fields(os.Getenv("SAMPLE_APISERVER_EXTRA_FLAGS"))...)
}

// startBackend runs the sample-apiserver under a restart loop.
func (e *sampleEnv) startBackend() {
	e.t.Helper()
	e.backend = startSampleProc(e.t, &sampleProc{
		name: "sample-apiserver", bin: e.tools.sample, args: e.sampleArgs(), dir: e.backendDir,
		logPath: filepath.Join(e.logs, "sample-apiserver.log"), restart: true,
	})
}

// register applies the Namespace, the ExternalName Service and both
// APIServices with the backend's real port and caBundle.
func (e *sampleEnv) register() {
	e.t.Helper()
	tmpl, err := os.ReadFile(sampleTestdata("registration.yaml.tmpl"))
	if err != nil {
		e.t.Fatal(err)
	}
	manifest := os.Expand(string(tmpl), func(k string) string {
		switch k {
		case "PORT":
			return strconv.Itoa(e.backendPort)
		case "CA_BUNDLE":
			return e.caBundle
		}
		e.t.Fatalf("unknown template variable %q", k)
		return ""
	})
	so, se, code := e.k.run(manifest, "apply", "-f", "-")
	want := "namespace/wardle created\nservice/api created\n" +
		"apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com created\n" +
		"apiservice.apiregistration.k8s.io/v1beta1.wardle.example.com created\n"
	if code != 0 || so != want {
		e.t.Fatalf("register: exit %d\nstdout %q\nwant   %q\nstderr %s", code, so, want, se)
	}
}

// waitAvailable runs `kubectl wait --for=condition=Available` on both
// APIServices.
func (e *sampleEnv) waitAvailable() {
	e.t.Helper()
	for _, v := range []string{"v1alpha1", "v1beta1"} {
		name := v + ".wardle.example.com"
		so, se, code := e.k.run("", "wait", "--for=condition=Available", "apiservice/"+name, "--timeout=50s")
		if want := "apiservice.apiregistration.k8s.io/" + name + " condition met\n"; code != 0 || so != want {
			st, _, _ := e.k.run("", "get", "apiservice", name, "-o", "jsonpath={.status}")
			e.t.Fatalf("kubectl wait Available %s: exit %d %q %s\nstatus: %s", name, code, so, se, st)
		}
	}
}

// dumpState logs what a reader needs to route a failure: the APIService
// conditions, the backend's exits and the tails of every log.
func (e *sampleEnv) dumpState() {
	e.t.Logf("logs in %s", e.logs)
	if st, _, _ := e.k.run("", "get", "apiservices", "-o", "custom-columns=NAME:.metadata.name,AVAILABLE:.status.conditions[0].status,REASON:.status.conditions[0].reason,MESSAGE:.status.conditions[0].message"); st != "" {
		e.t.Logf("apiservices:\n%s", st)
	}
	if e.backend != nil {
		n, exits := e.backend.exitCount()
		e.t.Logf("sample-apiserver exited %d times %q; log tail:\n%s", n, exits, e.backend.tail(60))
	}
	if e.aggsim != nil {
		e.t.Logf("aggsim log tail:\n%s", e.aggsim.tail(60))
	}
}

// adminClient trusts aggsim's CA and presents its admin certificate.
func (e *sampleEnv) adminClient() *http.Client {
	e.t.Helper()
	return e.tlsClient(e.pki(certs.CACertName), e.pki(certs.AdminCertName), e.pki(certs.AdminKeyName))
}

// frontProxyClient talks to the backend directly as aggsim's proxy does:
// it trusts the backend's CA and presents aggsim's front-proxy client
// certificate (CN=front-proxy-client).
func (e *sampleEnv) frontProxyClient() *http.Client {
	e.t.Helper()
	return e.tlsClient(filepath.Join(e.backendDir, certs.CACertName), e.pki(certs.FrontProxyClientCertName), e.pki(certs.FrontProxyClientKeyName))
}

// tlsClient trusts caFile and presents certFile/keyFile unless certFile
// is empty.
func (e *sampleEnv) tlsClient(caFile, certFile, keyFile string) *http.Client {
	e.t.Helper()
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		e.t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		e.t.Fatalf("no certificate in %s", caFile)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			e.t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   cfg,
			ForceAttemptHTTP2: true,
		},
	}
}

// asFrontProxy sends GET path to the backend with the identity headers
// aggsim's proxy sets, and returns the status code and body.
func (e *sampleEnv) asFrontProxy(path, user string, groups ...string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("https://localhost:%d%s", e.backendPort, path), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("X-Remote-User", user)
	for _, g := range groups {
		req.Header.Add("X-Remote-Group", g)
	}
	resp, err := e.frontProxyClient().Do(req)
	if err != nil {
		e.t.Fatalf("GET %s on the backend: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// backendReadyz polls the backend's own /readyz (an always-allowed path)
// until it answers 200 or the deadline passes; it returns the last body.
func (e *sampleEnv) backendReadyz(within time.Duration) (bool, string) {
	e.t.Helper()
	// No client certificate: the backend serves /readyz to
	// system:anonymous (a front-proxy certificate without X-Remote-User
	// would be refused with 401).
	anonymous := e.tlsClient(filepath.Join(e.backendDir, certs.CACertName), "", "")
	deadline := time.Now().Add(within)
	last := ""
	for {
		resp, err := anonymous.Get(fmt.Sprintf("https://localhost:%d/readyz?verbose", e.backendPort))
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = fmt.Sprintf("%d %s", resp.StatusCode, b)
			if resp.StatusCode == http.StatusOK {
				return true, last
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			return false, last
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// sampleWatch is a running `kubectl get -w --output-watch-events`.
type sampleWatch struct {
	t      *testing.T
	events chan string
	seen   []string
}

// watch starts kubectl get <resource> -w printing "EVENT NAME COLOR" lines;
// it is killed at cleanup.
func (e *sampleEnv) watch(resource string, extra ...string) *sampleWatch {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	args := append([]string{"get", resource, "-w", "--output-watch-events", "--no-headers",
		"-o", "custom-columns=EVENT:.type,NAME:.object.metadata.name,COLOR:.object.metadata.labels.color"}, extra...)
	cmd := exec.CommandContext(ctx, e.k.bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.k.kubeconfig, "HOME="+filepath.Dir(e.k.kubeconfig))
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	stderr := &lockedWriter{w: io.Discard}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	w := &sampleWatch{t: e.t, events: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.events <- strings.Join(strings.Fields(sc.Text()), " ")
		}
		close(w.events)
	}()
	e.t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return w
}

// expect waits up to 30s for the line want; it reports an error (and
// returns false) if it does not come.
func (w *sampleWatch) expect(want string) bool {
	w.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-w.events:
			if !ok {
				w.t.Errorf("kubectl watch ended before %q; saw %q", want, w.seen)
				return false
			}
			w.seen = append(w.seen, l)
			if l == want {
				return true
			}
		case <-timeout:
			w.t.Errorf("kubectl watch did not show %q within 30s; saw %q", want, w.seen)
			return false
		}
	}
}

// step runs kubectl and reports (without stopping) when the exit code or
// stdout differ; it returns stdout and stderr.
func (e *sampleEnv) step(wantCode int, wantOut string, args ...string) (string, string) {
	e.t.Helper()
	so, se, code := e.k.run("", args...)
	se = withoutWarnings(se)
	if code != wantCode || (wantOut != "" && so != wantOut) {
		e.t.Errorf("kubectl %s: exit %d, want %d\nstdout %q\nwant   %q\nstderr %s", strings.Join(args, " "), code, wantCode, so, wantOut, se)
	}
	return so, se
}

// withoutWarnings drops the "Warning: ..." lines kubectl prints for the
// backend's Warning headers (the sample marks v1alpha1 Flunder deprecated:
// "wardle.example.com/v1alpha1 Flunder is deprecated in v1.3+, unavailable
// in v1.10+").
func withoutWarnings(stderr string) string {
	var keep []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(l, "Warning: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// refused runs kubectl until it fails with stderr containing want (the
// backend's admission informers may lag a write by a moment), and reports
// an error if that does not happen within 30s.
func (e *sampleEnv) refused(want string, args ...string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		so, se, code := e.k.run("", args...)
		if code != 0 && strings.Contains(se, want) {
			return
		}
		if code == 0 {
			// Accepted: undo it so the next attempt is a create again.
			e.k.run("", "delete", "-f", args[len(args)-1], "--ignore-not-found")
		}
		if time.Now().After(deadline) {
			e.t.Errorf("kubectl %s: exit %d, want a refusal containing %q\nstdout %q\nstderr %s", strings.Join(args, " "), code, want, so, se)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// exercise is the full kubectl session of the issue, run through aggsim.
func (e *sampleEnv) exercise() {
	t := e.t
	flunder, fischer := sampleTestdata("flunder.yaml"), sampleTestdata("fischer.yaml")

	_, se := e.step(0, "", "get", "flunders")
	if se != "No resources found in default namespace.\n" {
		t.Errorf("get flunders on an empty store: stderr %q", se)
	}
	res := e.k.ok("api-resources", "--api-group=wardle.example.com", "--no-headers")
	for _, re := range []string{
		`(?m)^fischers\s+wardle.example.com/v1alpha1\s+false\s+Fischer$`,
		`(?m)^flunders\s+wardle.example.com/v1alpha1\s+true\s+Flunder$`,
	} {
		if !regexp.MustCompile(re).MatchString(res) {
			t.Errorf("api-resources lacks %s:\n%s", re, res)
		}
	}

	w := e.watch("flunders")
	fw := e.watch("fischers")
	e.step(0, "flunder.wardle.example.com/my-flunder created\n", "create", "-f", flunder)
	w.expect("ADDED my-flunder <none>")
	e.step(0, "flunder.wardle.example.com/my-flunder\n", "get", "flunders", "-o", "name")
	e.step(0, "flunder.wardle.example.com/my-flunder labeled\n", "label", "flunder", "my-flunder", "color=blue")
	w.expect("MODIFIED my-flunder blue")
	e.step(0, "flunder.wardle.example.com/my-flunder\n", "get", "flunders", "-l", "color=blue", "-o", "name")
	e.step(0, "", "get", "flunders", "-l", "color=red", "-o", "name")

	// The other version, read through aggsim's proxy with --raw.
	raw := e.k.ok("get", "--raw", "/apis/wardle.example.com/v1beta1/namespaces/default/flunders")
	var list struct {
		APIVersion string `json:"apiVersion"`
		Items      []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(raw), &list); err != nil || list.APIVersion != "wardle.example.com/v1beta1" || len(list.Items) != 1 || list.Items[0].Metadata.Name != "my-flunder" {
		t.Errorf("v1beta1 list: %v %s", err, raw)
	}

	// Cluster-scoped fischers, and BanFlunder.
	e.step(0, "fischer.wardle.example.com/my-fischer created\n", "create", "-f", fischer)
	fw.expect("ADDED my-fischer <none>")
	e.step(0, "fischer.wardle.example.com/my-fischer\n", "get", "fischers", "-o", "name")
	e.refused(`flunders.wardle.example.com "banned-flunder" is forbidden: this name may not be used, please change the resource name`,
		"create", "-f", sampleTestdata("banned-flunder.yaml"))
	// NamespaceLifecycle: the backend asks aggsim for the namespace.
	e.refused(`Error from server (NotFound): error when creating "`+sampleTestdata("flunder-missing-namespace.yaml")+`": namespaces "does-not-exist" not found`,
		"create", "-f", sampleTestdata("flunder-missing-namespace.yaml"))

	// A user outside system:masters: the backend asks aggsim (SAR).
	e.step(0, "flunder.wardle.example.com/my-flunder\n", "get", "flunders", "-o", "name", "--as=bob", "--as-group=devs")
	e.step(0, "fischer.wardle.example.com/my-fischer\n", "get", "fischers", "-o", "name", "--as=bob", "--as-group=devs")
	if code, body := e.asFrontProxy("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", "bob", "devs"); code != http.StatusOK {
		t.Errorf("backend as bob via the front-proxy headers: %d %s", code, body)
	}

	so, se, code := e.k.run("", "delete", "flunder", "my-flunder")
	if code != 0 || !strings.HasPrefix(so, `flunder.wardle.example.com "my-flunder" deleted`) {
		t.Errorf("delete flunder: exit %d %q %s", code, so, se)
	}
	w.expect("DELETED my-flunder blue")
	so, se, code = e.k.run("", "delete", "fischer", "my-fischer")
	if code != 0 || so != "fischer.wardle.example.com \"my-fischer\" deleted\n" {
		t.Errorf("delete fischer: exit %d %q %s", code, so, se)
	}
	fw.expect("DELETED my-fischer <none>")
	_, se = e.step(1, "", "get", "flunder", "my-flunder")
	if se != "Error from server (NotFound): flunders.wardle.example.com \"my-flunder\" not found\n" {
		t.Errorf("get after delete: stderr %q", se)
	}

	// Issue 19: deleting a namespace deletes its flunders in the sample's
	// storage (the namespace controller's deletecollection through the
	// proxy; the sample answers the first one 406, as it cannot encode a
	// FlunderList in protobuf, and the retry succeeds), then the namespace.
	e.step(0, "namespace/nsdel created\n", "create", "namespace", "nsdel")
	e.step(0, "flunder.wardle.example.com/my-flunder created\n", "create", "-f", flunder, "-n", "nsdel")
	start := time.Now()
	e.step(0, "namespace \"nsdel\" deleted\n", "delete", "namespace", "nsdel", "--wait=false")
	gone := false
	for time.Since(start) < 20*time.Second {
		if _, _, code := e.k.run("", "get", "namespace", "nsdel"); code != 0 {
			gone = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !gone {
		t.Errorf("namespace nsdel still there after 20 s:\n%s", e.k.ok("get", "namespace", "nsdel", "-o", "yaml"))
	}
	t.Logf("namespace nsdel (one flunder on the sample-apiserver) gone %v after the delete", time.Since(start).Round(time.Millisecond))
	_, se = e.step(0, "", "get", "flunders", "-n", "nsdel")
	if se != "No resources found in nsdel namespace.\n" {
		t.Errorf("flunders left in nsdel: stderr %q", se)
	}
}

// smoke is the short session run after a restart: create, list as admin
// and as bob, delete.
func (e *sampleEnv) smoke(name string) {
	t := e.t
	f := fmt.Sprintf("apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: %s\n", name)
	so, se, code := e.k.run(f, "create", "-f", "-")
	if want := "flunder.wardle.example.com/" + name + " created\n"; code != 0 || so != want {
		t.Errorf("create %s: exit %d %q %s", name, code, so, se)
	}
	e.step(0, "flunder.wardle.example.com/"+name+"\n", "get", "flunders", name, "-o", "name", "--as=bob", "--as-group=devs")
	e.step(0, "", "delete", "flunder", name)
}

// TestSampleAPIServer runs the scenarios of issue 8 against one etcd.
func TestSampleAPIServer(t *testing.T) {
	tools := sampleToolsFromEnv(t)
	etcdURL := startSampleEtcd(t, tools.etcd, sampleLogDir(t))

	t.Run("AggsimFirst", func(t *testing.T) {
		e := newSampleEnv(t, tools, etcdURL)
		e.startAggsim()
		e.startBackend()
		e.register()
		e.waitAvailable()
		if ok, last := e.backendReadyz(30 * time.Second); !ok {
			t.Errorf("backend /readyz: %s", last)
		}
		e.exercise()
		if n, exits := e.backend.exitCount(); n != 0 {
			t.Errorf("the backend exited %d times: %q", n, exits)
		}
	})

	t.Run("AlwaysDeny", func(t *testing.T) {
		e := newSampleEnv(t, tools, etcdURL, "--authorization-mode", "AlwaysDeny")
		e.startAggsim()
		e.startBackend()
		e.register()
		e.waitAvailable()
		// Admins (system:masters) are never asked about.
		e.step(0, "", "get", "flunders", "-o", "name")
		// bob is refused: by aggsim's own authorizer through kubectl, and
		// by the backend's SubjectAccessReview when it reaches the backend.
		_, se, code := e.k.run("", "get", "flunders", "--as=bob", "--as-group=devs")
		if want := `Error from server (Forbidden): flunders.wardle.example.com is forbidden: User "bob" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"`; code != 1 || !strings.HasPrefix(withoutWarnings(se), want) {
			t.Errorf("kubectl --as=bob with AlwaysDeny: exit %d stderr %q, want prefix %q", code, se, want)
		}
		code, body := e.asFrontProxy("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", "bob", "devs")
		if want := `flunders.wardle.example.com is forbidden: User \"bob\" cannot list resource \"flunders\" in API group \"wardle.example.com\" in the namespace \"default\"`; code != http.StatusForbidden || !strings.Contains(body, want) {
			t.Errorf("backend as bob with AlwaysDeny: %d %s, want 403 containing %s", code, body, want)
		}
	})

	t.Run("RBAC", func(t *testing.T) { sampleRBACScenario(t, tools, etcdURL) }) // sample_apiserver_rbac_e2e_test.go

	t.Run("BackendFirst", func(t *testing.T) {
		e := newSampleEnv(t, tools, etcdURL)
		e.startBackend()
		// Without aggsim the backend cannot read the
		// extension-apiserver-authentication ConfigMap; upstream exits then
		// and its restart policy brings it back. Give it one attempt.
		deadline := time.Now().Add(20 * time.Second)
		for n, _ := e.backend.exitCount(); n == 0 && time.Now().Before(deadline); n, _ = e.backend.exitCount() {
			time.Sleep(100 * time.Millisecond)
		}
		n, exits := e.backend.exitCount()
		t.Logf("before aggsim: the backend exited %d times %q", n, exits)
		e.startAggsim()
		e.register()
		e.waitAvailable()
		if ok, last := e.backendReadyz(60 * time.Second); !ok {
			t.Errorf("backend /readyz: %s", last)
		}
		e.smoke("after-backend-first")
	})

	t.Run("AggsimRestart", func(t *testing.T) {
		e := newSampleEnv(t, tools, etcdURL)
		e.startAggsim()
		e.startBackend()
		e.register()
		e.waitAvailable()
		e.smoke("before-restart")
		e.step(0, "flunder.wardle.example.com/my-flunder created\n", "create", "-f", sampleTestdata("flunder.yaml"))
		e.aggsim.stop()
		e.startAggsim()
		e.waitAvailable()
		if ok, last := e.backendReadyz(60 * time.Second); !ok {
			t.Errorf("backend /readyz after the aggsim restart: %s", last)
		}
		e.step(0, "flunder.wardle.example.com/my-flunder\n", "get", "flunders", "-o", "name")
		e.smoke("after-restart")
		w := e.watch("flunders")
		w.expect("ADDED my-flunder <none>")
		e.step(0, "flunder.wardle.example.com/my-flunder labeled\n", "label", "flunder", "my-flunder", "color=green")
		w.expect("MODIFIED my-flunder green")
		if n, exits := e.backend.exitCount(); n != 0 {
			t.Errorf("the backend exited %d times across the aggsim restart: %q", n, exits)
		}
	})
}
