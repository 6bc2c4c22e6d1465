package main

import (
	"runtime/debug"
	"sync"
)

// startupGCPercent is the garbage collector's target (GOGC) while
// `aggsim serve` starts: start-up allocates several times its small live
// heap (the bootstrap objects encoded, the informers' first lists, the
// discovery documents), and with the default 100 the collector ran
// several cycles before ready.
const startupGCPercent = 400

// startupGCState counts the start-ups in progress in this process (tests
// run several runServe at once): the first raises the target, the last
// restores the one it found.
var startupGCState struct {
	sync.Mutex
	active int
	prev   int
}

// startupGC raises the collector's target for a start-up (unless GOGC is
// off or larger) and returns the function that ends it, to call once
// ready; calls after the first do nothing. releaseStartupMemory returns
// the start-up heap to the operating system a second after ready.
func startupGC() (done func()) {
	st := &startupGCState
	st.Lock()
	if st.active == 0 {
		st.prev = debug.SetGCPercent(startupGCPercent)
		if st.prev < 0 || st.prev > startupGCPercent {
			debug.SetGCPercent(st.prev)
		}
	}
	st.active++
	st.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			st.Lock()
			defer st.Unlock()
			if st.active--; st.active == 0 {
				debug.SetGCPercent(st.prev)
			}
		})
	}
}
