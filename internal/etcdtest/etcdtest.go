package etcdtest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary returns the etcd binary to run: $ETCD_BIN, else "etcd" on PATH,
// else /usr/bin/etcd; "" when none exists.
func Binary() string {
	if b := os.Getenv("ETCD_BIN"); b != "" {
		return b
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd"
	}
	return ""
}

// Server is one running etcd member.
type Server struct {
	t         testing.TB
	bin       string
	dataDir   string
	client    string
	peer      string
	logPath   string
	cmd       *exec.Cmd
	exited    chan struct{}
	extraArgs []string
}

// Start runs etcd with a fresh data directory on two free loopback ports
// and waits (at most 30 s) until /health answers true. It skips the test
// with a message naming the package to install when no etcd binary exists.
// The process is killed by t.Cleanup.
func Start(t testing.TB, extraArgs ...string) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("etcd binary not found (set ETCD_BIN or install Debian's etcd-server: apt-get install etcd-server)")
	}
	s := &Server{t: t, bin: bin, dataDir: filepath.Join(t.TempDir(), "etcd"), extraArgs: extraArgs}
	s.logPath = filepath.Join(t.TempDir(), "etcd.log")
	t.Cleanup(func() { s.Kill() })
	// A port that was free a moment ago may be taken before etcd binds
	// it (by another test's listener or an outgoing connection's local
	// port): etcd then exits with "address already in use", and Start
	// tries again on two other ports (startAttempts in all). Seen once in
	// 10 runs of registry/storage's -race tests with other test binaries
	// running (TestEtcdListAt).
	for attempt := 1; ; attempt++ {
		s.client = fmt.Sprintf("http://127.0.0.1:%d", pickPort(t))
		s.peer = fmt.Sprintf("http://127.0.0.1:%d", pickPort(t))
		if s.start(attempt < startAttempts) {
			return s
		}
		t.Logf("etcd could not bind %s or %s (attempt %d): trying two other ports", s.client, s.peer, attempt)
		if err := os.RemoveAll(s.dataDir); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(s.logPath, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// healthClient asks etcd's /health; its timeout bounds a request to a
// port some other process holds and does not answer on.
var healthClient = &http.Client{Timeout: 2 * time.Second}

// startAttempts bounds how often Start picks new ports after etcd found
// one taken.
const startAttempts = 5

// URL is the client URL (http://127.0.0.1:<port>).
func (s *Server) URL() string { return s.client }

// Log returns the last n lines of etcd's log.
func (s *Server) Log(n int) string {
	b, _ := os.ReadFile(s.logPath)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// start runs etcd and waits until it is healthy (true). With retryBind,
// an etcd that exits because a port is taken returns false instead of
// failing the test.
func (s *Server) start(retryBind bool) bool {
	s.t.Helper()
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	args := append([]string{
		"--name", "t", "--data-dir", s.dataDir,
		"--listen-client-urls", s.client, "--advertise-client-urls", s.client,
		"--listen-peer-urls", s.peer, "--initial-advertise-peer-urls", s.peer,
		"--initial-cluster", "t=" + s.peer, "--log-level", "warn", "--logger", "zap",
		"--heartbeat-interval", "20", "--election-timeout", "200",
	}, s.extraArgs...)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		s.t.Fatalf("start etcd: %v", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(s.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := healthClient.Get(s.client + "/health")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(b), `"health":"true"`) {
				return true
			}
		}
		select {
		case <-s.exited:
			s.cmd = nil
			if log := s.Log(20); retryBind && strings.Contains(log, "address already in use") {
				return false
			}
			s.t.Fatalf("etcd exited: %s", s.Log(20))
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("etcd not healthy within 30s: %v\n%s", err, s.Log(20))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops etcd with SIGKILL and waits for it to exit. Killing a stopped
// server does nothing.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// Restart kills etcd and starts it again on the same ports and data.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.start(false)
}

// pickPort chooses Start's ports: freePort (a test replaces it).
var pickPort = freePort

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
