package main

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idleSettle is how long after its banner an idle `aggsim serve` is
// measured: releaseStartupMemory returns the start-up heap a second after
// ready; five seconds leave the process idle and settled (issue 21 measures
// idle RSS 6 s after the start).
const idleSettle = 5 * time.Second

// BenchmarkServeIdleRSS measures the idle resident set (issue 21's "idle
// RSS" figure, goal ≤ 30 MiB) of `aggsim serve` started on a fresh data
// dir, as a process built from this tree as `make build` builds it
// (CGO_ENABLED=0: a static binary, no libc mapped in): each iteration starts one,
// waits for its banner and idleSettle more, and reads VmRSS, RssAnon
// (heap, stacks, runtime metadata) and RssFile (the pages of the binary
// and libraries mapped in) from /proc/<pid>/status, then the live heap
// (HeapAlloc), the heap's spans in use (HeapInuse: HeapAlloc plus the free
// room in partly used spans) and the goroutine stacks (Stack) from the
// runtime.MemStats that /debug/pprof/heap?debug=1 prints (read after the
// status, with the admin credentials of the kubeconfig it wrote; the
// request itself allocates a little), the number of goroutines
// (/debug/pprof/goroutine?debug=1) and the CPU the process used until
// then (start-up and idleSettle; its threads' /proc schedstat, in ms).
// RssFile depends on the page cache as well as on aggsim: the kernel maps
// the cached pages around each page faulted in, and reading the freshly
// built binary through once (os.ReadFile) before the starts raised it by
// 2.1 MB (24,496 -> 26,612 kB, same binary): compare binaries built and
// cached alike, interleaved.
// Each iteration also starts one with --release-startup-pages=false and
// reports its VmRSS and RssFile as VmRSS-kept and RssFile-kept: the
// binary's pages that start-up mapped, which a server by default drops
// from its page tables a second after ready (internal/codepages).
// The metrics are the medians of the iterations, in kB (goroutines and
// cpu-ms as counted); -benchtime 5x gives the median of 5 starts of each
// (make bench-rss). The time per op is the start plus idleSettle and means
// nothing.
func BenchmarkServeIdleRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	aggsimBinary(b) // built before the timer starts (startServe runs it)
	b.ResetTimer()
	names := []string{"VmRSS", "RssAnon", "RssFile", "HeapAlloc", "HeapInuse", "Stack", "goroutines", "cpu-ms"}
	vals := map[string][]float64{}
	for i := 0; i < b.N; i++ {
		st := idleStatus(b, filepath.Join(b.TempDir(), "data"))
		for _, n := range names {
			vals[n] = append(vals[n], st[n])
		}
		kept := idleStatus(b, filepath.Join(b.TempDir(), "data"), "--release-startup-pages=false")
		for _, n := range keptNames {
			vals[n+"-kept"] = append(vals[n+"-kept"], kept[n])
		}
	}
	for _, n := range keptNames {
		names = append(names, n+"-kept")
	}
	for _, n := range names {
		unit := n + "-kB"
		if n == "goroutines" || n == "cpu-ms" {
			unit = n
		}
		b.ReportMetric(medianOf(vals[n]), unit)
	}
}

// keptNames are the figures BenchmarkServeIdleRSS also reports, with the
// suffix -kept, of a server started with --release-startup-pages=false:
// what start-up left mapped of the binary.
var keptNames = []string{"VmRSS", "RssFile"}

