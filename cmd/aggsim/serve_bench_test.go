package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// readyWriter is the banner's writer: it closes ready when "ready in"
// appears.
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	once  sync.Once
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready in ") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// BenchmarkServeStartFresh is `aggsim serve` with a fresh data dir (PKI
// generated), in process, from runServe to the banner's "ready in": the
// issue-21 start-up figure without the exec (make bench-floor measures it
// with the exec). Run it with -cpuprofile to see where a start-up goes.
// cpu-ms/op is the process's user+system CPU time per start (getrusage,
// the stop included).
func BenchmarkServeStartFresh(b *testing.B) {
	benchmarkServeStart(b, true)
}

// BenchmarkServeStartExisting is BenchmarkServeStartFresh on a data dir
// kept from the previous start.
func BenchmarkServeStartExisting(b *testing.B) {
	benchmarkServeStart(b, false)
}

func benchmarkServeStart(b *testing.B, fresh bool) {
	dir := b.TempDir()
	var toReady time.Duration
	cpu0 := processCPU(b)
	for i := 0; i < b.N; i++ {
		if fresh {
			dir = b.TempDir()
		}
		cmd := &cobra.Command{}
		o := &serveOptions{}
		o.addFlags(cmd)
		if err := cmd.Flags().Parse([]string{"--data-dir", dir, "--secure-port", "0", "--profiling=false"}); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		w := &readyWriter{ready: make(chan struct{})}
		done := make(chan error, 1)
		start := time.Now()
		go func() { done <- runServe(ctx, o, w, io.Discard) }()
		select {
		case <-w.ready:
		case err := <-done:
			cancel()
			b.Fatalf("serve ended before ready: %v\n%s", err, w.buf.String())
		case <-time.After(30 * time.Second):
			cancel()
			b.Fatalf("not ready in 30 s:\n%s", w.buf.String())
		}
		toReady += time.Since(start)
		b.StopTimer()
		cancel()
		<-done
		b.StartTimer()
	}
	b.ReportMetric(float64(toReady.Microseconds())/1000/float64(b.N), "ms-to-ready/op")
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU returns the user+system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
