package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// measureStartupCompare starts each of bins n times on a fresh data dir
// and n times on an existing one (each binary its own), rotating the
// binaries' order every round so that none always runs first, and prints
// per binary the medians of exec → first 200 from /readyz and of the
// banner's "ready in". It is -startup with -baseline: an old and a new
// binary measured in the same minutes, on the same load.
func measureStartupCompare(bins []string, work string, n int) error {
	type result struct{ fresh, again []startupRun }
	res := make([]result, len(bins))
	existing := make([]string, len(bins))
	for i, bin := range bins {
		existing[i] = filepath.Join(work, fmt.Sprintf("startup-existing-%d", i))
		if _, err := startOnce(bin, existing[i]); err != nil { // creates it
			return fmt.Errorf("%s: %w", bin, err)
		}
	}
	for round := 0; round < n; round++ {
		for j := range bins {
			i := (j + round) % len(bins)
			for _, fresh := range []bool{round%2 == 0, round%2 == 1} {
				dir := existing[i]
				if fresh {
					dir = filepath.Join(work, fmt.Sprintf("startup-fresh-%d-%d", i, round))
				}
				r, err := startOnce(bins[i], dir)
				if err != nil {
					return fmt.Errorf("%s: %w", bins[i], err)
				}
				if fresh {
					res[i].fresh = append(res[i].fresh, r)
					_ = os.RemoveAll(dir)
				} else {
					res[i].again = append(res[i].again, r)
				}
			}
		}
	}
	ms := func(runs []startupRun, f func(startupRun) time.Duration) []float64 {
		var xs []float64
		for _, r := range runs {
			xs = append(xs, float64(f(r).Microseconds())/1000)
		}
		slices.Sort(xs)
		return xs
	}
	readyz := func(r startupRun) time.Duration { return r.readyz }
	banner := func(r startupRun) time.Duration { return r.reported }
	fmt.Printf("\nstart-up of aggsim serve, %d runs each, binaries interleaved; exec → first 200 from /readyz (banner's \"ready in\"), median [min–max] ms:\n", n)
	fmt.Printf("  %-40s %-32s %s\n", "binary", "fresh data dir (PKI generated)", "existing data dir")
	for i, bin := range bins {
		f, e := ms(res[i].fresh, readyz), ms(res[i].again, readyz)
		fmt.Printf("  %-40s %5.1f (%4.1f) [%.1f–%.1f]%8s %5.1f (%4.1f) [%.1f–%.1f]\n", bin,
			median(f), median(ms(res[i].fresh, banner)), f[0], f[len(f)-1], "",
			median(e), median(ms(res[i].again, banner)), e[0], e[len(e)-1])
	}
	return nil
}
