package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
)

// forwardable reports whether the Handler's own proxying loop (forward)
// serves r. Protocol upgrades (SPDY, WebSocket) and requests that expect a
// 100-continue, whose interim responses must reach the client, go through
// httputil.ReverseProxy instead. On forward's path other interim (1xx)
// answers of a backend are not relayed (the transport skips them);
// httputil relays them through a client trace that costs every request
// several allocations, and aggregated API servers send none.
func forwardable(r *http.Request) bool {
	return len(r.Header["Upgrade"]) == 0 && len(r.Header["Expect"]) == 0
}

// forward proxies r to the backend b with c as the outgoing request's
// context: the loop of httputil.ReverseProxy.ServeHTTP for a request that
// does not upgrade, with the same observable behaviour (see the
// hop-by-hop, forwarding-header, trailer, flush and abort rules below and
// TestForwardMatchesReverseProxy), but without the work the general proxy
// repeats per request: no deep copy of the inbound request (its header
// values are shared, never changed), no client trace, one outgoing request
// instead of three, and no flush timer for a response whose body arrives in
// one read (most API answers). It is aggsim's proxying hot path (issue 21).
func (h *Handler) forward(w http.ResponseWriter, in *http.Request, b *backend, c *proxyCall) {
	out := in.WithContext(c) // a shallow copy; every field the transport reads is replaced below
	c.url = url.URL{}
	out.URL = &c.url
	out.Header = forwardHeader(in.Header)
	out.Body, out.GetBody, out.Close = nil, nil, false
	if in.ContentLength != 0 && in.Body != nil && in.Body != http.NoBody {
		// The transport closes a request body when it fails; the wrapper
		// keeps that from closing (and draining) the inbound one, as
		// httputil.ReverseProxy does.
		out.Body = noopCloseBody{in.Body}
	}
	rewriteRequestHeader(out, in, c.host, c.user, true, &c.vals)
	c.recordRequest(out.Header)

	res, err := b.entry.rt.RoundTrip(out)
	if err != nil {
		h.errorHandler(w, out, err)
		return
	}
	if res.StatusCode == http.StatusSwitchingProtocols {
		// The client asked for no upgrade (forwardable); httputil answers a
		// backend that switches anyway with this error.
		res.Body.Close()
		h.errorHandler(w, out, fmt.Errorf("backend tried to switch protocol %q when %q was requested", res.Header.Get("Upgrade"), ""))
		return
	}
	removeHopByHop(res.Header)
	if err := h.modifyResponse(res); err != nil {
		res.Body.Close()
		h.errorHandler(w, out, err)
		return
	}
	dst := w.Header()
	for k, vv := range res.Header {
		if prev, ok := dst[k]; ok {
			dst[k] = append(prev, vv...)
		} else {
			// res is not used after the copy: share its values (the full
			// slice expression makes a later append copy, so the
			// inspector's record of the backend's header stays as sent).
			dst[k] = vv[:len(vv):len(vv)]
		}
	}
	announced := len(res.Trailer)
	if announced > 0 {
		keys := make([]string, 0, announced)
		for k := range res.Trailer {
			keys = append(keys, k)
		}
		dst.Add("Trailer", strings.Join(keys, ", "))
	}
	w.WriteHeader(res.StatusCode)

	if err := h.copyBody(w, res); err != nil {
		res.Body.Close()
		if !errors.Is(err, context.Canceled) {
			h.log.Info("error copying the backend's answer", "host", c.host, "path", in.URL.Path, "err", err)
		}
		// Part of the answer is out: all that is left is to abort the
		// stream, as httputil.ReverseProxy does (Go issue 23643) when it
		// runs inside a server.
		if in.Context().Value(http.ServerContextKey) != nil {
			panic(http.ErrAbortHandler)
		}
		return
	}
	res.Body.Close() // now, so that res.Trailer is complete
	if len(res.Trailer) > 0 {
		// Force chunking so that the server sends the trailers.
		_ = http.NewResponseController(w).Flush()
	}
	if len(res.Trailer) == announced {
		for k, vv := range res.Trailer {
			dst[k] = append(dst[k], vv...)
		}
		return
	}
	for k, vv := range res.Trailer {
		for _, v := range vv {
			dst.Add(http.TrailerPrefix+k, v)
		}
	}
}

