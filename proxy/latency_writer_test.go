package proxy

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingFlusher counts flushes; the writes go to a recorder.
type countingFlusher struct {
	*httptest.ResponseRecorder
	mu      sync.Mutex
	flushes int
}

func (f *countingFlusher) Flush() {
	f.mu.Lock()
	f.flushes++
	f.mu.Unlock()
}

func (f *countingFlusher) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushes
}

// unwrapOnly hides its writer's Flush behind Unwrap, as the chain's
// writers do.
type unwrapOnly struct{ w http.ResponseWriter }

func (u unwrapOnly) Header() http.Header         { return u.w.Header() }
func (u unwrapOnly) Write(p []byte) (int, error) { return u.w.Write(p) }
func (u unwrapOnly) WriteHeader(code int)        { u.w.WriteHeader(code) }
func (u unwrapOnly) Unwrap() http.ResponseWriter { return u.w }

func TestFlushUnwraps(t *testing.T) {
	f := &countingFlusher{ResponseRecorder: httptest.NewRecorder()}
	if err := flush(unwrapOnly{unwrapOnly{f}}); err != nil || f.count() != 1 {
		t.Errorf("flush through two Unwraps: err %v, %d flushes, want nil and 1", err, f.count())
	}
	if err := flush(struct{ http.ResponseWriter }{f}); err != http.ErrNotSupported {
		t.Errorf("flush of a writer that cannot: %v, want http.ErrNotSupported", err)
	}
}

// TestLatencyWriterReuse checks the pooled flush-interval writers: the
// headers are flushed flushInterval after the writer was taken, a writer
// that was stopped in time never flushes, and a writer whose timer fired
// is not handed out again (its callback could still be waiting).
func TestLatencyWriterReuse(t *testing.T) {
	// A stopped writer: no flush, ever, on its own writer.
	quiet := &countingFlusher{ResponseRecorder: httptest.NewRecorder()}
	m := getLatencyWriter(quiet)
	if _, err := m.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	m.stop()

	// A writer left alone flushes once, flushInterval later.
	slow := &countingFlusher{ResponseRecorder: httptest.NewRecorder()}
	fired := getLatencyWriter(slow)
	deadline := time.Now().Add(10 * flushInterval)
	for slow.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if slow.count() != 1 {
		t.Fatalf("%d flushes after %v, want 1", slow.count(), flushInterval)
	}
	fired.stop()

	var seen atomic.Bool
	for range 50 {
		w := &countingFlusher{ResponseRecorder: httptest.NewRecorder()}
		got := getLatencyWriter(w)
		if got == fired {
			seen.Store(true)
		}
		got.stop()
	}
	if seen.Load() {
		t.Errorf("a writer whose timer fired was handed out again")
	}
	time.Sleep(2 * flushInterval)
	if n := quiet.count(); n != 0 {
		t.Errorf("a writer stopped before its interval flushed %d times, want 0", n)
	}
	if n := slow.count(); n != 1 {
		t.Errorf("the slow writer flushed %d times, want 1", n)
	}
}
