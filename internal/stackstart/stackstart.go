package stackstart

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// Why: the runtime starts every goroutine with a stack the size of the
// average stack in use at the last garbage collection plus a guard,
// rounded up to a power of two (gcComputeStartingStackSize,
// runtime/stack.go; GODEBUG adaptivestackstart, on by default). In
// `aggsim serve` about a hundred goroutines (watches, informers,
// controllers) sit idle on shallow stacks, so new goroutines start with 2
// or 4 KiB. The HTTP/2 server starts one goroutine per request and the
// HTTP/2 transport one more per proxied request (and one per frame
// write); a proxied GET reaches about 5 KiB deep, so each of them grew its
// stack, copying it and adjusting every frame: 10–13% of aggsim's CPU
// under proxy load. One goroutine parked on a deep stack lifts the average
// so that new goroutines start with 8 KiB and do not grow.

const (
	// frameSize is the stack one ballast frame takes, in bytes.
	frameSize = 8 << 10
	// PerGoroutine is the ballast, in bytes of stack, kept for every
	// goroutine the process runs: with idle goroutines using about 1 KiB
	// each, the average comes to 4–5 KiB, and with the runtime's guard
	// the starting size rounds up to 8 KiB (not 16: that would take an
	// average above 7.2 KiB).
	PerGoroutine = 4 << 10
	// maxFrames bounds the ballast (4 MiB of stack).
	maxFrames = 512
	// CheckInterval is how often Keep resizes the ballast to the number of
	// goroutines.
	CheckInterval = 10 * time.Second
)

// Keep holds a ballast goroutine whose stack is PerGoroutine bytes per
// running goroutine (re-checked every CheckInterval, resized when the
// count moved by a quarter) until ctx ends, then releases it. It blocks;
// run it in its own goroutine. The ballast is stack memory that is
// touched once and then only scanned, without pointers, by the garbage
// collector: about 0.4 MiB for a hundred goroutines.
func Keep(ctx context.Context) { KeepSettling(ctx, nil, nil) }

// KeepSettling is Keep with one more check between the first and the
// periodic ones: when settled delivers (a server's controllers have
// started their goroutines by then), it resizes the ballast to the
// goroutines running then and calls afterSettle (when not nil), which can
// return the replaced ballast's stack to the operating system
// (debug.FreeOSMemory). Without it an `aggsim serve` sized the ballast at
// ready for about 30 goroutines and only at the first periodic check, 10 s
// later, for the 75 its controllers run: the replaced ballast's stack and
// the new one's growth stayed resident, 0.7 MB (issue 21). A nil settled
// skips the step, as Keep does.
func KeepSettling(ctx context.Context, settled <-chan time.Time, afterSettle func()) {
	var b *ballast
	check := func() {
		want := framesFor(runtime.NumGoroutine())
		if b == nil || want > b.frames*5/4 || want < b.frames*3/4 {
			if b != nil {
				b.release()
			}
			b = start(want)
		}
	}
	check()
	if settled != nil {
		select {
		case <-ctx.Done():
			b.release()
			return
		case <-settled:
		}
		check()
		if afterSettle != nil {
			afterSettle()
		}
	}
	t := time.NewTicker(CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			b.release()
			return
		case <-t.C:
		}
		check()
	}
}

// framesFor returns how many ballast frames n goroutines call for.
func framesFor(n int) int {
	f := (n*PerGoroutine + frameSize - 1) / frameSize
	return min(max(f, 1), maxFrames)
}

// ballast is one parked goroutine holding frames frames of stack.
type ballast struct {
	frames int
	park   chan struct{}
	done   chan struct{}
}

// start starts a ballast goroutine of frames frames and returns once its
// stack is that deep.
func start(frames int) *ballast {
	b := &ballast{frames: frames, park: make(chan struct{}), done: make(chan struct{})}
	parked := make(chan struct{})
	go func() {
		defer close(b.done)
		deep(frames, parked, b.park)
	}()
	<-parked
	ballastFrames.Store(int64(frames))
	return b
}

// ballastFrames is the size of the latest ballast started, in frames (for
// tests).
var ballastFrames atomic.Int64

// release ends the ballast goroutine and waits for it.
func (b *ballast) release() {
	close(b.park)
	<-b.done
}

// probe keeps the compiler from proving deep's array unused.
var probe int

// deep recurses n frames of frameSize bytes, tells parked, and waits for
// park to close.
//
//go:noinline
func deep(n int, parked chan<- struct{}, park <-chan struct{}) byte {
	var pad [frameSize - 128]byte // the rest of the frame: arguments, spills
	if n > 1 {
		pad[probe&(len(pad)-1)] = deep(n-1, parked, park)
	} else {
		close(parked)
		<-park
	}
	return pad[(probe+1)&(len(pad)-1)]
}

// growReserve is the stack Grow asks for, in bytes: with the frames below
// it, the goroutine's stack becomes 16 KiB.
const growReserve = 12 << 10

// Grow makes the calling goroutine's stack 16 KiB in one step. Call it
// first thing in a short-lived goroutine that will go deep (encoding and
// decoding objects through reflection, a storage transaction): growing
// there, while the stack holds one or two frames, copies almost nothing,
// where growing on the way down copies and adjusts every frame, two or
// three times over (issue 21: a third of a fresh start-up's stack
// growth was the bootstrap objects' create goroutines).
//
//go:noinline
func Grow() byte {
	var pad [growReserve]byte
	return pad[probe&(len(pad)-1)]
}
