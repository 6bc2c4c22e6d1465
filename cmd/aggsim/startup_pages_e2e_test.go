package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

var releasedPagesLog = regexp.MustCompile(`msg="released start-up pages of the executable" mappings=(\d+) released_kB=(\d+) kept_kB=(\d+)`)

// TestServeReleasesStartupPages starts `aggsim serve` (the binary make
// build builds) and waits for it to log, a second after ready, that it
// dropped its binary's start-up pages from its page tables
// (internal/codepages, issue 21): text and read-only data, megabytes of
// them, nothing kept; the process then has fewer of its file's pages mapped
// than it released, and serves as before.
func TestServeReleasesStartupPages(t *testing.T) {
	if _, err := os.Stat("/proc/self/pagemap"); err != nil {
		t.Skip("needs /proc/self/pagemap")
	}
	s := startServe(t, filepath.Join(t.TempDir(), "data"), "--log-level", "debug")
	var m []string
	for i := 0; i < 200 && m == nil; i++ { // 10 s
		time.Sleep(50 * time.Millisecond)
		m = releasedPagesLog.FindStringSubmatch(s.stderrText())
	}
	if m == nil {
		t.Fatalf("no release logged within 10 s of ready; stderr:\n%s", tail(s.stderrText(), 4000))
	}
	mappings, _ := strconv.Atoi(m[1])
	released, _ := strconv.Atoi(m[2])
	kept, _ := strconv.Atoi(m[3])
	if mappings < 2 || released < 4096 || kept != 0 {
		t.Fatalf("logged mappings=%d released_kB=%d kept_kB=%d; want text and read-only data, several MB, nothing kept", mappings, released, kept)
	}
	st := procStatusKB(t, s.cmd.Process.Pid)
	if st["RssFile"] >= float64(released) {
		t.Errorf("RssFile %v kB after releasing %d kB: the release left them mapped", st["RssFile"], released)
	}
	resp, err := adminClient(t, s.Kubeconfig).Get(s.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("/readyz after the release: %d %q", resp.StatusCode, body)
	}
}

// TestServeKeepsStartupPagesWhenAsked checks --release-startup-pages=false:
// no release is logged two seconds after ready (it comes one second after
// ready when on).
func TestServeKeepsStartupPagesWhenAsked(t *testing.T) {
	s := startServe(t, filepath.Join(t.TempDir(), "data"), "--log-level", "debug", "--release-startup-pages=false")
	time.Sleep(2 * time.Second)
	if l := releasedPagesLog.FindString(s.stderrText()); l != "" {
		t.Fatalf("--release-startup-pages=false logged %q", l)
	}
}
