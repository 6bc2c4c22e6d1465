package aggregator

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestPanicRecovery(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := BuildHandlerChain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
		ChainOptions{Authn: AuthnOptions{Anonymous: true}, Logger: logger})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/apis/g/v1/x", nil))
	if rec.Code != 500 || rec.Body.String() != "This request caused apiserver to panic. Look in the logs for details.\n" {
		t.Errorf("%d %q", rec.Code, rec.Body)
	}
	if rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", rec.Header().Get("Content-Type"))
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(rec.Header().Get("Audit-Id")) {
		t.Errorf("Audit-Id %q", rec.Header().Get("Audit-Id"))
	}
	out := logs.String()
	if !strings.Contains(out, "apiserver panic'd") || !strings.Contains(out, `panic="boom`) || !strings.Contains(out, "goroutine") {
		t.Errorf("panic log: %s", out)
	}
	if !strings.Contains(out, "msg=HTTP") || !strings.Contains(out, "code=500") || !strings.Contains(out, "user=system:anonymous") {
		t.Errorf("access log: %s", out)
	}
}

func TestPanicAbortHandlerIsReraised(t *testing.T) {
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Fatalf("recovered %v", p)
		}
	}()
	WithPanicRecovery(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }), nil).
		ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestRequestIDAndCacheControl(t *testing.T) {
	var gotID, gotHeader string
	h := WithRequestLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotID, gotHeader = RequestIDFrom(r.Context()), r.Header.Get("Audit-Id")
	}), nil)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/apis", nil)
	req.Header.Set("Audit-ID", "client-chosen")
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Audit-Id") != "client-chosen" || gotID != "client-chosen" || gotHeader != "client-chosen" {
		t.Errorf("audit id: response %q ctx %q header %q", rec.Header().Get("Audit-Id"), gotID, gotHeader)
	}
	if got := rec.Header()["Cache-Control"]; len(got) != 1 || got[0] != "no-cache, private" {
		t.Errorf("Cache-Control %q", got)
	}
	// A handler may replace Cache-Control (discovery answers "public").
	rec = httptest.NewRecorder()
	WithRequestLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public")
	}), nil).ServeHTTP(rec, httptest.NewRequest("GET", "/apis", nil))
	if got := rec.Header()["Cache-Control"]; len(got) != 1 || got[0] != "public" {
		t.Errorf("Cache-Control %q", got)
	}
}

// TestStatusWriterKeepsFlusher: watch responses need Flush through the log
// wrapper.
func TestStatusWriterKeepsFlusher(t *testing.T) {
	rec := httptest.NewRecorder()
	WithRequestLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("not a Flusher")
		}
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Error(err)
		}
	}), nil).ServeHTTP(rec, httptest.NewRequest("GET", "/apis/g/v1/x?watch=1", nil))
	if !rec.Flushed {
		t.Error("not flushed")
	}
}
