package aggregator

import (
	"syscall"
	"testing"
	"time"
)

// loadBoundCap is how many times its limit a loadBound waits at most in
// wall-clock time.
const loadBoundCap = 10

// loadBound bounds a wait so that the machine's load does not decide it:
// it is exceeded once both the wall-clock time and this process's CPU
// time (user + system, all threads) since the wait began reach limit, or
// the wall-clock time reaches loadBoundCap times limit. On an idle
// machine that is limit; on a loaded one the process gets a fraction of
// a core and the wait lasts until it has had limit of CPU (the work an
// idle machine does in limit), up to the cap. A process stuck without
// using CPU fails at the cap.
//
// The CRD tests waited 30 s of wall-clock time for the gateway-api
// CRDs to be Established; with three race test binaries and other work
// on the 2 cores (load 10-15) the test process got 16% of a core (10 s
// of CPU in 63 s) and TestCustomResourceObjectsAsUpstream failed 2 of 5
// runs.
type loadBound struct {
	limit time.Duration
	start time.Time
	cpu0  time.Duration
}

func newLoadBound(limit time.Duration) loadBound {
	return loadBound{limit: limit, start: time.Now(), cpu0: processCPU()}
}

// exceeded reports whether the wait is over.
func (b loadBound) exceeded() bool {
	wall := time.Since(b.start)
	return wall >= loadBoundCap*b.limit || (wall >= b.limit && processCPU()-b.cpu0 >= b.limit)
}

// String says what the bound allowed, for failure messages.
func (b loadBound) String() string {
	return time.Since(b.start).Round(time.Millisecond).String() + " (" + (processCPU() - b.cpu0).Round(time.Millisecond).String() + " of this process's CPU; bound " + b.limit.String() + " of both)"
}

// processCPU returns the CPU time this process has used (0 when the
// system does not say).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pollBackoff returns the pause after a poll that found its condition
// false: 5 ms, doubling up to 100 ms, so that a long wait does not take
// the CPU the awaited work needs (a poll of a gateway-api CRD decodes a
// few hundred KB).
func pollBackoff(d time.Duration) time.Duration {
	if d == 0 {
		return 5 * time.Millisecond
	}
	return min(2*d, 100*time.Millisecond)
}

// TestLoadBound: a wait that used no CPU ends at the cap only when the
// CPU half is not met; one that used CPU ends at its limit.
func TestLoadBound(t *testing.T) {
	b := loadBound{limit: time.Second, start: time.Now().Add(-2 * time.Second), cpu0: processCPU()}
	if b.exceeded() {
		t.Errorf("2 s of wall-clock time and no CPU: exceeded, want not (the CPU half of the bound is not met)")
	}
	b.start = time.Now().Add(-loadBoundCap * time.Second)
	if !b.exceeded() {
		t.Errorf("the cap's wall-clock time: not exceeded")
	}
	b = loadBound{limit: time.Second, start: time.Now().Add(-2 * time.Second), cpu0: processCPU() - 2*time.Second}
	if !b.exceeded() {
		t.Errorf("2 s of wall-clock time and of CPU: not exceeded")
	}
	b = loadBound{limit: time.Second, start: time.Now(), cpu0: processCPU() - 2*time.Second}
	if b.exceeded() {
		t.Errorf("no wall-clock time: exceeded (the wall-clock half of the bound is not met)")
	}
}
