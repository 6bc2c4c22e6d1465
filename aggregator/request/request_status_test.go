package request

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// connWriter is a ResponseWriter that can be flushed and hijacked; it
// notes the codes and flushes it received.
type connWriter struct {
	h       http.Header
	codes   []int
	flushes int
}

func (w *connWriter) Header() http.Header         { return w.h }
func (w *connWriter) WriteHeader(code int)        { w.codes = append(w.codes, code) }
func (w *connWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *connWriter) FlushError() error           { w.flushes++; return nil }
func (w *connWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, peer := net.Pipe()
	peer.Close()
	return c, bufio.NewReadWriter(bufio.NewReader(c), bufio.NewWriter(c)), nil
}

func TestStatusRecorder(t *testing.T) {
	writeHeader := func(code int) func(*StatusRecorder) { return func(s *StatusRecorder) { s.WriteHeader(code) } }
	write := func(s *StatusRecorder) { s.Write([]byte("x")) }
	flush := func(s *StatusRecorder) { s.Flush() }
	hijack := func(s *StatusRecorder) {
		c, _, err := http.NewResponseController(s).Hijack()
		if err == nil {
			c.Close()
		}
	}
	cases := []struct {
		name        string
		steps       []func(*StatusRecorder)
		code        int
		writtenCode int
	}{
		{"nothing", nil, 0, 0},
		{"explicit", []func(*StatusRecorder){writeHeader(404), writeHeader(500), write}, 404, 404},
		{"implicit 200 by Write", []func(*StatusRecorder){write, writeHeader(500)}, 200, 200},
		{"implicit 200 by Flush", []func(*StatusRecorder){flush, writeHeader(500)}, 200, 200},
		{"informational codes are not final", []func(*StatusRecorder){writeHeader(100), writeHeader(103), writeHeader(201)}, 201, 201},
		{"101 is final", []func(*StatusRecorder){writeHeader(101), writeHeader(503)}, 101, 101},
		{"hijack first", []func(*StatusRecorder){hijack, writeHeader(503)}, 101, 503},
		{"hijack after a code", []func(*StatusRecorder){writeHeader(200), hijack}, 200, 200},
	}
	for _, tc := range cases {
		inner := &connWriter{h: http.Header{}}
		s := &StatusRecorder{ResponseWriter: inner}
		for _, step := range tc.steps {
			step(s)
		}
		if s.Code() != tc.code || s.WrittenCode() != tc.writtenCode {
			t.Errorf("%s: Code %d WrittenCode %d, want %d %d", tc.name, s.Code(), s.WrittenCode(), tc.code, tc.writtenCode)
		}
	}
}

// TestStatusRecorderPassesThrough: every call reaches the wrapped writer,
// directly and through http.NewResponseController.
func TestStatusRecorderPassesThrough(t *testing.T) {
	inner := &connWriter{h: http.Header{}}
	s := &StatusRecorder{ResponseWriter: inner}
	s.Header().Set("K", "v")
	s.WriteHeader(103)
	s.WriteHeader(202)
	s.Flush()
	if err := http.NewResponseController(s).Flush(); err != nil {
		t.Fatal(err)
	}
	if inner.h.Get("K") != "v" || len(inner.codes) != 2 || inner.codes[0] != 103 || inner.codes[1] != 202 || inner.flushes != 2 {
		t.Errorf("inner got header %v codes %v flushes %d", inner.h, inner.codes, inner.flushes)
	}
	if s.Unwrap() != inner {
		t.Error("Unwrap does not return the wrapped writer")
	}
	c, _, err := s.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	// A writer that cannot flush or be hijacked: the errors say so, and a
	// failed hijack is not counted.
	rec := &StatusRecorder{ResponseWriter: struct{ http.ResponseWriter }{httptest.NewRecorder()}}
	if _, _, err := rec.Hijack(); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("Hijack: %v, want http.ErrNotSupported", err)
	}
	if rec.Code() != 0 {
		t.Errorf("Code after a failed hijack = %d, want 0", rec.Code())
	}
	if err := rec.FlushError(); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("FlushError: %v, want http.ErrNotSupported", err)
	}
}
