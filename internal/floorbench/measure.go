package main

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/certs"
)

// readyInRe is the duration aggsim reports in its banner.
var readyInRe = regexp.MustCompile(`^ready in (\S+)$`)

// startupRun is one measured start of aggsim.
type startupRun struct {
	readyz   time.Duration // exec → first 200 from /readyz
	reported time.Duration // the banner's "ready in"
}

// startOnce runs aggsim serve on dataDir until /readyz answers 200 and
// stops it. The poller waits for the admin certificate aggsim writes (the
// data dir may be fresh), then asks /readyz every 200 µs.
func startOnce(bin, dataDir string) (startupRun, error) {
	port, err := freePort()
	if err != nil {
		return startupRun{}, err
	}
	url := "https://127.0.0.1:" + strconv.Itoa(port) + "/readyz"
	start := time.Now()
	c, err := startChild(bin, "serve", "--data-dir", dataDir, "--secure-port", strconv.Itoa(port), "--bind-address", "127.0.0.1")
	if err != nil {
		return startupRun{}, err
	}
	defer c.stop()
	var client *http.Client
	deadline := start.Add(10 * time.Second)
	var run startupRun
	for run.readyz == 0 {
		if time.Now().After(deadline) {
			return run, fmt.Errorf("aggsim on %s not ready in 10s", dataDir)
		}
		if client == nil {
			// Files appear by rename, whole; a pair's key is written
			// before its certificate.
			if _, err := os.Stat(pkiFile(dataDir, certs.AdminCertName)); err == nil {
				if client, err = adminClient(dataDir, false); err != nil {
					client = nil
				}
			}
		}
		if client != nil {
			if resp, err := client.Get(url); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					run.readyz = time.Since(start)
					break
				}
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	if s, err := c.waitLine(readyInRe, 5*time.Second); err == nil {
		run.reported, _ = time.ParseDuration(s)
	}
	client.CloseIdleConnections()
	return run, nil
}

// measureStartup starts aggsim n times on a fresh data dir and n times on
// an existing one, alternating, and prints the medians.
func measureStartup(bin, work string, n int) error {
	existing := filepath.Join(work, "startup-existing")
	if _, err := startOnce(bin, existing); err != nil { // creates it
		return err
	}
	var fresh, again []startupRun
	for i := 0; i < n; i++ {
		dir := filepath.Join(work, fmt.Sprintf("startup-fresh-%d", i))
		order := []bool{true, false}
		if i%2 == 1 {
			order = []bool{false, true}
		}
		for _, isFresh := range order {
			if isFresh {
				r, err := startOnce(bin, dir)
				if err != nil {
					return err
				}
				fresh = append(fresh, r)
				_ = os.RemoveAll(dir)
			} else {
				r, err := startOnce(bin, existing)
				if err != nil {
					return err
				}
				again = append(again, r)
			}
		}
	}
	ms := func(runs []startupRun, f func(startupRun) time.Duration) (float64, []float64) {
		var xs []float64
		for _, r := range runs {
			xs = append(xs, float64(f(r).Microseconds())/1000)
		}
		return median(xs), xs
	}
	fmt.Printf("\nstart-up of aggsim serve (%d runs each, alternating), exec → first 200 from /readyz:\n", n)
	for _, k := range []struct {
		name string
		runs []startupRun
	}{{"fresh data dir (PKI generated)", fresh}, {"existing data dir", again}} {
		m, xs := ms(k.runs, func(r startupRun) time.Duration { return r.readyz })
		rep, _ := ms(k.runs, func(r startupRun) time.Duration { return r.reported })
		slices.Sort(xs)
		fmt.Printf("  %-31s median %6.1f ms  (min %.1f, max %.1f; banner's \"ready in\" median %.1f ms)\n", k.name, m, xs[0], xs[len(xs)-1], rep)
	}
	return nil
}

// leg is one measured target of the load rounds.
type leg struct {
	name   string
	client *http.Client
	url    string
	want   int    // expected body length
	server *child // the process that answers (CPU accounting)
	rps    []float64
	p50    []float64
	p99    []float64
	// cpu is the CPU time per request, in µs, of the answering process,
	// the backend (proxied legs) and this load generator, per round.
	cpu [3][]float64
}

// runLeg sends GETs from conc workers for d and records the leg's
// throughput and latency percentiles; any answer other than 200 with the
// expected length fails the run.
func runLeg(l *leg, conc int, d time.Duration, record bool) error {
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest(http.MethodGet, l.url, nil)
				req.Header.Set("Accept", "application/json")
				t := time.Now()
				resp, err := l.client.Do(req)
				if err == nil {
					var n int64
					n, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && (resp.StatusCode != http.StatusOK || int(n) != l.want) {
						err = fmt.Errorf("%s: %d with %d bytes (want 200 with %d)", l.url, resp.StatusCode, n, l.want)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return fmt.Errorf("%s: %w", l.name, firstErr)
	}
	if record && len(lat) > 0 {
		slices.Sort(lat)
		pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000 }
		l.rps = append(l.rps, float64(len(lat))/elapsed.Seconds())
		l.p50 = append(l.p50, pct(0.5))
		l.p99 = append(l.p99, pct(0.99))
	}
	return nil
}

// measureLoad starts aggsim, the backend and both floors, runs the legs
// interleaved for rounds rounds and prints medians and ratios.
func measureLoad(bin, work string, rounds int, d time.Duration, conc int, verbose bool, profile string, sel loadSelection) error {
	var s servers
	defer s.stop()
	dataDir := filepath.Join(work, "load")
	agg, err := startChild(bin, "serve", "--data-dir", dataDir, "--secure-port", "0", "--bind-address", "127.0.0.1")
	if err != nil {
		return err
	}
	s.add(agg)
	if verbose {
		defer func() {
			log := agg.stderr.String()
			if len(log) > 4000 {
				log = log[len(log)-4000:]
			}
			fmt.Printf("\naggsim's log (end):\n%s\n", log)
		}()
	}
	aggURL, err := agg.waitLine(servingRe, 30*time.Second)
	if err != nil {
		return err
	}
	admin, err := adminClient(dataDir, true)
	if err != nil {
		return err
	}
	var old *aggsimUnderTest
	if sel.compare != "" {
		if old, err = startAggsim(&s, sel.compare, filepath.Join(work, "load-compare")); err != nil {
			return err
		}
	}

	// The backend: its own CA and serving pair for perf-api.default.svc,
	// requiring aggsim's front-proxy client certificate.
	be, err := certs.IssueBackend(certs.BackendOptions{Service: benchService, Namespace: benchNamespace})
	if err != nil {
		return err
	}
	beDir := filepath.Join(work, "backend")
	if _, err := be.WriteDir(beDir); err != nil {
		return err
	}
	beCA := filepath.Join(beDir, "backend-ca.crt")
	if err := os.WriteFile(beCA, be.CA.CertPEM, 0o600); err != nil {
		return err
	}
	frontProxyCA := pkiFile(dataDir, certs.FrontProxyCACertName)
	if old != nil {
		// The backend trusts both aggsims' front-proxy CAs.
		if frontProxyCA, err = concatFiles(filepath.Join(work, "front-proxy-cas.crt"), frontProxyCA, pkiFile(old.dataDir, certs.FrontProxyCACertName)); err != nil {
			return err
		}
	}
	beAddr, err := s.startRole("backend", "-cert", filepath.Join(beDir, certs.BackendCertName), "-key", filepath.Join(beDir, certs.BackendKeyName),
		"-client-ca", frontProxyCA, "-require-cn", certs.FrontProxyClientCN)
	if err != nil {
		return err
	}
	_, portStr, _ := net.SplitHostPort(beAddr)
	bePort, _ := strconv.Atoi(portStr)
	if err := register(admin, aggURL, bePort, be.CA.CertPEM); err != nil {
		return err
	}
	if old != nil {
		if err := register(old.admin, old.url, bePort, be.CA.CertPEM); err != nil {
			return err
		}
	}

	// The static server answers aggsim's own /apis bytes.
	code, apis, err := do(admin, http.MethodGet, aggURL+"/apis", "application/json", nil)
	if err != nil || code != http.StatusOK {
		return fmt.Errorf("GET /apis from aggsim: %d %v", code, err)
	}
	apisFile := filepath.Join(work, "apis.json")
	if err := os.WriteFile(apisFile, apis, 0o600); err != nil {
		return err
	}
	serving := []string{"-cert", pkiFile(dataDir, certs.ServingCertName), "-key", pkiFile(dataDir, certs.ServingKeyName),
		"-client-ca", pkiFile(dataDir, certs.CACertName)}
	staticAddr, err := s.startRole("static", append(serving, "-body", apisFile)...)
	if err != nil {
		return err
	}
	proxyAddr, err := s.startRole("reverseproxy", append(serving,
		"-backend", "https://"+beAddr, "-backend-ca", beCA, "-backend-server-name", be.ServerName,
		"-proxy-cert", pkiFile(dataDir, certs.FrontProxyClientCertName), "-proxy-key", pkiFile(dataDir, certs.FrontProxyClientKeyName))...)
	if err != nil {
		return err
	}
	var sameProf []string
	if profile != "" {
		sameProf = []string{"-role-cpuprofile", profile + "-bare-fresh.pprof"}
	}
	sameAddr, err := s.startRole("reverseproxy", append(append(sameProf, serving...),
		"-backend", "https://"+beAddr, "-backend-ca", beCA, "-backend-server-name", be.ServerName, "-same-headers",
		"-proxy-cert", pkiFile(dataDir, certs.FrontProxyClientCertName), "-proxy-key", pkiFile(dataDir, certs.FrontProxyClientKeyName))...)
	if err != nil {
		return err
	}
	staticSameAddr, err := s.startRole("static", append(serving, "-body", apisFile, "-same-headers")...)
	if err != nil {
		return err
	}
	// The bare proxy with aggsim's headers: Audit-Id const, const-backend,
	// const-client; lower-case names; no field indexed towards the backend.
	var idAddrs [5]string
	for i, mode := range []string{"const", "const-backend", "const-client", "fresh", "fresh"} {
		var prof []string
		if profile != "" {
			prof = []string{"-role-cpuprofile", profile + "-bare-" + mode + [...]string{"", "", "", "-lower", "-noindex"}[i] + ".pprof"}
		}
		switch i {
		case 3:
			prof = append(prof, "-lower-names")
		case 4:
			prof = append(prof, "-encoder-table", "1")
		}
		if idAddrs[i], err = s.startRole("reverseproxy", append(append(prof, serving...),
			"-backend", "https://"+beAddr, "-backend-ca", beCA, "-backend-server-name", be.ServerName, "-same-headers", "-audit-id", mode,
			"-proxy-cert", pkiFile(dataDir, certs.FrontProxyClientCertName), "-proxy-key", pkiFile(dataDir, certs.FrontProxyClientKeyName))...); err != nil {
			return err
		}
	}

	// One HTTP/2 connection per leg.
	h2Admin := func() (*http.Client, error) { return adminClient(dataDir, true) }
	f, err := readFiles(pkiFile(dataDir, certs.FrontProxyClientCertName), pkiFile(dataDir, certs.FrontProxyClientKeyName))
	if err != nil {
		return err
	}
	direct, err := tlsClient(f[0], f[1], be.CA.CertPEM, be.ServerName, true)
	if err != nil {
		return err
	}
	n0 := 1 // the children after aggsim (and the -compare aggsim)
	if old != nil {
		n0 = 2
	}
	beProc, staticProc, proxyProc, sameProc, staticSameProc := s.children[n0], s.children[n0+1], s.children[n0+2], s.children[n0+3], s.children[n0+4]
	idProcs := s.children[n0+5 : n0+10]
	legs := []*leg{
		{name: "/apis static server", url: "https://" + staticAddr + "/apis", want: len(apis), server: staticProc},
		{name: "/apis aggsim", url: aggURL + "/apis", want: len(apis), server: agg},
		{name: "GET bare ReverseProxy", url: "https://" + proxyAddr + objectPath, want: len(object), server: proxyProc},
		{name: "GET aggsim proxy", url: aggURL + objectPath, want: len(object), server: agg},
		{name: "GET backend direct", url: "https://" + beAddr + objectPath, client: direct, want: len(object), server: beProc},
		// Not a floor: the bare proxy sending aggsim's (upstream's)
		// headers, to show what they cost the three processes.
		{name: "GET proxy+aggsim hdrs", url: "https://" + sameAddr + objectPath, want: len(object), server: sameProc},
		// Not a floor either: the static server answering /apis with the
		// headers aggsim (and upstream) adds, a new Audit-Id and
		// Cache-Control, to show what they cost it and the load generator.
		{name: "/apis static+aggsim hdrs", url: "https://" + staticSameAddr + "/apis", want: len(apis), server: staticSameProc},
		// Not floors: the proxy+aggsim hdrs leg with one constant
		// Audit-Id to the backend and the client, to the backend only, to
		// the client only, to show what a new HPACK literal (and
		// dynamic-table entry, evicting the constant fields' entries
		// every ~50 requests) per request costs the three processes.
		{name: "GET proxy+hdrs const id", url: "https://" + idAddrs[0] + objectPath, want: len(object), server: idProcs[0]},
		{name: "GET proxy+hdrs const be", url: "https://" + idAddrs[1] + objectPath, want: len(object), server: idProcs[1]},
		{name: "GET proxy+hdrs const cl", url: "https://" + idAddrs[2] + objectPath, want: len(object), server: idProcs[2]},
		// Not a floor: the proxy+aggsim hdrs leg sending lower-case field
		// names, which the HTTP/2 transport then need not lower-case.
		{name: "GET proxy+hdrs lower", url: "https://" + idAddrs[3] + objectPath, want: len(object), server: idProcs[3]},
		// Not a floor: the proxy+aggsim hdrs leg whose HPACK encoder
		// towards the backend indexes nothing (a table limit of 1 byte):
		// every field a literal, no table to churn.
		{name: "GET proxy+hdrs noindex", url: "https://" + idAddrs[4] + objectPath, want: len(object), server: idProcs[4]},
	}
	if old != nil {
		legs = append(legs,
			&leg{name: "/apis aggsim -compare", url: old.url + "/apis", want: len(apis), server: old.proc, client: old.admin},
			&leg{name: "GET aggsim -compare", url: old.url + objectPath, want: len(object), server: old.proc, client: old.admin})
	}
	if legs, err = sel.filter(legs); err != nil {
		return err
	}
	for _, l := range legs {
		if l.client == nil {
			if l.client, err = h2Admin(); err != nil {
				return err
			}
		}
	}
	fmt.Printf("\nload: %d rounds of %s per leg, %d workers on one HTTP/2 connection per leg, legs interleaved\n", rounds, d, conc)
	for _, l := range legs { // warm-up: connections, caches
		if err := runLeg(l, conc, d/4, false); err != nil {
			return err
		}
	}
	for r := 0; r < rounds; r++ {
		order := slices.Clone(legs)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, l := range order {
			var prof chan error
			if profile != "" && r == 0 && strings.HasSuffix(l.name, " aggsim") || profile != "" && r == 0 && l.name == "GET aggsim proxy" {
				prof = make(chan error, 1)
				file := profile + "-apis.pprof"
				if l.name == "GET aggsim proxy" {
					file = profile + "-proxy.pprof"
				}
				go func() { prof <- fetchProfile(admin, aggURL, d, file) }()
			}
			before := [3]time.Duration{cpuTime(l.server), cpuTime(beProc), cpuTime(nil)}
			n := len(l.rps)
			if err := runLeg(l, conc, d, true); err != nil {
				return err
			}
			if len(l.rps) > n {
				reqs := l.rps[n] * d.Seconds()
				for i, c := range []*child{l.server, beProc, nil} {
					l.cpu[i] = append(l.cpu[i], float64((cpuTime(c)-before[i]).Microseconds())/reqs)
				}
			}
			if prof != nil {
				if err := <-prof; err != nil {
					return err
				}
			}
		}
		fmt.Printf("  round %d:", r+1)
		for _, l := range legs {
			fmt.Printf(" %.0f", l.rps[r])
		}
		fmt.Println(" rps")
	}
	fmt.Printf("\n  %-22s %10s %9s %9s   %s\n", "leg", "median rps", "p50 ms", "p99 ms", "rps per round")
	for _, l := range legs {
		fmt.Printf("  %-22s %10.0f %9.2f %9.2f   %v\n", l.name, median(l.rps), median(l.p50), median(l.p99), rounded(l.rps))
	}
	fmt.Printf("\n  CPU per request (µs, median of rounds; /proc, 10 ms ticks): %-8s %-8s %-8s\n", "server", "backend", "loadgen")
	for _, l := range legs {
		fmt.Printf("  %-22s %39.0f %8.0f %8.0f\n", l.name, median(l.cpu[0]), median(l.cpu[1]), median(l.cpu[2]))
	}
	printRatios(legs, rounds)
	if hwm, rss := memoryOf(agg); hwm != "" {
		fmt.Printf("\n  aggsim memory after the load legs: peak RSS (VmHWM) %s, RSS %s\n", hwm, rss)
	}
	return nil
}

// memoryOf returns the peak and current resident set size of c's process
// as /proc/<pid>/status states them ("12345 kB"), or "" when unreadable.
func memoryOf(c *child) (hwm, rss string) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		return "", ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		switch {
		case !ok:
		case k == "VmHWM":
			hwm = strings.TrimSpace(v)
		case k == "VmRSS":
			rss = strings.TrimSpace(v)
		}
	}
	return hwm, rss
}