// idleStatus starts `aggsim serve` on dataDir with extra flags (startServe), waits
// idleSettle after its banner, and returns the kB fields of its /proc
// status and its heap figures (heapStats). The process is killed (by its
// PID) before it returns.
func idleStatus(b *testing.B, dataDir string, extra ...string) map[string]float64 {
	b.Helper()
	s := startServe(b, dataDir, extra...)
	defer s.kill()
	time.Sleep(idleSettle)
	cpu, err := childCPU(s.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	st := procStatusKB(b, s.cmd.Process.Pid)
	c := adminClient(b, s.Kubeconfig)
	heap, err := heapStats(c, s.URL)
	if err != nil {
		b.Fatal(err)
	}
	maps.Copy(st, heap)
	if st["goroutines"], err = goroutineCount(c, s.URL); err != nil {
		b.Fatal(err)
	}
	st["cpu-ms"] = cpu
	return st
}

// procStatusKB returns the kB fields of /proc/<pid>/status
// (parseStatusKB), failing tb when it cannot be read or lacks VmRSS,
// RssAnon or RssFile.
func procStatusKB(tb testing.TB, pid int) map[string]float64 {
	tb.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	st, err := parseStatusKB(string(raw))
	if err != nil {
		tb.Fatal(err)
	}
	for _, k := range []string{"VmRSS", "RssAnon", "RssFile"} {
		if _, ok := st[k]; !ok {
			tb.Fatalf("/proc/%d/status has no %s", pid, k)
		}
	}
	return st
}

// childCPU returns the CPU time, in ms, the threads of process pid have
// run so far: the sum of the first field (ns on the CPU) of each
// /proc/<pid>/task/<tid>/schedstat.
func childCPU(pid int) (float64, error) {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for process %d: %v", pid, err)
	}
	var texts []string
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			return 0, err
		}
		texts = append(texts, string(raw))
	}
	return sumSchedstatMS(texts)
}

// sumSchedstatMS adds the first fields (ns) of schedstat texts
// ("123456789 2345 67\n"), in ms.
func sumSchedstatMS(texts []string) (float64, error) {
	var ns float64
	for _, t := range texts {
		f := strings.Fields(t)
		if len(f) != 3 {
			return 0, fmt.Errorf("schedstat %q: want 3 fields", t)
		}
		n, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("schedstat %q: %v", t, err)
		}
		ns += n
	}
	return ns / 1e6, nil
}

// goroutineCount reads the number of goroutines from the first line
// ("goroutine profile: total 75") of url's /debug/pprof/goroutine?debug=1,
// with client c.
func goroutineCount(c *http.Client, url string) (float64, error) {
	body, err := getDebug(c, url, "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, err
	}
	return parseGoroutineTotal(body)
}

// getDebug GETs path from url with client c and returns the body of a 200
// answer; any other status is an error carrying the body.
func getDebug(c *http.Client, url, path string) (string, error) {
	resp, err := c.Get(url + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", path, resp.Status, body)
	}
	return string(body), nil
}

// parseGoroutineTotal returns N of a goroutine profile's first line,
// "goroutine profile: total N".
func parseGoroutineTotal(s string) (float64, error) {
	first, _, _ := strings.Cut(s, "\n")
	n, ok := strings.CutPrefix(first, "goroutine profile: total ")
	if !ok {
		return 0, fmt.Errorf("goroutine profile starts %q", first)
	}
	return strconv.ParseFloat(n, 64)
}

// heapStats reads HeapAlloc, HeapInuse and Stack (in use) from the
// runtime.MemStats lines ("# HeapAlloc = 3867264", "# Stack = 1409024 /
// 1409024") of url's /debug/pprof/heap?debug=1, in kB, with client c.
func heapStats(c *http.Client, url string) (map[string]float64, error) {
	body, err := getDebug(c, url, "/debug/pprof/heap?debug=1")
	if err != nil {
		return nil, err
	}
	return parseMemStats(body)
}

// parseMemStats returns HeapAlloc, HeapInuse and Stack, in kB, from the
// runtime.MemStats comment lines a debug=1 heap profile ends with.
func parseMemStats(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "#" || f[2] != "=" {
			continue
		}
		switch f[1] {
		case "HeapAlloc", "HeapInuse", "Stack":
			n, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", line, err)
			}
			out[f[1]] = n / 1024
		}
	}
	for _, k := range []string{"HeapAlloc", "HeapInuse", "Stack"} {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("heap profile has no %s line", k)
		}
	}
	return out, nil
}