// isHopByHop reports whether the canonical field name k is a header of one
// connection (RFC 9110 section 7.6.1), which a proxy never forwards, as
// httputil.ReverseProxy's list.
func isHopByHop(k string) bool {
	switch k {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// forwardHeader returns the header of the outgoing request: in's fields
// (values shared with in, which is not changed afterwards) without the
// hop-by-hop ones, without the fields the Connection header names, without
// the client's Forwarded and X-Forwarded-For/Host/Proto (rewriteRequest
// sets aggsim's own) and without the credential fields SetIdentityHeaders
// strips (rewriteRequestHeader then only sets the identity); Te: trailers
// is kept when the client sent it, as httputil.ReverseProxy keeps it.
func forwardHeader(in http.Header) http.Header {
	out := make(http.Header, len(in)+8)
	for k, vv := range in {
		switch {
		case isHopByHop(k):
		case isCredentialField(k):
		case k == "Forwarded" || k == "X-Forwarded-For" || k == "X-Forwarded-Host" || k == "X-Forwarded-Proto":
		default:
			out[k] = vv
		}
	}
	deleteConnectionFields(out, in["Connection"])
	if httpguts.HeaderValuesContainsToken(in["Te"], "trailers") {
		out["Te"] = []string{"trailers"}
	}
	return out
}

// removeHopByHop deletes the hop-by-hop fields of a response header and
// those its Connection header names.
func removeHopByHop(h http.Header) {
	deleteConnectionFields(h, h["Connection"])
	for k := range h {
		if isHopByHop(k) {
			delete(h, k)
		}
	}
}

// noopCloseBody keeps the transport's Close from reaching the inbound
// request body.
type noopCloseBody struct{ io.Reader }

var _ io.ReadCloser = noopCloseBody{}

func (noopCloseBody) Close() error { return nil }

// copyBody copies res's body to w with httputil.ReverseProxy's flush rules
// (flushInterval): a body of unknown length, and text/event-stream, is
// flushed at once (headers included) and after every write (watches); for
// a body of known length, whatever waits is flushed flushInterval after it
// was written (headers included, so a slow body does not hold them back).
// It returns the first read or write error (io.EOF is no error).
func (h *Handler) copyBody(w http.ResponseWriter, res *http.Response) error {
	buf := h.buffers.Get()
	defer h.buffers.Put(buf)
	immediate := res.ContentLength == -1 || isEventStream(res.Header.Get("Content-Type"))
	var dst io.Writer = w
	if immediate {
		_ = flush(w)
	} else {
		lw := getLatencyWriter(w)
		defer lw.stop()
		dst = lw
	}
	for {
		n, rerr := res.Body.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return werr
			}
			if immediate {
				_ = flush(w)
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// flush flushes w as http.ResponseController.Flush does (FlushError, then
// Flush, then the writer Unwrap returns), without allocating a controller.
func flush(w http.ResponseWriter) error {
	for {
		switch t := w.(type) {
		case interface{ FlushError() error }:
			return t.FlushError()
		case http.Flusher:
			t.Flush()
			return nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return http.ErrNotSupported
		}
	}
}

// isEventStream reports whether a Content-Type is text/event-stream, which
// httputil flushes after every write.
func isEventStream(ct string) bool {
	base, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(base), "text/event-stream")
}

// latencyWriter flushes what was written to dst at most flushInterval
// after the write, like httputil's maxLatencyWriter. Writers and their
// timers are recycled (latencyWriters): a known-length answer, most API
// answers, otherwise costs a writer, a timer and a method value each.
type latencyWriter struct {
	mu           sync.Mutex          // protects dst, flushPending and writes to dst
	dst          http.ResponseWriter // nil while pooled
	t            *time.Timer         // runs delayedFlush; made once per writer
	flushPending bool
}

// latencyWriters holds stopped latencyWriters whose timer callback can no
// longer run.
var latencyWriters sync.Pool

// getLatencyWriter returns a writer to w whose first flush (the headers)
// is due in flushInterval.
func getLatencyWriter(w http.ResponseWriter) *latencyWriter {
	m, _ := latencyWriters.Get().(*latencyWriter)
	if m == nil {
		m = &latencyWriter{dst: w, flushPending: true}
		m.t = time.AfterFunc(flushInterval, m.delayedFlush)
		return m
	}
	m.mu.Lock()
	m.dst, m.flushPending = w, true
	m.mu.Unlock()
	m.t.Reset(flushInterval)
	return m
}

func (m *latencyWriter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.dst.Write(p)
	if !m.flushPending {
		m.t.Reset(flushInterval)
		m.flushPending = true
	}
	return n, err
}

func (m *latencyWriter) delayedFlush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.flushPending { // stopped or already flushed
		return
	}
	_ = flush(m.dst)
	m.flushPending = false
}

// stop ends the writer's use. It goes back to the pool only when its timer
// was stopped before firing: a callback that fired may still be waiting for
// the lock, and must not find the writer serving another request.
func (m *latencyWriter) stop() {
	m.mu.Lock()
	m.flushPending = false
	m.dst = nil
	stopped := m.t.Stop()
	m.mu.Unlock()
	if stopped {
		latencyWriters.Put(m)
	}
}

// deleteConnectionFields deletes from h the fields the Connection header
// values conn name (they belong to one connection, RFC 9110 7.6.1).
func deleteConnectionFields(h http.Header, conn []string) {
	for _, v := range conn {
		for _, f := range strings.Split(v, ",") {
			if f = textproto.TrimString(f); f != "" {
				delete(h, textproto.CanonicalMIMEHeaderKey(f))
			}
		}
	}
}
