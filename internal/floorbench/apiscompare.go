package main

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/aggsim/aggsim/certs"
)

// measureAPIsCompare is -apis-baseline: GET /apis from two aggsim
// binaries, an old (baseline) and a new one, each on its own fresh data
// dir, and from the static server answering the same bytes, in the same
// run: the three legs rotate their order every round, so that load from
// other programs on a shared machine falls on all three alike. It prints
// each leg's median rps and CPU per request (server and load generator),
// the per-round CPU of new and old, and the ratios new / old and
// static / new of the medians.
func measureAPIsCompare(oldBin, newBin, work string, rounds int, d time.Duration, conc int) error {
	var s servers
	defer s.stop()
	type aggsim struct {
		bin, dataDir, url string
		proc              *child
	}
	aggs := []*aggsim{{bin: oldBin}, {bin: newBin}}
	for i, a := range aggs {
		a.dataDir = filepath.Join(work, fmt.Sprintf("apis-%d", i))
		c, err := startChild(a.bin, "serve", "--data-dir", a.dataDir, "--secure-port", "0", "--bind-address", "127.0.0.1")
		if err != nil {
			return err
		}
		s.add(c)
		a.proc = c
		if a.url, err = c.waitLine(servingRe, 30*time.Second); err != nil {
			return fmt.Errorf("%s: %w", a.bin, err)
		}
	}
	// Both answer the same bytes (nothing registered); the static server
	// answers them with the new binary's serving pair and client CA.
	var apis []byte
	for _, a := range aggs {
		c, err := adminClient(a.dataDir, true)
		if err != nil {
			return err
		}
		code, b, err := do(c, http.MethodGet, a.url+"/apis", "application/json", nil)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("GET /apis from %s: %d %v", a.bin, code, err)
		}
		if apis != nil && string(b) != string(apis) {
			return fmt.Errorf("the two binaries answer different /apis bytes:\n%s\n%s", apis, b)
		}
		apis = b
	}
	apisFile := filepath.Join(work, "apis-compare.json")
	if err := os.WriteFile(apisFile, apis, 0o600); err != nil {
		return err
	}
	nd := aggs[1].dataDir
	staticAddr, err := s.startRole("static", "-cert", pkiFile(nd, certs.ServingCertName), "-key", pkiFile(nd, certs.ServingKeyName),
		"-client-ca", pkiFile(nd, certs.CACertName), "-body", apisFile)
	if err != nil {
		return err
	}
	legs := []*leg{
		{name: "/apis static server", url: "https://" + staticAddr + "/apis", want: len(apis), server: s.children[2]},
		{name: "/apis aggsim old", url: aggs[0].url + "/apis", want: len(apis), server: aggs[0].proc},
		{name: "/apis aggsim new", url: aggs[1].url + "/apis", want: len(apis), server: aggs[1].proc},
	}
	for i, l := range legs {
		dir := nd
		if i == 1 {
			dir = aggs[0].dataDir
		}
		if l.client, err = adminClient(dir, true); err != nil {
			return err
		}
	}
	fmt.Printf("\n/apis of two binaries: %d rounds of %s per leg, %d workers on one HTTP/2 connection per leg, leg order rotating\n  old %s\n  new %s\n",
		rounds, d, conc, oldBin, newBin)
	for _, l := range legs { // warm-up: connections, caches
		if err := runLeg(l, conc, d/4, false); err != nil {
			return err
		}
	}
	for r := 0; r < rounds; r++ {
		for j := range legs {
			l := legs[(j+r)%len(legs)]
			before := [2]time.Duration{cpuTime(l.server), cpuTime(nil)}
			n := len(l.rps)
			if err := runLeg(l, conc, d, true); err != nil {
				return err
			}
			if len(l.rps) > n {
				reqs := l.rps[n] * d.Seconds()
				l.cpu[0] = append(l.cpu[0], float64((cpuTime(l.server)-before[0]).Microseconds())/reqs)
				l.cpu[2] = append(l.cpu[2], float64((cpuTime(nil)-before[1]).Microseconds())/reqs)
			}
		}
	}
	fmt.Printf("\n  %-22s %10s %12s %12s   %s\n", "leg", "median rps", "server µs", "loadgen µs", "server µs per round")
	for _, l := range legs {
		fmt.Printf("  %-22s %10.0f %12.1f %12.1f   %v\n", l.name, median(l.rps), median(l.cpu[0]), median(l.cpu[2]), rounded(l.cpu[0]))
	}
	st, old, nw := legs[0], legs[1], legs[2]
	// The same round's legs ran within seconds of each other: their
	// difference is steadier than the medians' when the machine's load
	// changes between rounds.
	var diffs []float64
	var shown []int
	for r := range min(len(old.cpu[0]), len(nw.cpu[0])) {
		diffs = append(diffs, nw.cpu[0][r]-old.cpu[0][r])
		shown = append(shown, int(math.Round(diffs[r])))
	}
	fmt.Printf("\n  server µs per request new − old, per round: %v; median %+.1f, mean %+.1f\n", shown, median(diffs), mean(diffs))
	fmt.Printf("\n  rps new / old = %.3f×; CPU per request new / old: server %.3f×, server + loadgen %.3f×\n",
		median(nw.rps)/median(old.rps), median(nw.cpu[0])/median(old.cpu[0]), nw.totalCPU()/old.totalCPU())
	fmt.Printf("  rps aggsim / static server: old %.2f×, new %.2f×; CPU ratio static / aggsim (server + loadgen): old %.2f×, new %.2f×\n",
		median(old.rps)/median(st.rps), median(nw.rps)/median(st.rps), st.totalCPU()/old.totalCPU(), st.totalCPU()/nw.totalCPU())
	return nil
}

// mean returns the arithmetic mean of xs (0 for none).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
