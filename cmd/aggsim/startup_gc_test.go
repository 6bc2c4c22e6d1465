package main

import (
	"runtime/debug"
	"testing"
)

// startupGC raises the collector's target while any start-up is in
// progress and restores the previous target when the last one ends, in
// whatever order overlapping start-ups end; a second call of done does
// nothing.
func TestStartupGC(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	gcPercent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	a := startupGC()
	b := startupGC()
	if got := gcPercent(); got != startupGCPercent {
		t.Fatalf("during start-up: GOGC %d, want %d", got, startupGCPercent)
	}
	a()
	a()
	if got := gcPercent(); got != startupGCPercent {
		t.Fatalf("one start-up left: GOGC %d, want %d", got, startupGCPercent)
	}
	b()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after start-up: GOGC %d, want 100", got)
	}
	debug.SetGCPercent(1000) // a larger GOGC is kept
	c := startupGC()
	if got := gcPercent(); got != 1000 {
		t.Fatalf("GOGC=1000 during start-up: %d, want 1000", got)
	}
	c()
	if got := gcPercent(); got != 1000 {
		t.Fatalf("GOGC=1000 after start-up: %d, want 1000", got)
	}
}
