package stackstart

import (
	"context"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// grows reports whether a new goroutine that uses about depth bytes of
// stack had to grow it: growing moves the stack, so the address of a local
// variable taken before the deep call differs after it.
func grows(depth int) bool {
	res := make(chan bool)
	go func() {
		var x byte
		before := uintptr(unsafe.Pointer(&x))
		switch {
		case depth <= 5<<10:
			use5K()
		default:
			use9K()
		}
		res <- uintptr(unsafe.Pointer(&x)) != before
	}()
	return <-res
}

//go:noinline
func use5K() byte {
	var pad [5 << 10]byte
	return pad[probe&1023]
}

//go:noinline
func use9K() byte {
	var pad [9 << 10]byte
	return pad[probe&1023]
}

// TestKeepStartsGoroutinesWith8KiB parks 200 goroutines on shallow stacks,
// as aggsim's idle watches and controllers are, and checks that a new
// goroutine needing 5 KiB of stack grows it without the ballast and does
// not with it, and that one needing 9 KiB still grows (the starting size
// is 8 KiB, not more).
func TestKeepStartsGoroutinesWith8KiB(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	for range 200 {
		go func() { <-stop }()
	}
	runtime.GC()
	runtime.GC()
	if !grows(5 << 10) {
		t.Fatal("without the ballast a goroutine using 5 KiB did not grow its stack: the test cannot tell")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Keep(ctx) }()
	defer func() { cancel(); <-done }()
	ok := false
	for range 100 { // Keep sizes the ballast at once; wait for it, boundedly
		runtime.GC()
		if !grows(5 << 10) {
			ok = true
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !ok {
		t.Fatal("with the ballast a goroutine using 5 KiB still grew its stack")
	}
	if !grows(9 << 10) {
		t.Error("with the ballast a goroutine using 9 KiB did not grow: the starting stack is above 8 KiB")
	}
}

func TestFramesFor(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 1}, {1, 1}, {2, 1}, {3, 2}, {100, 50}, {101, 51}, {5000, maxFrames},
	} {
		if got := framesFor(c.n); got != c.want {
			t.Errorf("framesFor(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestKeepReleases checks that the ballast goroutine ends with ctx.
func TestKeepReleases(t *testing.T) {
	before := settled()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); Keep(ctx) }()
	time.Sleep(20 * time.Millisecond)
	if n := runtime.NumGoroutine(); n != before+2 {
		t.Errorf("%d goroutines while Keep runs, want %d (Keep and its ballast)", n, before+2)
	}
	cancel()
	<-done
	if n := settled(); n != before {
		t.Errorf("%d goroutines after Keep returned, want %d", n, before)
	}
}

// settled returns the number of goroutines once it has not changed for
// 10 ms (at most about a second).
func settled() int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// TestGrow checks that a goroutine that called Grow runs 9 KiB deep
// without growing its stack again.
func TestGrow(t *testing.T) {
	res := make(chan bool)
	go func() {
		Grow()
		var x byte
		before := uintptr(unsafe.Pointer(&x))
		use9K()
		res <- uintptr(unsafe.Pointer(&x)) != before
	}()
	if <-res {
		t.Error("a goroutine that called Grow grew its stack at 9 KiB")
	}
}
