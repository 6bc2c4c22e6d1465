package aggregator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// HeaderAuditID is the request/response header carrying the request id
// (k8s.io/apiserver/pkg/apis/audit/types.go HeaderAuditID, canonicalised).
const HeaderAuditID = "Audit-Id"

// panicMessage is upstream's body for a handler panic
// (apiserver/pkg/server/filters/wrap.go).
const panicMessage = "This request caused apiserver to panic. Look in the logs for details."

// requestRecord is what the access log learns about a request from inner
// filters. It lives in the context; inner filters write it in the serving
// goroutine before the handler runs, the log reads it after.
type requestRecord struct {
	id           string
	user         string
	impersonator string
}

type requestRecordKey struct{}

// RequestIDFrom returns the request id (the Audit-Id) WithRequestLog gave
// the request, or "".
func RequestIDFrom(ctx context.Context) string {
	if rec, ok := ctx.Value(requestRecordKey{}).(*requestRecord); ok {
		return rec.id
	}
	return ""
}

// noteUser tells the access log who the request runs as.
func noteUser(ctx context.Context, u *authentication.UserInfo, impersonated bool) {
	rec, ok := ctx.Value(requestRecordKey{}).(*requestRecord)
	if !ok || u == nil {
		return
	}
	if impersonated {
		rec.impersonator = rec.user
	}
	rec.user = u.Username
}

// newUUID returns a random RFC 4122 version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}

// WithRequestLog gives every request an id and logs it when done, mirroring
// upstream's WithAuditInit, WithCacheControl and httplog
// (apiserver/pkg/endpoints/filters/audit_init.go, cachecontrol.go,
// apiserver/pkg/server/httplog). The id is the client's Audit-ID header if
// sent, else a new UUID; it is set as the Audit-Id response header (unless
// already set) and as the request's Audit-Id header, so the proxy forwards it
// to the backend as upstream does. Cache-Control defaults to
// `no-cache, private` (a handler may overwrite it). After the handler
// returns, one debug-level "HTTP" record is logged with method, path, user,
// impersonator, status code, duration and audit ID; a panic is logged with
// code 500 and re-raised.
func WithRequestLog(h http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := beginRequest(w, r)
		r = r.WithContext(st)
		defer st.finish(r, logger)
		h.ServeHTTP(&st.sw, r)
		st.completed = true
	})
}

// WithPanicRecovery turns a handler panic into 500 text/plain
// `This request caused apiserver to panic. Look in the logs for details.`
// and logs the panic value and stack at error level, as upstream's
// WithPanicRecovery does (apiserver/pkg/server/filters/wrap.go).
// http.ErrAbortHandler (a timed-out or aborted stream) is re-raised so
// net/http aborts the connection without a response, logged at debug level.
// Unlike upstream, other panics are not re-raised after the answer.
func WithPanicRecovery(h http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer recoverPanic(w, r, logger)
		h.ServeHTTP(w, r)
	})
}

// recoverPanic is WithPanicRecovery's deferred half; it must be called
// directly by defer (recover only works there).
func recoverPanic(w http.ResponseWriter, r *http.Request, logger *slog.Logger) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		logger.Debug("timeout or abort while handling", "method", r.Method, "URI", r.RequestURI, "auditID", w.Header().Get(HeaderAuditID))
		panic(p)
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	logger.Error("apiserver panic'd", "method", r.Method, "URI", r.RequestURI,
		"auditID", w.Header().Get(HeaderAuditID), "panic", fmt.Sprint(p), "stack", string(buf))
	http.Error(w, panicMessage, http.StatusInternalServerError)
}
