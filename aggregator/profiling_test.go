package aggregator

import (
	"net/http"
	"strings"
	"testing"
)

// TestProfilingRoutes pins kube-apiserver 1.33.13's --profiling routes as
// answered to an admin (reference on this machine, 2026-11-24):
//
//	curl -sk --cert admin.crt --key admin.key -D - https://127.0.0.1:24443/debug/pprof
//	  302, Location: /debug/pprof/, body `<a href="/debug/pprof/">Found</a>.\n\n`
//	curl ... /debug/pprof/cmdline   404 text/plain, X-Go-Pprof: 1, body "Unknown profile\n"
//	curl ... /debug/pprof/symbol    200 "num_symbols: 1\n"
//	curl ... /debug/pprof/          200 text/html index
//	curl ... /                      lists no /debug path
func TestProfilingRoutes(t *testing.T) {
	m := NewMux(nil)
	installProfiling(m)

	code, body, h := serve(m, "/debug/pprof")
	if code != http.StatusFound || h.Get("Location") != "/debug/pprof/" || body != "<a href=\"/debug/pprof/\">Found</a>.\n\n" {
		t.Errorf("/debug/pprof: %d %q %q, want 302 to /debug/pprof/", code, h.Get("Location"), body)
	}
	code, body, h = serve(m, "/debug/pprof/cmdline")
	if code != http.StatusNotFound || body != "Unknown profile\n" || h.Get("X-Go-Pprof") != "1" || h.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("/debug/pprof/cmdline: %d %q %v, want 404 Unknown profile (not served upstream)", code, body, h)
	}
	if code, body, _ = serve(m, "/debug/pprof/symbol"); code != http.StatusOK || body != "num_symbols: 1\n" {
		t.Errorf("/debug/pprof/symbol: %d %q", code, body)
	}
	code, body, h = serve(m, "/debug/pprof/")
	if code != http.StatusOK || h.Get("Content-Type") != "text/html; charset=utf-8" || !strings.HasPrefix(body, "<html>\n<head>\n<title>/debug/pprof/</title>") {
		t.Errorf("/debug/pprof/: %d %v %.60q", code, h, body)
	}
	if got := m.ListedPaths(); len(got) != 0 {
		t.Errorf("profiling paths listed in /: %q", got)
	}
}
