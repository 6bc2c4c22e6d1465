package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// ownConns returns how many connections h's own HTTP/2 path holds.
func ownConns(h *Handler) int {
	b := h.cur.Load()
	if b == nil || b.entry == nil || b.entry.rt.h2 == nil {
		return -1
	}
	c := b.entry.rt.h2
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conns)
}

// ownPathGet returns a client's GET of path that the own HTTP/2 path
// takes (it carries an Accept-Encoding, as kubectl's requests do).
func ownPathGet(path string) *http.Request {
	r := httptest.NewRequest("GET", path, nil)
	r.Header.Set("Accept-Encoding", "gzip")
	return r
}

// netHTTPOnly returns Options whose transports never take the own HTTP/2
// path.
func netHTTPOnly(t testing.TB) Options {
	p := testPKI(t)
	return Options{Transports: NewTransports(TransportOptions{
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return p.client, nil },
		disableOwnHTTP2:      true,
	})}
}

// TestOwnHTTP2MatchesNetHTTP pins the own HTTP/2 path (h2conn.go) to
// net/http's HTTP/2 transport: for each answer the backend must receive
// the same request and the client the same response (code, headers, body,
// trailers) through both, and the own path must have been used.
func TestOwnHTTP2MatchesNetHTTP(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", (5<<20)/16) // beyond the stream window: WINDOW_UPDATEs
	backend := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		switch r.URL.Query().Get("answer") {
		case "big":
			h.Set("Content-Type", "application/octet-stream")
			io.WriteString(w, big)
		case "trailers":
			h.Set("Trailer", "X-Announced")
			h.Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "data: 1\n\n")
			w.(http.Flusher).Flush()
			io.WriteString(w, "data: 2\n\n")
			h.Set("X-Announced", "yes")
			h.Set(http.TrailerPrefix+"X-Unannounced", "also")
		case "chunks":
			h.Set("Content-Type", "application/json")
			for i := range 3 {
				io.WriteString(w, strings.Repeat("x", 100*(i+1))+"\n")
				w.(http.Flusher).Flush()
			}
		case "multi":
			h.Add("X-Multi", "a")
			h.Add("X-Multi", "b")
			h.Set("Cache-Control", "no-cache, private")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"kind":"Status"}`)
		case "empty":
			w.WriteHeader(http.StatusNoContent)
		case "abort": // RST_STREAM INTERNAL_ERROR before any header
			panic(http.ErrAbortHandler)
		case "abort-mid-body":
			h.Set("Content-Type", "application/json")
			io.WriteString(w, `{"partial":`)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		default:
			h.Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
		}
	})
	type exchange struct {
		Received received
		Code     int
		Header   http.Header
		Body     string
		Trailer  http.Header
	}
	own := newTestHandler(t, backend, "127.0.0.1", Options{})
	netHTTP := newTestHandler(t, backend, "127.0.0.1", netHTTPOnly(t))
	run := func(h *Handler, method, target string) exchange {
		t.Helper()
		before := len(backend.received())
		r := httptest.NewRequest(method, target, nil)
		r.RemoteAddr = "192.0.2.7:5555"
		r.Header = http.Header{
			"Accept":          {"application/json"},
			"Accept-Encoding": {"gzip"},
			"User-Agent":      {"kubectl/v1.33.1"},
			"Audit-Id":        {"0b6e4f4e-7a43-4b8e-9a43-5f1e0c3c1d2a"},
			"Te":              {"trailers"},
		}
		w := serve(h, r, testUser())
		res := w.Result()
		got := exchange{Code: res.StatusCode, Header: res.Header.Clone(), Body: w.Body.String(), Trailer: res.Trailer}
		delete(got.Header, "Date")
		if recs := backend.received(); len(recs) > before {
			got.Received = recs[len(recs)-1]
			got.Received.ClientSerial = ""
		}
		return got
	}
	for _, c := range []struct{ name, method, answer string }{
		{"object", "GET", ""},
		{"5 MiB body", "GET", "big"},
		{"event stream with trailers", "GET", "trailers"},
		{"flushed chunks", "GET", "chunks"},
		{"404 with repeated fields", "GET", "multi"},
		{"204", "GET", "empty"},
		{"HEAD", "HEAD", ""},
		{"backend resets the stream", "GET", "abort"},
		{"backend resets the stream mid-body", "GET", "abort-mid-body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := flunderPath + "?b=2&a=1&answer=" + c.answer
			want := run(netHTTP, c.method, target)
			got := run(own, c.method, target)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("own HTTP/2 path differs from net/http's:\n got %s\nwant %s", dump(got), dump(want))
			}
			if got.Received.Proto != "HTTP/2.0" {
				t.Errorf("backend saw %s", got.Received.Proto)
			}
			// The reset cases must exercise what they claim.
			switch c.answer {
			case "abort":
				if want := "error trying to reach service: stream error: stream ID "; got.Code != 503 || !strings.HasPrefix(got.Body, want) {
					t.Errorf("reset: %d %q, want 503 %q...", got.Code, got.Body, want)
				}
			case "abort-mid-body":
				if got.Code != 200 || got.Body != `{"partial":` {
					t.Errorf("reset mid-body: %d %q", got.Code, got.Body)
				}
			}
		})
	}
	if n := ownConns(own); n != 1 {
		t.Errorf("own HTTP/2 path holds %d connections, want 1 (not used?)", n)
	}
	if n := ownConns(netHTTP); n != -1 {
		t.Errorf("net/http-only handler has an own HTTP/2 path (%d connections)", n)
	}
}

// TestOwnHTTP2FallsBack checks the requests the own path leaves to
// net/http: a backend that speaks only HTTP/1.1 (remembered, field names
// canonical on the wire), and a GET without Accept-Encoding (net/http's
// transport asks for gzip itself).
func TestOwnHTTP2FallsBack(t *testing.T) {
	var mu sync.Mutex
	var protos []string
	s := unstartedBackend(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos = append(protos, r.Proto+" "+r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	s.EnableHTTP2 = false
	s.StartTLS()
	t.Cleanup(s.Close)
	h := newTestHandler(t, &testBackend{Server: s}, "127.0.0.1", Options{})
	for range 2 {
		r := ownPathGet(flunderPath)
		if w := serve(h, r, testUser()); w.Code != 200 || w.Body.String() != "ok" {
			t.Fatalf("HTTP/1.1 backend: %d %q", w.Code, w.Body.String())
		}
	}
	if n := ownConns(h); n != 0 {
		t.Errorf("own HTTP/2 path holds %d connections to an HTTP/1.1 backend", n)
	}
	c := h.cur.Load().entry.rt.h2
	c.mu.Lock()
	remembered := len(c.http1)
	c.mu.Unlock()
	if remembered != 1 {
		t.Errorf("HTTP/1.1 backends remembered: %d, want 1", remembered)
	}

	h2b := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos = append(protos, r.Proto+" "+r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		io.WriteString(w, "ok")
	})
	h2h := newTestHandler(t, h2b, "127.0.0.1", Options{})
	r := httptest.NewRequest("GET", flunderPath, nil)
	if w := serve(h2h, r, testUser()); w.Code != 200 || w.Body.String() != "ok" {
		t.Fatalf("no Accept-Encoding: %d %q", w.Code, w.Body.String())
	}
	if n := ownConns(h2h); n != 0 {
		t.Errorf("a GET without Accept-Encoding took the own path (%d connections)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"HTTP/1.1 gzip", "HTTP/1.1 gzip", "HTTP/2.0 gzip"}; !reflect.DeepEqual(protos, want) {
		t.Errorf("backends saw %q, want %q", protos, want)
	}
}

// TestOwnHTTP2CancelResetsStream checks that a client that goes away
// while the backend has not answered ends the backend's request (the
// own path resets the stream) and the handler returns.
func TestOwnHTTP2CancelResetsStream(t *testing.T) {
	arrived, gone := make(chan struct{}), make(chan struct{})
	backend := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(20 * time.Second):
		}
	})
	h := newTestHandler(t, backend, "127.0.0.1", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	r := ownPathGet(flunderPath).WithContext(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(h, r, testUser())
	}()
	guard(t, arrived, "the request reaches the backend")
	cancel()
	guard(t, gone, "the backend's request context ends")
	guard(t, done, "the handler returns")
	if n := ownConns(h); n != 1 {
		t.Errorf("own HTTP/2 path holds %d connections, want 1", n)
	}
}

// rawH2Backend is a TLS HTTP/2 server written on the Framer: for every
// request's HEADERS, answer(conn number from 0, stream, fields) runs on
// the framer; it returns false to close the connection.
func rawH2Backend(t *testing.T, answer func(conn int, fr *http2.Framer, id uint32, fields []hpack.HeaderField) bool) (port string) {
	t.Helper()
	return rawH2BackendWindows(t, answer, nil)
}

// rawH2BackendWindows is rawH2Backend that also hands every WINDOW_UPDATE
// it reads to windowUpdate (when not nil).
func rawH2BackendWindows(t *testing.T, answer func(conn int, fr *http2.Framer, id uint32, fields []hpack.HeaderField) bool, windowUpdate func(*http2.WindowUpdateFrame)) (port string) {
	t.Helper()
	p := testPKI(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{*p.serving}, NextProtos: []string{"h2"},
		ClientCAs: p.frontProxyCA.pool(), ClientAuth: tls.RequireAndVerifyClientCert,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(n int) {
				defer c.Close()
				br := bufio.NewReader(c)
				if _, err := io.ReadFull(br, make([]byte, len(http2.ClientPreface))); err != nil {
					return
				}
				fr := http2.NewFramer(c, br)
				var got []hpack.HeaderField
				dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) { got = append(got, f) })
				_ = fr.WriteSettings()
				for {
					f, err := fr.ReadFrame()
					if err != nil {
						return
					}
					switch f := f.(type) {
					case *http2.SettingsFrame:
						if !f.IsAck() {
							_ = fr.WriteSettingsAck()
						}
					case *http2.WindowUpdateFrame:
						if windowUpdate != nil {
							windowUpdate(f)
						}
					case *http2.HeadersFrame:
						got = got[:0]
						if _, err := dec.Write(f.HeaderBlockFragment()); err != nil {
							return
						}
						if !answer(n, fr, f.StreamID, got) {
							return
						}
					}
				}
			}(n)
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port
}

// writeOK answers stream id 200 "ok".
func writeOK(fr *http2.Framer, id uint32) {
	var buf strings.Builder
	enc := hpack.NewEncoder(&buf)
	_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte(buf.String()), EndHeaders: true})
	_ = fr.WriteData(id, true, []byte("ok"))
}

// TestOwnHTTP2AuditIDNeverIndexed reads the request's HPACK block on the
// wire: Audit-Id is a never-indexed literal, so a new id per request does
// not enter the backend's table; the other fields are indexed as usual.
func TestOwnHTTP2AuditIDNeverIndexed(t *testing.T) {
	fields := make(chan []hpack.HeaderField, 1)
	port := rawH2Backend(t, func(_ int, fr *http2.Framer, id uint32, got []hpack.HeaderField) bool {
		fields <- append([]hpack.HeaderField(nil), got...)
		writeOK(fr, id)
		return true
	})
	h := newTestHandler(t, &testBackend{}, "127.0.0.1", Options{Resolver: staticResolver("127.0.0.1", port)})
	r := ownPathGet(flunderPath)
	r.Header.Set("Audit-Id", "0b6e4f4e-7a43-4b8e-9a43-5f1e0c3c1d2a")
	w := serve(h, r, testUser())
	if w.Code != 200 || w.Body.String() != "ok" {
		t.Fatalf("answer %d %q", w.Code, w.Body.String())
	}
	var got []hpack.HeaderField
	select {
	case got = <-fields:
	case <-time.After(10 * time.Second):
		t.Fatal("no HEADERS")
	}
	sawAuditID := false
	for _, f := range got {
		if f.Name != strings.ToLower(f.Name) {
			t.Errorf("field name %q is not lower-case", f.Name)
		}
		if f.Name == "audit-id" {
			sawAuditID = true
			if !f.Sensitive || f.Value != "0b6e4f4e-7a43-4b8e-9a43-5f1e0c3c1d2a" {
				t.Errorf("audit-id sent as %+v, want never-indexed", f)
			}
		} else if f.Sensitive {
			t.Errorf("%s sent never-indexed", f.Name)
		}
	}
	if !sawAuditID {
		t.Errorf("no audit-id in %+v", got)
	}
}

// TestOwnHTTP2RetriesUnprocessed checks that a request the backend did not
// process (GOAWAY with a lower last stream id, RST_STREAM REFUSED_STREAM)
// is sent again through net/http's transport, on a new connection, as
// net/http's transport retries it, and that the own path then dials anew.
func TestOwnHTTP2RetriesUnprocessed(t *testing.T) {
	for _, c := range []struct {
		name   string
		refuse func(fr *http2.Framer, id uint32) bool
	}{
		{"GOAWAY", func(fr *http2.Framer, id uint32) bool { _ = fr.WriteGoAway(0, http2.ErrCodeNo, nil); return false }},
		{"REFUSED_STREAM", func(fr *http2.Framer, id uint32) bool {
			_ = fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
			return true
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var conns []int
			port := rawH2Backend(t, func(n int, fr *http2.Framer, id uint32, _ []hpack.HeaderField) bool {
				mu.Lock()
				conns = append(conns, n)
				mu.Unlock()
				if n == 0 {
					return c.refuse(fr, id)
				}
				writeOK(fr, id)
				return true
			})
			h := newTestHandler(t, &testBackend{}, "127.0.0.1", Options{Resolver: staticResolver("127.0.0.1", port)})
			for i := range 2 {
				r := ownPathGet(flunderPath)
				if w := serve(h, r, testUser()); w.Code != 200 || w.Body.String() != "ok" {
					t.Fatalf("request %d: %d %q", i, w.Code, w.Body.String())
				}
			}
			mu.Lock()
			defer mu.Unlock()
			// Connection 0 (own path) refused; 1 is net/http's retry; the
			// second request takes the own path again (GOAWAY: a new
			// connection 2; REFUSED_STREAM: connection 0, which refuses
			// again and the retry reuses net/http's connection 1).
			want := map[string][]int{"GOAWAY": {0, 1, 2}, "REFUSED_STREAM": {0, 1, 0, 1}}[c.name]
			if !reflect.DeepEqual(conns, want) {
				t.Errorf("requests arrived on connections %v, want %v", conns, want)
			}
		})
	}
}

// TestOwnHTTP2StreamLimit checks that requests beyond the backend's
// SETTINGS_MAX_CONCURRENT_STREAMS take net/http's transport while the own
// connection stays the pooled one (it is not replaced by a new one).
func TestOwnHTTP2StreamLimit(t *testing.T) {
	var mu sync.Mutex
	var addrs []string
	both := make(chan struct{})
	s := unstartedBackend(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		addrs = append(addrs, r.RemoteAddr)
		if len(addrs) == 3 {
			close(both)
		}
		mu.Unlock()
		if r.URL.Query().Get("wait") != "" {
			select {
			case <-both:
			case <-time.After(10 * time.Second):
			}
		}
		io.WriteString(w, "ok")
	}))
	s.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 1}
	s.StartTLS()
	t.Cleanup(s.Close)
	h := newTestHandler(t, &testBackend{Server: s}, "127.0.0.1", Options{})
	get := func(query string) {
		r := ownPathGet(flunderPath + query)
		if w := serve(h, r, testUser()); w.Code != 200 || w.Body.String() != "ok" {
			t.Errorf("GET %s: %d %q", query, w.Code, w.Body.String())
		}
	}
	get("") // the own connection, which now knows the limit
	c := h.cur.Load().entry.rt.h2
	c.mu.Lock()
	var first *h2Conn
	for _, cc := range c.conns {
		first = cc
	}
	c.mu.Unlock()
	if first != nil {
		// The answer was read to its end: its stream must no longer count
		// against the backend's limit of one (finish), or the next two
		// requests would both miss the own connection.
		first.mu.Lock()
		open := len(first.streams)
		first.mu.Unlock()
		if open != 0 {
			t.Fatalf("%d streams still open on the own connection after the answer was read", open)
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); get("?wait=1") }()
	}
	wg.Wait()
	c.mu.Lock()
	var last *h2Conn
	for _, cc := range c.conns {
		last = cc
	}
	c.mu.Unlock()
	if first == nil || last != first {
		t.Errorf("pooled own connection %p, then %p: want the same", first, last)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(addrs) != 3 || addrs[1] == addrs[2] || (addrs[0] != addrs[1] && addrs[0] != addrs[2]) {
		t.Errorf("requests came from %v: want the two concurrent ones on two connections, one of them the first's", addrs)
	}
}

// TestOwnHTTP2SequentialOneConnection sends requests one after another to a
// backend that allows one stream per connection: each finds the slot its
// predecessor freed, so all share one connection, as with net/http's
// transport (upstream's; 2000 sequential GETs there: one connection).
func TestOwnHTTP2SequentialOneConnection(t *testing.T) {
	var mu sync.Mutex
	addrs := map[string]int{}
	s := unstartedBackend(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		addrs[r.RemoteAddr]++
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	s.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 1}
	s.StartTLS()
	t.Cleanup(s.Close)
	h := newTestHandler(t, &testBackend{Server: s}, "127.0.0.1", Options{})
	const n = 300
	for i := 0; i < n; i++ {
		if w := serve(h, ownPathGet(flunderPath), testUser()); w.Code != 200 || w.Body.String() != "ok" {
			t.Fatalf("GET %d: %d %q", i, w.Code, w.Body.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(addrs) != 1 {
		t.Errorf("%d sequential requests came on %d connections %v; want one", n, len(addrs), addrs)
	}
}

// TestOwnHTTP2ClosedBodyReturnsWindow closes a body whose DATA the own
// path has buffered but nobody read (a client gone mid-answer): the
// connection's window must get those bytes back, as net/http's transport
// gives them back, or every such body shrinks what the backend may still
// send on the connection's other streams.
func TestOwnHTTP2ClosedBodyReturnsWindow(t *testing.T) {
	const unread = 1536 << 10 // beyond h2WindowRefresh, inside the stream window
	connUpdates := make(chan uint32, 16)
	sent := make(chan struct{})
	port := rawH2BackendWindows(t, func(_ int, fr *http2.Framer, id uint32, fields []hpack.HeaderField) bool {
		for _, f := range fields {
			if f.Name == ":path" && strings.HasSuffix(f.Value, "/big") {
				var buf strings.Builder
				enc := hpack.NewEncoder(&buf)
				_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
				_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte(buf.String()), EndHeaders: true})
				chunk := make([]byte, 16<<10)
				for range unread / len(chunk) {
					_ = fr.WriteData(id, false, chunk)
				}
				close(sent)
				return true
			}
		}
		writeOK(fr, id)
		return true
	}, func(f *http2.WindowUpdateFrame) {
		if f.StreamID == 0 {
			connUpdates <- f.Increment
		}
	})
	h := newTestHandler(t, &testBackend{}, "127.0.0.1", Options{Resolver: staticResolver("127.0.0.1", port)})
	r := ownPathGet(flunderPath)
	if w := serve(h, r, testUser()); w.Code != 200 || w.Body.String() != "ok" {
		t.Fatalf("first answer %d %q", w.Code, w.Body.String())
	}
	if n := ownConns(h); n != 1 {
		t.Fatalf("own HTTP/2 path holds %d connections, want 1", n)
	}

	req, err := http.NewRequest("GET", "https://127.0.0.1:"+port+"/big", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := h.cur.Load().entry.rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := res.Body.(*h2Stream)
	if !ok {
		t.Fatalf("body %T did not come from the own path", res.Body)
	}
	<-sent
	buffered := 0
	for range 500 { // until the read loop has buffered every DATA frame
		s.mu.Lock()
		buffered = len(s.buf)
		s.mu.Unlock()
		if buffered == unread {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if buffered != unread {
		t.Fatalf("buffered %d of %d bytes", buffered, unread)
	}
	for len(connUpdates) > 0 { // the connection's first window (its preface) and the first answer's
		<-connUpdates
	}
	res.Body.Close()
	var returned uint32
	deadline := time.After(10 * time.Second)
	for returned < unread {
		select {
		case n := <-connUpdates:
			returned += n
		case <-deadline:
			t.Fatalf("connection window got %d bytes back after closing an unread body of %d, want all of them", returned, unread)
		}
	}
}

// TestOwnHTTP2AnnouncedLengthNoBody pins the response of an answer that
// announces a Content-Length and ends with its headers to what net/http's
// transport makes of it: that ContentLength, and a body that reads
// io.ErrUnexpectedEOF (its missingBody).
func TestOwnHTTP2AnnouncedLengthNoBody(t *testing.T) {
	port := rawH2Backend(t, func(_ int, fr *http2.Framer, id uint32, _ []hpack.HeaderField) bool {
		var buf strings.Builder
		enc := hpack.NewEncoder(&buf)
		_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		_ = enc.WriteField(hpack.HeaderField{Name: "content-length", Value: "5"})
		_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: []byte(buf.String()), EndHeaders: true, EndStream: true})
		return true
	})
	answer := func(opts Options) string {
		opts.Resolver = staticResolver("127.0.0.1", port)
		h := newTestHandler(t, &testBackend{}, "127.0.0.1", opts)
		r := ownPathGet(flunderPath)
		serve(h, r, testUser()) // builds the backend transport
		req, err := http.NewRequest("GET", "https://127.0.0.1:"+port+"/x", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := h.cur.Load().entry.rt.RoundTrip(req)
		if err != nil {
			return "error " + err.Error()
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		return fmt.Sprintf("%d ContentLength %d body %q read error %v", res.StatusCode, res.ContentLength, body, err)
	}
	own, viaNetHTTP := answer(Options{}), answer(netHTTPOnly(t))
	if want := "200 ContentLength 5 body \"\" read error unexpected EOF"; viaNetHTTP != want {
		t.Fatalf("net/http's transport: %s, want %s", viaNetHTTP, want)
	}
	if own != viaNetHTTP {
		t.Errorf("own path: %s, net/http's transport: %s", own, viaNetHTTP)
	}
}

// TestOwnHTTP2ConcurrentHeadersFlushed sends many requests at once on one
// own connection: HEADERS written while another request waits to write
// stay in the buffer for the last writer to flush (unlockHeaders), and
// every request must still reach the backend and be answered.
func TestOwnHTTP2ConcurrentHeadersFlushed(t *testing.T) {
	backend := newBackend(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Query().Get("n"))
	})
	h := newTestHandler(t, backend, "127.0.0.1", Options{})
	const workers, each = 16, 25
	errs := make(chan string, workers*each)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := fmt.Sprint(g*each + i)
				r := ownPathGet(flunderPath + "?n=" + n)
				w := serve(h, r, testUser())
				if w.Code != 200 || w.Body.String() != n {
					errs <- fmt.Sprintf("request %s: %d %q", n, w.Code, w.Body.String())
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a HEADERS frame left unflushed
		t.Fatal("requests still unanswered after 60 s")
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := ownConns(h); n != 1 {
		t.Errorf("own HTTP/2 path holds %d connections, want 1", n)
	}
}

// TestOwnHTTP2DialFailureDialsOnce sends a GET the own path takes to a
// backend that accepts TCP and never answers the TLS handshake: the
// answer must be the main transport's (same code and body as with
// net/http's transport alone) after one connection attempt, not one of
// each path (which doubled the time to fail).
func TestOwnHTTP2DialFailureDialsOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	accepted := 0
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			held = append(held, c) // never answered; closed at the end
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	answer := func(netHTTPOnly bool) (int, string, int) {
		p := testPKI(t)
		h := newTestHandler(t, &testBackend{}, "127.0.0.1", Options{
			Resolver: staticResolver("127.0.0.1", port),
			Transports: NewTransports(TransportOptions{
				GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return p.client, nil },
				TLSHandshakeTimeout:  300 * time.Millisecond,
				disableOwnHTTP2:      netHTTPOnly,
			}),
		})
		mu.Lock()
		before := accepted
		mu.Unlock()
		r := ownPathGet(flunderPath)
		w := serve(h, r, testUser())
		mu.Lock()
		defer mu.Unlock()
		return w.Code, w.Body.String(), accepted - before
	}
	ownCode, ownBody, ownDials := answer(false)
	netCode, netBody, netDials := answer(true)
	if ownCode != netCode || ownBody != netBody {
		t.Errorf("own path answered %d %q, net/http's transport %d %q", ownCode, ownBody, netCode, netBody)
	}
	if ownDials != 1 || netDials != 1 {
		t.Errorf("connections accepted: %d through the own path, %d through net/http's transport; want 1 each", ownDials, netDials)
	}
	if ownCode != http.StatusServiceUnavailable && ownCode != http.StatusBadGateway {
		t.Errorf("answer %d %q, want a 502 or 503 for a backend that does not finish the handshake", ownCode, ownBody)
	}
}
