package main

import (
	"os"
	"runtime/debug"
)

// servingGCPercent is aggsim's garbage-collector target (GOGC) when the
// environment sets none: the heap may grow to three times the live heap
// between collections instead of twice (Go's default, 100).
//
// Under proxy and discovery load the collector was about 9% of aggsim's
// CPU (CPU profiles of `floorbench -profile`: the mark workers 6–7%,
// sweeping 2%), while the floors it is compared with (issue 21), programs
// of a few lines, live in the collector's 4 MiB minimum heap and scan
// almost nothing. aggsim's live heap (informers, the store's caches, the
// inspector's ring, about a hundred goroutine stacks) is scanned on every
// cycle; collecting half as often (fewer mark phases, assists and sweeps)
// pays more than the 4-5% of the mark workers alone suggest. Measured
// with floorbench, nine interleaved pairs (load average 7-16), aggsim's
// CPU per proxied GET 119.0 -> 110.8 us and per /apis 50.1 -> 46.3 us
// (means, -7%); in-process (BenchmarkChainProxyGET, three pairs) 119.2 ->
// 111.0 cpu-us/op. The price is memory under load: peak RSS after
// floorbench's load legs 50.2-51.2 -> 59.5-60.7 MB. GOGC=400 (two pairs
// against 200: 105/107 vs 118/108 us per proxied GET) took 76-78 MB. Idle
// RSS is unchanged (36.5-37.2 MB either way: nothing is allocated while
// idle).
//
// kube-apiserver runs with Go's default; a user who sets GOGC (or
// GOGC=off with GOMEMLIMIT) gets exactly what they set.
const servingGCPercent = 200

func init() {
	if p, ok := gcPercentFor(os.LookupEnv("GOGC")); ok {
		debug.SetGCPercent(p)
	}
}

// gcPercentFor returns the target to set for the GOGC environment
// variable's value and whether it is set: servingGCPercent when it is not
// set, else nothing (the runtime has applied the user's value).
func gcPercentFor(_ string, set bool) (int, bool) {
	if set {
		return 0, false
	}
	return servingGCPercent, true
}