// parseStatusKB returns the fields of a /proc/<pid>/status text whose
// value is a number of kB ("VmRSS:\t  36224 kB").
func parseStatusKB(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		n, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, nil
}

// medianOf returns the median of xs (the mean of the middle two when even),
// or 0 for none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// TestParseStatusKB checks the /proc status fields BenchmarkServeIdleRSS
// reports on a captured status text (cat /proc/<aggsim pid>/status,
// trimmed), and the median it reports.
func TestParseStatusKB(t *testing.T) {
	const status = "Name:\taggsim\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t 1934488 kB\n" +
		"VmRSS:\t   36224 kB\nRssAnon:\t   10872 kB\nRssFile:\t   25352 kB\nRssShmem:\t       0 kB\n" +
		"Threads:\t8\nCpus_allowed_list:\t0-1\n"
	st, err := parseStatusKB(status)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"VmPeak": 1934488, "VmRSS": 36224, "RssAnon": 10872, "RssFile": 25352, "RssShmem": 0}
	if len(st) != len(want) {
		t.Fatalf("parsed %v, want %v", st, want)
	}
	for k, v := range want {
		if st[k] != v {
			t.Fatalf("%s = %v, want %v (parsed %v)", k, st[k], v, st)
		}
	}
	if _, err := parseStatusKB("VmRSS:\t x kB\n"); err == nil {
		t.Fatal("a non-numeric kB field parsed without error")
	}
	// The tail of curl -sk --cert admin.crt --key admin.key
	// https://127.0.0.1:PORT/debug/pprof/heap?debug=1 from aggsim serve.
	const memstats = "# runtime.MemStats\n# Alloc = 3867264\n# Sys = 22649096\n# HeapAlloc = 3867264\n" +
		"# HeapSys = 15368192\n# HeapIdle = 8650752\n# HeapInuse = 6717440\n# Stack = 1409024 / 1409024\n" +
		"# MSpan = 142720 / 163200\n# NumGC = 3\n"
	ms, err := parseMemStats(memstats)
	if err != nil {
		t.Fatal(err)
	}
	if ms["HeapAlloc"] != 3776.625 || ms["HeapInuse"] != 6560 || ms["Stack"] != 1376 || len(ms) != 3 {
		t.Fatalf("parseMemStats = %v, want HeapAlloc 3776.625 HeapInuse 6560 Stack 1376 (kB)", ms)
	}
	if _, err := parseMemStats("# HeapAlloc = 1\n# Stack = 2 / 2\n"); err == nil {
		t.Fatal("a profile without HeapInuse parsed without error")
	}
	// head -1 of curl ... /debug/pprof/goroutine?debug=1 from aggsim serve
	if n, err := parseGoroutineTotal("goroutine profile: total 75\n29 @ 0x48dd2e 0x469e65\n"); err != nil || n != 75 {
		t.Fatalf("parseGoroutineTotal = %v, %v; want 75", n, err)
	}
	if _, err := parseGoroutineTotal("404 page not found\n"); err == nil {
		t.Fatal("a body that is no goroutine profile parsed without error")
	}
	// cat /proc/<aggsim pid>/task/*/schedstat (two of its threads)
	if ms, err := sumSchedstatMS([]string{"45731228 3456192 161\n", "6268772 1032714 39\n"}); err != nil || ms != 52 {
		t.Fatalf("sumSchedstatMS = %v, %v; want 52", ms, err)
	}
	if _, err := sumSchedstatMS([]string{"x 1 2\n"}); err == nil {
		t.Fatal("a non-numeric schedstat parsed without error")
	}
	if got := medianOf([]float64{36904, 35912, 37572, 36876, 37220}); got != 36904 {
		t.Fatalf("median of 5 = %v, want 36904", got)
	}
	if got := medianOf([]float64{3, 1, 4, 2}); got != 2.5 {
		t.Fatalf("median of 4 = %v, want 2.5", got)
	}
}