// totalCPU is a leg's CPU time per request, in µs, of every process it
// runs on: the answering server, the backend (0 on the /apis legs) and
// the load generator (medians of the rounds).
func (l *leg) totalCPU() float64 {
	return median(l.cpu[0]) + median(l.cpu[1]) + median(l.cpu[2])
}

// printRatios prints the rps and CPU ratios of aggsim to the floors, of
// the pairs whose both legs ran.
func printRatios(legs []*leg, rounds int) {
	byName := map[string]*leg{}
	for _, l := range legs {
		byName[l.name] = l
	}
	ratio := func(a, b *leg) float64 { return median(a.rps) / median(b.rps) }
	apisA, apisF := byName["/apis aggsim"], byName["/apis static server"]
	proxA, proxF := byName["GET aggsim proxy"], byName["GET bare ReverseProxy"]
	if apisA != nil && apisF != nil {
		fmt.Printf("\n  /apis:   aggsim / static server   = %.2f×  (goal ≥ 0.90×)\n", ratio(apisA, apisF))
	}
	if proxA != nil && proxF != nil {
		fmt.Printf("  proxied: aggsim / bare ReverseProxy = %.2f×  (goal ≥ 1.00×)\n", ratio(proxA, proxF))
		perRound := make([]float64, rounds)
		for r := range perRound {
			perRound[r] = proxA.rps[r] / proxF.rps[r]
		}
		fmt.Printf("  proxied ratio per round: %v\n", roundedRatio(perRound))
		fmt.Printf("  proxied, CPU of the proxy's own process per request: aggsim / bare ReverseProxy = %.2f×\n", median(proxA.cpu[0])/median(proxF.cpu[0]))
	}
	if same := byName["GET proxy+aggsim hdrs"]; proxA != nil && same != nil {
		// The floor doing what aggsim must: kube-apiserver's headers both ways.
		fmt.Printf("  proxied, the same headers: aggsim / bare ReverseProxy sending them = %.2f×  (no goal)\n", ratio(proxA, same))
	}
	for _, p := range [][2]*leg{{apisA, byName["/apis aggsim -compare"]}, {proxA, byName["GET aggsim -compare"]}} {
		if p[0] != nil && p[1] != nil {
			printCompare(p[0], p[1])
		}
	}
	fmt.Printf("\n  CPU per request of all processes (server + backend + loadgen, µs), floor / aggsim:\n")
	for _, p := range [][2]*leg{{apisA, apisF}, {proxA, proxF}, {proxA, byName["GET proxy+aggsim hdrs"]},
		{byName["/apis aggsim -compare"], apisF}, {byName["GET aggsim -compare"], proxF}} {
		if p[0] != nil && p[1] != nil {
			printCPURatio(p[0], p[1])
		}
	}
}

