package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aggsim/aggsim/certs"
	"golang.org/x/net/http2"
)

// benchGroup and the names below are what floorbench registers in aggsim.
const (
	benchGroup     = "perf.example.com"
	benchService   = "perf-api"
	benchNamespace = "default"
	objectPath     = "/apis/" + benchGroup + "/v1/namespaces/default/flunders/fl-1"
)

// object is the 246-byte JSON object the backend answers, the size of the
// reference measurements' object (../shared/testdata/kube-1.33/PERF.md).
var object = func() []byte {
	head := `{"kind":"Flunder","apiVersion":"perf.example.com/v1","metadata":{"name":"fl-1","namespace":"default"},"spec":{"reference":"`
	tail := `"},"status":{}}`
	return []byte(head + strings.Repeat("x", 246-len(head)-len(tail)) + tail)
}()

func main() {
	log.SetFlags(0)
	role := flag.String("role", "", "internal: run as a server (backend, reverseproxy or static) until stdin closes")
	rounds := flag.Int("rounds", 5, "rounds of the load legs (each round runs every leg once)")
	dur := flag.Duration("d", 2*time.Second, "duration of one leg in one round (at most 20s)")
	conc := flag.Int("c", 8, "concurrent workers per leg, multiplexed on one HTTP/2 connection")
	startup := flag.Int("startup", 10, "start-up runs of each kind (fresh and existing data dir); 0 skips")
	load := flag.Bool("load", true, "run the load legs")
	aggsimBin := flag.String("aggsim", "", "aggsim binary to measure (default: go build ./cmd/aggsim)")
	baseline := flag.String("baseline", "", "another aggsim binary: measure only start-up, of it and of -aggsim, interleaved (startcompare.go)")
	profile := flag.String("profile", "", "write CPU profiles of aggsim during round 1's aggsim legs to <profile>-apis.pprof and <profile>-proxy.pprof (through its /debug/pprof)")
	verbose := flag.Bool("v", false, "print the end of aggsim's log after the load legs")
	var sel loadSelection
	flag.StringVar(&sel.legs, "legs", "", "run only the load legs whose name matches this regexp")
	flag.StringVar(&sel.compare, "compare", "", "another aggsim binary: also run its /apis and proxied GET legs (\"... -compare\"), interleaved with the others")
	var rf roleFlags
	rf.register()
	flag.Parse()
	if *role != "" {
		if err := runRole(*role, rf); err != nil {
			log.Fatalf("floorbench -role %s: %v", *role, err)
		}
		return
	}
	if *dur > 20*time.Second {
		*dur = 20 * time.Second
	}
	if *rounds < 1 || *rounds > 50 || *conc < 1 || *conc > 256 || *startup < 0 || *startup > 200 {
		log.Fatal("floorbench: -rounds 1..50, -c 1..256, -startup 0..200")
	}
	work, err := os.MkdirTemp("", "floorbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	bin := *aggsimBin
	if bin == "" {
		bin = filepath.Join(work, "aggsim")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/aggsim")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("go build ./cmd/aggsim (run floorbench from the module root): %v", err)
		}
	}
	fmt.Printf("floorbench: %s, %d CPUs, %s\n", time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), runtime.Version())
	if *baseline != "" {
		if err := measureStartupCompare([]string{*baseline, bin}, work, max(*startup, 1)); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *startup > 0 {
		if err := measureStartup(bin, work, *startup); err != nil {
			log.Fatal(err)
		}
	}
	if *load {
		if err := measureLoad(bin, work, *rounds, *dur, *conc, *verbose, *profile, sel); err != nil {
			log.Fatal(err)
		}
	}
}

// child is a server process floorbench started; it stops when its stdin
// closes (roles) or on SIGTERM (aggsim).
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr lockedBuffer // printed when the child fails to start
}

// lockedBuffer is a bytes.Buffer safe for the exec package's copier and a
// reader.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startChild runs name args and returns it with its stdout lines.
func startChild(name string, args ...string) (*child, error) {
	cmd := exec.Command(name, args...)
	c := &child{cmd: cmd, lines: make(chan string, 64)}
	cmd.Stderr = &c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.stdin = stdin
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case c.lines <- sc.Text():
			default: // nobody reads: drop
			}
		}
		close(c.lines)
	}()
	return c, nil
}

