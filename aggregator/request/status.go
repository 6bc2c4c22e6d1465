package request

import (
	"bufio"
	"net"
	"net/http"
)

// StatusRecorder is an http.ResponseWriter that passes everything on to
// the ResponseWriter it embeds and notes the status code of the response:
// the first final code (>= 200, or 101, which is final: the connection
// switches protocols) given to WriteHeader, 200 for a Write or Flush before
// any, and whether the connection was hijacked before any. Flush, Hijack
// and Unwrap pass through, so watches (flushed streams) and upgrades
// (hijacked connections) still work through it, with
// http.NewResponseController too. It plays the part of the status-keeping
// writers of upstream's handler chain (apiserver/pkg/server/httplog/httplog.go
// respLogger, apiserver/pkg/endpoints/metrics/metrics.go
// ResponseWriterDelegator). The aggregator's handler chain wraps every
// request in one (access log, request metrics), the proxy Handler every
// proxied request when Options.OnRequest is set.
//
// Set ResponseWriter before use; the zero value of the rest records
// nothing yet. It is not safe for concurrent use (neither is the
// ResponseWriter it wraps).
type StatusRecorder struct {
	http.ResponseWriter

	written  int  // first final code written (WriteHeader, Write, Flush)
	hijacked bool // hijacked while written was still 0
}

// WriteHeader notes code if it is the first final code and passes it on.
func (s *StatusRecorder) WriteHeader(code int) {
	if s.written == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		s.written = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write notes an implicit 200 and passes p on.
func (s *StatusRecorder) Write(p []byte) (int, error) {
	if s.written == 0 {
		s.written = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// Flush notes an implicit 200 and flushes the wrapped writer if it can;
// see FlushError.
func (s *StatusRecorder) Flush() { _ = s.FlushError() }

// FlushError notes an implicit 200 and flushes the wrapped writer through
// http.NewResponseController. Errors: the wrapped writer's flush error, or
// one matching http.ErrNotSupported when it cannot flush.
func (s *StatusRecorder) FlushError() error {
	if s.written == 0 {
		s.written = http.StatusOK
	}
	return http.NewResponseController(s.ResponseWriter).Flush()
}

// Hijack hijacks the wrapped writer's connection through
// http.NewResponseController and, when that succeeds before any final code
// was written, notes the hijack. Errors: the wrapped writer's, or one
// matching http.ErrNotSupported when it cannot be hijacked.
func (s *StatusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err == nil && s.written == 0 {
		s.hijacked = true
	}
	return c, rw, err
}

// Unwrap returns the wrapped writer (for http.NewResponseController).
func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Code returns the status the client got: the first final code written,
// or 101 when the connection was hijacked before one (what is written to
// a hijacked connection's writer afterwards never reaches the client);
// 0 when nothing was written yet.
func (s *StatusRecorder) Code() int {
	if s.hijacked {
		return http.StatusSwitchingProtocols
	}
	return s.written
}

// WrittenCode returns the first final code written through WriteHeader,
// Write or Flush, ignoring a hijack: the answer the handler gave, even one
// written after a hijack (such as the proxy's 503 when a protocol switch
// could not be completed); 0 when nothing was written.
func (s *StatusRecorder) WrittenCode() int { return s.written }

var (
	_ http.Flusher  = (*StatusRecorder)(nil)
	_ http.Hijacker = (*StatusRecorder)(nil)
)
