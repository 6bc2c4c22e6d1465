package stackstart

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestKeepSettlingResizesAtSettle: the ballast is sized for the goroutines
// at the start, resized for those running when settled delivers, and
// afterSettle runs after that resize, before any periodic check (issue 21:
// `aggsim serve` returns the replaced ballast's stack there).
func TestKeepSettlingResizesAtSettle(t *testing.T) {
	ballastFrames.Store(0)
	ctx, cancel := context.WithCancel(context.Background())
	settle := make(chan time.Time)
	type seen struct{ frames, want int64 }
	after := make(chan seen, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		KeepSettling(ctx, settle, func() {
			after <- seen{ballastFrames.Load(), int64(framesFor(runtime.NumGoroutine()))}
		})
	}()
	defer func() { cancel(); <-done }()
	first := int64(0)
	for range 100 { // the first check runs at once; wait for it, boundedly
		if first = ballastFrames.Load(); first > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if first == 0 {
		t.Fatal("no ballast after a second")
	}
	stop := make(chan struct{})
	defer close(stop)
	for range 200 { // what a server's controllers start after ready
		go func() { <-stop }()
	}
	select {
	case got := <-after:
		t.Fatalf("afterSettle ran before settled delivered (ballast %d frames)", got.frames)
	case <-time.After(20 * time.Millisecond):
	}
	settle <- time.Now()
	got := <-after
	if got.frames != got.want || got.frames < first+100 {
		t.Errorf("ballast at settle: %d frames, want %d for the goroutines then (first ballast %d frames)", got.frames, got.want, first)
	}
}

// TestKeepSettlingEndsBeforeSettle: ctx ending before settled delivers
// releases the ballast and does not call afterSettle.
func TestKeepSettlingEndsBeforeSettle(t *testing.T) {
	before := settled()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	called := false
	go func() { defer close(done); KeepSettling(ctx, make(chan time.Time), func() { called = true }) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	<-done
	if called {
		t.Error("afterSettle called although settled never delivered")
	}
	if n := settled(); n != before {
		t.Errorf("%d goroutines after KeepSettling returned, want %d", n, before)
	}
}