// waitLine returns the first submatch of re in the child's output.
func (c *child) waitLine(re *regexp.Regexp, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return "", fmt.Errorf("%s exited before printing %q; its stderr:\n%s", c.cmd.Path, re, c.stderr.String())
			}
			if m := re.FindStringSubmatch(l); m != nil {
				return m[1], nil
			}
		case <-t.C:
			return "", fmt.Errorf("%s printed no %q in %s; its stderr:\n%s", c.cmd.Path, re, timeout, c.stderr.String())
		}
	}
}

// stop ends the child (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (c *child) stop() {
	c.stdin.Close()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

var (
	servingRe   = regexp.MustCompile(`serving on (https://\S+)`)
	listeningRe = regexp.MustCompile(`^listening on (\S+)$`)
)

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// pkiFile is the path of a file aggsim wrote into <dataDir>/pki.
func pkiFile(dataDir, name string) string { return filepath.Join(dataDir, "pki", name) }

// tlsClient returns a client presenting cert/key and trusting ca; h2 selects
// one multiplexed HTTP/2 connection, otherwise HTTP/1.1 keep-alive.
func tlsClient(certPEM, keyPEM, caPEM []byte, serverName string, h2 bool) (*http.Client, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("no CA certificate in PEM")
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, ServerName: serverName}
	if h2 {
		return &http.Client{Transport: &http2.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}, nil
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 10 * time.Second}, nil
}

// readFiles reads every path.
func readFiles(paths ...string) ([][]byte, error) {
	out := make([][]byte, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// adminClient is a client of aggsim's admin (the kubeconfig's pair).
func adminClient(dataDir string, h2 bool) (*http.Client, error) {
	f, err := readFiles(pkiFile(dataDir, certs.AdminCertName), pkiFile(dataDir, certs.AdminKeyName), pkiFile(dataDir, certs.CACertName))
	if err != nil {
		return nil, err
	}
	return tlsClient(f[0], f[1], f[2], "", h2)
}

// do sends method url with body and returns the code and answer.
func do(c *http.Client, method, url, accept string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// median returns the median of xs (the lower middle for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// register creates the Service, Endpoints and APIService that route
// benchGroup/v1 to the backend on 127.0.0.1:port, verified with caBundle.
func register(c *http.Client, aggsimURL string, port int, caBundle []byte) error {
	objs := []struct{ path, body string }{
		{"/api/v1/namespaces/default/services", fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q},"spec":{"ports":[{"name":"https","port":443,"targetPort":%d}]}}`, benchService, port)},
		{"/api/v1/namespaces/default/endpoints", fmt.Sprintf(`{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":%q},"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"name":"https","port":%d}]}]}`, benchService, port)},
		{"/apis/apiregistration.k8s.io/v1/apiservices", fmt.Sprintf(`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.%s"},"spec":{"group":%q,"version":"v1","service":{"namespace":%q,"name":%q,"port":443},"caBundle":%q,"groupPriorityMinimum":1000,"versionPriority":15}}`,
			benchGroup, benchGroup, benchNamespace, benchService, base64.StdEncoding.EncodeToString(caBundle))},
	}
	for _, o := range objs {
		code, b, err := do(c, http.MethodPost, aggsimURL+o.path, "", []byte(o.body))
		if err != nil {
			return err
		}
		if code != http.StatusCreated {
			return fmt.Errorf("POST %s: %d %s", o.path, code, b)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, b, err := do(c, http.MethodGet, aggsimURL+objectPath, "application/json", nil)
		if err == nil && code == http.StatusOK && bytes.Equal(b, object) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("GET %s through aggsim: %d %s %v", objectPath, code, b, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// servers is what measureLoad started.
type servers struct {
	mu       sync.Mutex
	children []*child
}

func (s *servers) add(c *child) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.children = append(s.children, c)
}

func (s *servers) stop() {
	for _, c := range s.children {
		c.stop()
	}
}

// startRole runs this program as role with args and returns its address.
func (s *servers) startRole(role string, args ...string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	c, err := startChild(self, append([]string{"-role", role}, args...)...)
	if err != nil {
		return "", err
	}
	s.add(c)
	return c.waitLine(listeningRe, 10*time.Second)
}