// printCompare prints, for -compare, the -aggsim binary's leg (nw) against
// the same leg of the -compare binary (old): the ratios of their median rps
// and CPU per request, and the difference of aggsim's CPU per request in
// each round, whose two legs ran seconds apart and so are steadier than
// the medians when the machine's load changes between rounds.
func printCompare(nw, old *leg) {
	var diffs []float64
	for r := range min(len(old.cpu[0]), len(nw.cpu[0])) {
		diffs = append(diffs, nw.cpu[0][r]-old.cpu[0][r])
	}
	fmt.Printf("  %s new / -compare: rps %.3f×, aggsim CPU per request %.3f×, all processes %.3f×; aggsim µs new − old per round %v, median %+.1f\n",
		nw.name, median(nw.rps)/median(old.rps), median(nw.cpu[0])/median(old.cpu[0]), nw.totalCPU()/old.totalCPU(), rounded(diffs), median(diffs))
}

// printCPURatio prints the ratio of the floor's total CPU per request to
// aggsim's. When all the processes share the machine's cores and keep them
// busy, throughput is the cores divided by the total CPU per request, so
// these ratios are what the rps ratios tend to on an otherwise idle
// machine; unlike the rps ratios they hardly change when other programs
// take CPU time away during some legs (a shared machine), since /proc
// counts only the time each process ran.
func printCPURatio(aggsim, flr *leg) {
	a, f := aggsim.totalCPU(), flr.totalCPU()
	r := 0.0
	if a > 0 {
		r = f / a
	}
	fmt.Printf("  %-22s %4.0f   %-22s %4.0f   = %.2f×\n", aggsim.name, a, flr.name, f, r)
}

// rounded rounds each of xs to the nearest integer (half away from zero).
func rounded(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(math.Round(x))
	}
	return out
}

func roundedRatio(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return out
}

// fetchProfile saves aggsim's CPU profile over d (rounded up to a second)
// to file.
func fetchProfile(c *http.Client, aggURL string, d time.Duration, file string) error {
	secs := int((d + time.Second - 1) / time.Second)
	cc := *c
	cc.Timeout = d + 30*time.Second
	code, b, err := do(&cc, http.MethodGet, aggURL+"/debug/pprof/profile?seconds="+strconv.Itoa(secs), "", nil)
	if err != nil || code != http.StatusOK {
		return fmt.Errorf("GET /debug/pprof/profile: %d %v", code, err)
	}
	return os.WriteFile(file, b, 0o600)
}

// cpuTime returns the user+system CPU time c's process has used (this
// process when c is nil), from /proc/<pid>/stat (utime and stime, in clock
// ticks of 10 ms); 0 when it cannot be read.
func cpuTime(c *child) time.Duration {
	pid := "self"
	if c != nil {
		pid = strconv.Itoa(c.cmd.Process.Pid)
	}
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
