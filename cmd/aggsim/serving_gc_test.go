package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// Without GOGC in the environment aggsim collects at servingGCPercent
// (200); with it, the user's value stays as the runtime applied it.
func TestServingGCPercent(t *testing.T) {
	if p, ok := gcPercentFor("", false); !ok || p != 200 {
		t.Errorf("GOGC unset: (%d, %v), want (200, true)", p, ok)
	}
	for _, v := range []string{"100", "off", "50", ""} {
		if p, ok := gcPercentFor(v, true); ok {
			t.Errorf("GOGC=%q: sets %d, want the user's value kept", v, p)
		}
	}
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set for this test run")
	}
	// init ran in this process (TestStartupGC restores what it found).
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	if p != servingGCPercent {
		t.Errorf("GOGC in effect %d, want %d", p, servingGCPercent)
	}
}
