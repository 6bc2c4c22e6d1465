package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Client is the backend transport's own HTTP/2 path (issue 21): one
// connection per backend address, built on golang.org/x/net/http2's Framer
// and hpack, for the requests that need nothing else (h2Eligible: GET and
// HEAD without a body, with the client's own Accept-Encoding). Against
// net/http's HTTP/2 transport it writes the request's HEADERS from the
// caller's goroutine (no goroutine per request), sends Audit-Id as a
// never-indexed literal (a new value per request would otherwise be added
// to both sides' HPACK tables and evict the constant identity and
// X-Forwarded-* entries), writes field names lower-case from a cache and
// decodes response field names to canonical ones from a per-connection
// cache.
//
// Everything it does not handle goes to the main transport, whose
// answers and errors stay what they were: a backend that negotiates
// HTTP/1.1 (remembered per address until CloseIdleConnections), a
// connection at its peer's stream limit or going away, a header the
// transport would refuse, a stream the peer refuses. A dial or handshake
// that fails is reported as the main transport's dial reports it (the
// same *DialError), without a second dial. Once the request's
// HEADERS are out, errors are reported as net/http's HTTP/2 transport
// reports them: io.ErrUnexpectedEOF for a connection lost, the context's
// error for a cancelled request, "stream error: stream ID n; CODE;
// received from peer" for a reset.
type h2Client struct {
	dialer *tlsDialer // ALPN h2, http/1.1

	mu      sync.Mutex
	conns   map[string]*h2Conn // addr → the connection new requests use
	http1   map[string]bool    // addrs that negotiated HTTP/1.1
	dialing map[string]bool    // addrs being dialled (others fall back meanwhile)
}

// Settings of the client side, as net/http's HTTP/2 transport uses them
// (transportDefaultConnFlow, transportDefaultStreamFlow,
// initialMaxConcurrentStreams, defaultMaxHeaderListSize).
const (
	h2ConnWindow       = 1 << 30
	h2StreamWindow     = 4 << 20
	h2WindowRefresh    = 1 << 20 // a WINDOW_UPDATE once this much was read
	h2InitialMaxStream = 100
	h2MaxHeaderList    = 10 << 20
	h2MaxReadFrame     = 1 << 20 // SETTINGS_MAX_FRAME_SIZE announced (net/http's defaultMaxReadFrameSize)
	h2HealthInterval   = 15 * time.Second
	h2MaxRemembered    = 256 // addrs kept in http1 at most
	h2MaxCanonNames    = 512 // per-connection cache of response field names
)

// errH2Fallback marks a request h2Conn did not send: the main transport
// takes it.
var errH2Fallback = errors.New("proxy: not sent on the HTTP/2 fast path")

// errH2BodyClosed is what reading a closed body returns (net/http's
// HTTP/2 transport: errClosedResponseBody).
var errH2BodyClosed = errors.New("http2: response body closed")

// errH2ConnLost ends the streams of a connection whose health check got
// no answer (net/http's HTTP/2 transport: errClientConnLost).
var errH2ConnLost = errors.New("http2: client connection lost")

// newH2Client returns the fast path for dialer, or nil when requests may
// go through an HTTP proxy (the environment names one), which only the
// main transport speaks.
func newH2Client(dialer *tlsDialer) *h2Client {
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		if os.Getenv(k) != "" {
			return nil
		}
	}
	return &h2Client{dialer: dialer, conns: map[string]*h2Conn{}, http1: map[string]bool{}, dialing: map[string]bool{}}
}

// h2Eligible reports whether req is one the fast path sends: GET or HEAD
// over https without a body or trailers, with the client's own
// Accept-Encoding (without one net/http's transport asks for gzip itself
// and decompresses transparently), without cookies (which it splits), and
// without Expect.
func h2Eligible(req *http.Request) bool {
	return (req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		(req.Body == nil || req.Body == http.NoBody) && req.ContentLength == 0 &&
		req.URL.Scheme == "https" && len(req.Trailer) == 0 && !req.Close &&
		len(req.Header["Accept-Encoding"]) > 0 && len(req.Header["Cookie"]) == 0 && len(req.Header["Expect"]) == 0
}

// roundTrip sends req on a connection to req.URL.Host. err is
// errH2Fallback when it did not send it.
func (c *h2Client) roundTrip(req *http.Request) (*http.Response, error) {
	addr := req.URL.Host
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, errH2Fallback
	}
	cc, err := c.conn(req.Context(), addr)
	if err != nil {
		return nil, err
	}
	if cc == nil {
		return nil, errH2Fallback
	}
	return cc.roundTrip(req)
}

// conn returns the usable connection to addr, dialling one when there is
// none, or nil when the request should take the main transport. A dial or
// handshake that fails is the request's error (a *DialError, what the
// main transport's dial would report): dialling again through the main
// transport would double the time a request to an unresponsive backend
// takes to fail.
func (c *h2Client) conn(ctx context.Context, addr string) (*h2Conn, error) {
	c.mu.Lock()
	if cc := c.conns[addr]; cc != nil {
		alive, free := cc.state()
		if alive {
			c.mu.Unlock()
			if !free {
				return nil, nil // at the peer's stream limit: the main transport takes the excess
			}
			return cc, nil
		}
	}
	if c.http1[addr] || c.dialing[addr] {
		c.mu.Unlock()
		return nil, nil
	}
	c.dialing[addr] = true
	c.mu.Unlock()

	nc, err := c.dialer.dialTLS(ctx, "tcp", addr)
	if err != nil {
		c.mu.Lock()
		delete(c.dialing, addr)
		c.mu.Unlock()
		return nil, err
	}
	var cc *h2Conn
	tc := nc.(*tls.Conn)
	if tc.ConnectionState().NegotiatedProtocol != "h2" {
		tc.Close()
		c.mu.Lock()
		if len(c.http1) < h2MaxRemembered {
			c.http1[addr] = true
		}
		delete(c.dialing, addr)
		c.mu.Unlock()
		return nil, nil
	}
	if cc, err = newH2Conn(c, addr, tc); err != nil {
		tc.Close()
	}
	c.mu.Lock()
	delete(c.dialing, addr)
	if cc != nil {
		c.conns[addr] = cc
	}
	c.mu.Unlock()
	return cc, nil // nil when the preface could not be written: the main transport takes the request
}

// forget drops cc from the pool when it is addr's current connection.
func (c *h2Client) forget(cc *h2Conn) {
	c.mu.Lock()
	if c.conns[cc.addr] == cc {
		delete(c.conns, cc.addr)
	}
	c.mu.Unlock()
}

// closeIdle closes the connections without streams, lets the others
// finish theirs and then close, and forgets which backends spoke
// HTTP/1.1.
func (c *h2Client) closeIdle() {
	c.mu.Lock()
	conns := c.conns
	c.conns = map[string]*h2Conn{}
	clear(c.http1)
	c.mu.Unlock()
	for _, cc := range conns {
		cc.drain()
	}
}

// h2Conn is one HTTP/2 client connection of h2Client.
type h2Conn struct {
	client   *h2Client
	addr     string
	tc       *tls.Conn
	tlsState *tls.ConnectionState

	wmu sync.Mutex // guards the writing side: bw, fr's writes, henc, hbuf, nextID
	// headerWriters counts the requests holding or waiting for wmu to
	// write their HEADERS (lockHeaders, unlockHeaders).
	headerWriters atomic.Int32
	bw            *bufio.Writer
	fr            *http2.Framer
	henc          *hpack.Encoder
	hbuf          bytes.Buffer
	nextID        uint32

	mu            sync.Mutex // guards what follows
	streams       map[uint32]*h2Stream
	maxStreams    uint32 // the peer's SETTINGS_MAX_CONCURRENT_STREAMS
	maxFrame      uint32 // the peer's SETTINGS_MAX_FRAME_SIZE
	maxHeaderList uint32 // the peer's SETTINGS_MAX_HEADER_LIST_SIZE; 0: no limit
	goingAway     bool   // GOAWAY received or drain called: no new streams
	err           error  // set once the connection is dead
	idleSince     time.Time
	pingSent      time.Time // zero: no health ping outstanding
	connUnacked   uint32    // DATA read but not yet returned to the peer
	timer         *time.Timer

	lastRead atomic.Int64 // unix nanoseconds of the last frame read

	canon map[string]string // read loop only: lower-case → canonical names
}

// newH2Conn starts the connection: preface, SETTINGS, the connection
// window, and the read loop.
func newH2Conn(c *h2Client, addr string, tc *tls.Conn) (*h2Conn, error) {
	st := tc.ConnectionState()
	cc := &h2Conn{
		client: c, addr: addr, tc: tc, tlsState: &st,
		bw:         bufio.NewWriterSize(tc, 16<<10),
		nextID:     1,
		streams:    map[uint32]*h2Stream{},
		maxStreams: h2InitialMaxStream,
		maxFrame:   16 << 10,
		idleSince:  time.Now(),
		canon:      map[string]string{},
	}
	cc.fr = http2.NewFramer(cc.bw, bufio.NewReaderSize(tc, 16<<10))
	cc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	cc.fr.MaxHeaderListSize = h2MaxHeaderList
	cc.fr.SetMaxReadFrameSize(h2MaxReadFrame)
	cc.henc = hpack.NewEncoder(&cc.hbuf)
	cc.lastRead.Store(time.Now().UnixNano())
	_ = tc.SetWriteDeadline(time.Now().Add(c.dialer.timeout))
	if _, err := cc.bw.WriteString(http2.ClientPreface); err != nil {
		return nil, err
	}
	if err := cc.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2StreamWindow},
		http2.Setting{ID: http2.SettingMaxFrameSize, Val: h2MaxReadFrame},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: h2MaxHeaderList},
	); err != nil {
		return nil, err
	}
	if err := cc.fr.WriteWindowUpdate(0, h2ConnWindow-65535); err != nil {
		return nil, err
	}
	if err := cc.bw.Flush(); err != nil {
		return nil, err
	}
	_ = tc.SetWriteDeadline(time.Time{})
	cc.timer = time.AfterFunc(h2HealthInterval, cc.healthCheck)
	go cc.readLoop()
	return cc, nil
}

// state reports whether cc may still take streams (not dead, not going
// away) and whether it has room for one more now.
func (cc *h2Conn) state() (alive, free bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	alive = cc.err == nil && !cc.goingAway
	return alive, alive && uint32(len(cc.streams)) < cc.maxStreams
}

// h2Stream is one request on an h2Conn; once the response headers are in,
// it is the response's Body.
type h2Stream struct {
	cc     *h2Conn
	id     uint32
	reqp   *http.Request
	ctx    context.Context
	notify chan struct{} // cap 1: something below changed

	reqres *http.Response // the response (set before it is handed out; Read's use)

	mu       sync.Mutex // guards what follows
	res      *http.Response
	trailer  http.Header // trailers received, until Read reaches EOF
	err      error       // the stream's end other than EOF
	buf      []byte
	off      int
	eof      bool   // END_STREAM seen: buf is all there is
	closed   bool   // Close called
	unacked  uint32 // read but not yet returned to the peer's stream window
	finished bool   // removed from cc.streams
}

func (s *h2Stream) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// roundTrip writes req's HEADERS and waits for the response's.
func (cc *h2Conn) roundTrip(req *http.Request) (*http.Response, error) {
	s := &h2Stream{cc: cc, reqp: req, ctx: req.Context(), notify: make(chan struct{}, 1)}
	cc.lockHeaders()
	cc.mu.Lock()
	if cc.err != nil || cc.goingAway || uint32(len(cc.streams)) >= cc.maxStreams {
		cc.mu.Unlock()
		cc.unlockHeaders()
		return nil, errH2Fallback
	}
	maxFrame, maxList := cc.maxFrame, cc.maxHeaderList
	cc.mu.Unlock()
	if !cc.encodeHeaders(req, maxList) {
		cc.unlockHeaders()
		return nil, errH2Fallback // the main transport reports what is wrong
	}
	cc.mu.Lock()
	if cc.err != nil {
		cc.mu.Unlock()
		cc.unlockHeaders()
		return nil, errH2Fallback
	}
	s.id = cc.nextID
	cc.nextID += 2
	cc.streams[s.id] = s
	cc.mu.Unlock()
	err := cc.writeHeaders(s.id, cc.hbuf.Bytes(), maxFrame)
	if ferr := cc.unlockHeaders(); err == nil {
		err = ferr
	}
	if err != nil {
		// Nothing was answered: the main transport retries the GET, as
		// net/http's retries a request on a connection that failed.
		cc.closeWithError(err)
		return nil, errH2Fallback
	}

	for {
		s.mu.Lock()
		res, serr := s.res, s.err
		s.mu.Unlock()
		switch {
		case res != nil:
			return res, nil
		case serr == errH2Fallback:
			return nil, errH2Fallback
		case serr != nil:
			return nil, serr
		}
		select {
		case <-s.notify:
		case <-s.ctx.Done():
			s.cancel(s.ctx.Err())
			return nil, s.ctx.Err()
		}
	}
}

// encodeHeaders writes req's header block into cc.hbuf as net/http's
// HTTP/2 transport would (pseudo-fields, then the fields without the
// connection-specific ones, User-Agent's first value unless empty), with
// Audit-Id never indexed. It returns false for a request the main
// transport must answer (an invalid name or value, a TE other than
// trailers, a block over the peer's limit). Called with cc.wmu held.
func (cc *h2Conn) encodeHeaders(req *http.Request, maxList uint32) bool {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	path := req.URL.RequestURI()
	if !httpguts.ValidHostHeader(host) || path == "" || path[0] != '/' {
		return false
	}
	// Check everything first: the encoder's table changes with every
	// field written, so a block must not be abandoned half-way.
	size := uint32(len(":authority") + len(host) + len(":method") + len(req.Method) + len(":path") + len(path) + len(":scheme") + len("https") + 4*32)
	for k, vv := range req.Header {
		name, ok := lowerFieldName(k)
		if !ok {
			return false
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) || name == "te" && !strings.EqualFold(v, "trailers") {
				return false
			}
			size += uint32(len(name) + len(v) + 32)
		}
	}
	if maxList != 0 && size > maxList {
		return false
	}
	cc.hbuf.Reset()
	write := func(name, value string, sensitive bool) {
		_ = cc.henc.WriteField(hpack.HeaderField{Name: name, Value: value, Sensitive: sensitive})
	}
	write(":authority", host, false)
	write(":method", req.Method, false)
	write(":path", path, false)
	write(":scheme", "https", false)
	sawUA := false
	for k, vv := range req.Header {
		name, _ := lowerFieldName(k) // checked above
		switch name {
		case "host", "content-length", "connection", "proxy-connection", "transfer-encoding", "upgrade", "keep-alive":
			continue
		case "user-agent":
			sawUA = true
			if len(vv) == 0 || vv[0] == "" {
				continue
			}
			vv = vv[:1]
		}
		for _, v := range vv {
			write(name, v, name == "audit-id")
		}
	}
	if !sawUA {
		write("user-agent", "Go-http-client/2.0", false)
	}
	return true
}

// lockHeaders takes the writing side for a request's HEADERS, counting
// the request among those waiting to write (headerWriters).
func (cc *h2Conn) lockHeaders() {
	cc.headerWriters.Add(1)
	cc.wmu.Lock()
}

// unlockHeaders releases what lockHeaders took. The frames written stay
// in the buffer while another request waits to write its HEADERS: the
// last of a run of requests flushes them all in one write (one TLS
// record, one system call, one read for the backend) instead of one each.
// The count falls to zero in exactly one holder of the lock, which then
// flushes, so no frame is left in the buffer. It returns the flush's
// error.
func (cc *h2Conn) unlockHeaders() error {
	var err error
	if cc.headerWriters.Add(-1) == 0 && cc.bw.Buffered() > 0 {
		err = cc.bw.Flush()
	}
	cc.wmu.Unlock()
	return err
}

// writeHeaders writes the block as HEADERS (and CONTINUATION) frames that
// end the stream; unlockHeaders flushes them. Called with cc.wmu held.
func (cc *h2Conn) writeHeaders(id uint32, block []byte, maxFrame uint32) error {
	first := true
	for first || len(block) > 0 {
		chunk := block
		if uint32(len(chunk)) > maxFrame {
			chunk = chunk[:maxFrame]
		}
		block = block[len(chunk):]
		var err error
		if first {
			err = cc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: chunk, EndStream: true, EndHeaders: len(block) == 0})
			first = false
		} else {
			err = cc.fr.WriteContinuation(id, len(block) == 0, chunk)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// lowerNames caches the lower-case form of the canonical field names
// requests carry (a few dozen in practice; at most maxLowerNames are kept,
// since names come from clients).
var (
	lowerNames     sync.Map // canonical → lower-case
	lowerNameCount atomic.Int32
)

const maxLowerNames = 1024

// lowerFieldName returns the lower-case form of the field name k, false
// when k is not a valid field name.
func lowerFieldName(k string) (string, bool) {
	if v, ok := lowerNames.Load(k); ok {
		return v.(string), true
	}
	if !httpguts.ValidHeaderFieldName(k) {
		return "", false
	}
	l := strings.ToLower(k)
	if lowerNameCount.Load() < maxLowerNames {
		if _, loaded := lowerNames.LoadOrStore(k, l); !loaded {
			lowerNameCount.Add(1)
		}
	}
	return l, true
}

// readLoop reads every frame of the connection until it fails.
func (cc *h2Conn) readLoop() {
	for {
		f, err := cc.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				if s := cc.stream(se.StreamID); s != nil {
					s.fail(se, true)
				}
				continue
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			cc.closeWithError(err)
			return
		}
		cc.lastRead.Store(time.Now().UnixNano())
		switch f := f.(type) {
		case *http2.MetaHeadersFrame:
			cc.onHeaders(f)
		case *http2.DataFrame:
			cc.onData(f)
		case *http2.RSTStreamFrame:
			if s := cc.stream(f.StreamID); s != nil {
				err := error(http2.StreamError{StreamID: f.StreamID, Code: f.ErrCode, Cause: errors.New("received from peer")})
				if f.ErrCode == http2.ErrCodeRefusedStream {
					err = errH2Fallback // not processed: the main transport retries it
				}
				s.fail(err, false)
			}
		case *http2.SettingsFrame:
			if !f.IsAck() {
				cc.onSettings(f)
			}
		case *http2.PingFrame:
			if f.IsAck() {
				cc.mu.Lock()
				cc.pingSent = time.Time{}
				cc.mu.Unlock()
			} else {
				cc.write(func() error { return cc.fr.WritePing(true, f.Data) })
			}
		case *http2.GoAwayFrame:
			cc.onGoAway(f)
		case *http2.WindowUpdateFrame: // no DATA is ever sent
		default: // PUSH_PROMISE (disabled), unknown frames: ignored
		}
	}
}

// write runs fn with the writing side held and flushes; an error ends the
// connection.
func (cc *h2Conn) write(fn func() error) {
	cc.wmu.Lock()
	err := fn()
	if err == nil {
		err = cc.bw.Flush()
	}
	cc.wmu.Unlock()
	if err != nil {
		cc.closeWithError(err)
	}
}

// stream returns the live stream id, or nil.
func (cc *h2Conn) stream(id uint32) *h2Stream {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.streams[id]
}

func (cc *h2Conn) onSettings(f *http2.SettingsFrame) {
	cc.mu.Lock()
	_ = f.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			cc.maxStreams = s.Val
		case http2.SettingMaxFrameSize:
			cc.maxFrame = s.Val
		case http2.SettingMaxHeaderListSize:
			cc.maxHeaderList = s.Val
		}
		return nil
	})
	cc.mu.Unlock()
	cc.write(func() error {
		if v, ok := f.Value(http2.SettingHeaderTableSize); ok {
			cc.henc.SetMaxDynamicTableSize(v)
		}
		return cc.fr.WriteSettingsAck()
	})
}

func (cc *h2Conn) onGoAway(f *http2.GoAwayFrame) {
	cc.mu.Lock()
	cc.goingAway = true
	var late []*h2Stream
	for id, s := range cc.streams {
		if id > f.LastStreamID {
			late = append(late, s)
		}
	}
	cc.mu.Unlock()
	cc.client.forget(cc)
	for _, s := range late {
		s.fail(errH2Fallback, false) // not processed: the main transport retries it
	}
	cc.closeIfDone()
}

// onHeaders handles a response's HEADERS (or trailers).
func (cc *h2Conn) onHeaders(f *http2.MetaHeadersFrame) {
	s := cc.stream(f.StreamID)
	if s == nil {
		return // cancelled: the decoder state is all that mattered
	}
	s.mu.Lock()
	if s.res != nil { // trailers: Read copies them into res.Trailer at EOF
		s.mu.Unlock()
		trailer := http.Header{}
		for _, hf := range f.RegularFields() {
			k := cc.canonical(hf.Name)
			trailer[k] = append(trailer[k], hf.Value)
		}
		cc.finish(s) // before a reader can see the end: see finish
		s.mu.Lock()
		s.trailer = trailer
		s.eof = true
		s.mu.Unlock()
		s.wake()
		return
	}
	s.mu.Unlock()
	code, err := strconv.Atoi(f.PseudoValue("status"))
	if err != nil || code < 100 || code > 999 {
		s.fail(errors.New("malformed response from server: malformed non-numeric status pseudo header"), true)
		return
	}
	if code < 200 {
		return // interim (1xx) answers are not relayed on this path
	}
	fields := f.RegularFields()
	header := make(http.Header, len(fields))
	strs := make([]string, len(fields)) // one block for the single values
	var trailer http.Header
	for _, hf := range fields {
		k := cc.canonical(hf.Name)
		if k == "Trailer" { // announced trailers: keys of res.Trailer, not a field
			for _, t := range strings.Split(hf.Value, ",") {
				if t = textproto.TrimString(t); t != "" {
					if trailer == nil {
						trailer = http.Header{}
					}
					trailer[textproto.CanonicalMIMEHeaderKey(t)] = nil
				}
			}
			continue
		}
		vv := header[k]
		if vv == nil && len(strs) > 0 {
			vv, strs = strs[:1:1], strs[1:]
			vv[0] = hf.Value
			header[k] = vv
		} else {
			header[k] = append(vv, hf.Value)
		}
	}
	res := &http.Response{
		Status:     strconv.Itoa(code) + " " + http.StatusText(code),
		StatusCode: code,
		Proto:      "HTTP/2.0",
		ProtoMajor: 2,
		Header:     header,
		Trailer:    trailer,
		Request:    s.reqp,
		TLS:        cc.tlsState,
	}
	ended := f.StreamEnded()
	isHead := res.Request.Method == http.MethodHead
	// Content-Length and the body as net/http's HTTP/2 transport sets
	// them: the field when it is one number, 0 for a GET's answer that
	// ended with its headers, else unknown; an answer that ended with its
	// headers but announced a length reads io.ErrUnexpectedEOF.
	res.ContentLength = -1
	if cl := header["Content-Length"]; len(cl) == 1 {
		if n, err := strconv.ParseUint(cl[0], 10, 63); err == nil {
			res.ContentLength = int64(n)
		}
	} else if len(cl) == 0 && ended && !isHead {
		res.ContentLength = 0
	}
	switch {
	case isHead:
		res.Body = http.NoBody
	case ended && res.ContentLength > 0:
		res.Body = missingBody{}
	case ended:
		res.Body = http.NoBody
	default:
		res.Body = s
	}
	s.reqres = res
	if ended {
		cc.finish(s) // before a reader can see the end: see finish
	}
	s.mu.Lock()
	s.res = res
	s.eof = s.eof || ended
	s.mu.Unlock()
	s.wake()
	if !ended && isHead {
		s.cancel(nil)
	}
}

// missingBody is the body of an answer that announced a length and ended
// with its headers (net/http's HTTP/2 transport: missingBody).
type missingBody struct{}

func (missingBody) Close() error             { return nil }
func (missingBody) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// canonical returns the canonical form of a response field name,
// from the connection's cache. Called from the read loop only.
func (cc *h2Conn) canonical(name string) string {
	if v, ok := cc.canon[name]; ok {
		return v
	}
	v := textproto.CanonicalMIMEHeaderKey(name)
	if len(cc.canon) < h2MaxCanonNames {
		cc.canon[name] = v
	}
	return v
}

// onData appends a DATA frame's payload to its stream's buffer.
func (cc *h2Conn) onData(f *http2.DataFrame) {
	data := f.Data()
	pad := f.Length - uint32(len(data)) // returned at once
	s := cc.stream(f.StreamID)
	if s == nil {
		cc.returnFlow(nil, f.Length)
		return
	}
	ended := f.StreamEnded()
	if ended {
		cc.finish(s) // before a reader can see the end: see finish
	}
	s.mu.Lock()
	if s.closed || s.err != nil {
		s.mu.Unlock()
		cc.returnFlow(nil, f.Length)
		return
	}
	s.buf = append(s.buf, data...)
	if ended {
		s.eof = true
	}
	s.mu.Unlock()
	s.wake()
	if pad > 0 {
		cc.returnFlow(s, pad)
	}
}

// returnFlow gives n bytes back to the peer's windows: the connection's,
// and s's (nil: the stream is gone) once enough has accumulated.
func (cc *h2Conn) returnFlow(s *h2Stream, n uint32) {
	var connInc, streamInc uint32
	cc.mu.Lock()
	cc.connUnacked += n
	if cc.connUnacked >= h2WindowRefresh {
		connInc, cc.connUnacked = cc.connUnacked, 0
	}
	cc.mu.Unlock()
	if s != nil {
		s.mu.Lock()
		if !s.eof && !s.closed {
			s.unacked += n
			if s.unacked >= h2WindowRefresh {
				streamInc, s.unacked = s.unacked, 0
			}
		}
		s.mu.Unlock()
	}
	if connInc == 0 && streamInc == 0 {
		return
	}
	cc.write(func() error {
		if connInc > 0 {
			if err := cc.fr.WriteWindowUpdate(0, connInc); err != nil {
				return err
			}
		}
		if streamInc > 0 {
			return cc.fr.WriteWindowUpdate(s.id, streamInc)
		}
		return nil
	})
}

// Read reads the response body: what DATA frames brought, then io.EOF, or
// the stream's error; a cancelled request context ends it with the
// context's error (and resets the stream).
func (s *h2Stream) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return 0, errH2BodyClosed
		}
		if n := len(s.buf) - s.off; n > 0 {
			n = copy(p, s.buf[s.off:])
			s.off += n
			if s.off == len(s.buf) {
				s.buf, s.off = s.buf[:0], 0
			}
			s.mu.Unlock()
			s.cc.returnFlow(s, uint32(n))
			return n, nil
		}
		if s.eof {
			trailer := s.trailer
			s.trailer = nil
			s.mu.Unlock()
			if trailer != nil {
				// In the reader's goroutine, as net/http's transport
				// does: the caller reads res.Trailer after EOF.
				if s.reqres.Trailer == nil {
					s.reqres.Trailer = http.Header{}
				}
				for k, vv := range trailer {
					s.reqres.Trailer[k] = vv
				}
			}
			return 0, io.EOF
		}
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			return 0, err
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-s.ctx.Done():
			s.cancel(s.ctx.Err())
		}
	}
}

// Close ends the body; an unfinished stream is reset (CANCEL). What was
// received and not read is given back to the connection's window, as
// net/http's transport does when a body is closed early: otherwise every
// body closed unread would shrink the window for the connection's other
// streams until the backend could send nothing more on it.
func (s *h2Stream) Close() error {
	s.mu.Lock()
	done := s.eof || s.err != nil
	unread := len(s.buf) - s.off
	s.closed = true
	s.buf, s.off = nil, 0
	s.mu.Unlock()
	if !done {
		s.cancel(nil)
	}
	if unread > 0 {
		s.cc.returnFlow(nil, uint32(unread))
	}
	return nil
}

// cancel ends the stream from this side: RST_STREAM(CANCEL) unless it
// already ended, err (when not nil) recorded for readers.
func (s *h2Stream) cancel(err error) {
	s.mu.Lock()
	if err != nil && s.err == nil && !s.eof {
		s.err = err
	}
	s.mu.Unlock()
	if s.cc.finish(s) {
		s.cc.write(func() error { return s.cc.fr.WriteRSTStream(s.id, http2.ErrCodeCancel) })
	}
	s.wake()
}

// fail ends the stream with err; reset says whether to send RST_STREAM
// (an error this side found).
func (s *h2Stream) fail(err error, reset bool) {
	s.mu.Lock()
	if s.err == nil && !s.eof {
		s.err = err
	}
	s.mu.Unlock()
	s.wake()
	if s.cc.finish(s) && reset {
		s.cc.write(func() error { return s.cc.fr.WriteRSTStream(s.id, http2.ErrCodeProtocol) })
	}
}

// finish removes s from the connection; it reports whether s was still
// there. A stream the peer ended (END_STREAM) is removed before its reader
// can see the end: it no longer counts against the peer's
// MAX_CONCURRENT_STREAMS, and a client that reads an answer to its end and
// sends the next request must find the slot free, not fall back to the
// main transport's connections (TestOwnHTTP2StreamLimit).
func (cc *h2Conn) finish(s *h2Stream) bool {
	cc.mu.Lock()
	_, ok := cc.streams[s.id]
	if ok {
		delete(cc.streams, s.id)
		if len(cc.streams) == 0 {
			cc.idleSince = time.Now()
		}
	}
	cc.mu.Unlock()
	if ok {
		cc.closeIfDone()
	}
	return ok
}

// closeIfDone closes a connection that is going away and has no streams.
func (cc *h2Conn) closeIfDone() {
	cc.mu.Lock()
	done := cc.goingAway && len(cc.streams) == 0 && cc.err == nil
	cc.mu.Unlock()
	if done {
		cc.closeWithError(net.ErrClosed)
	}
}

// drain closes cc once its streams are done (now if it has none).
func (cc *h2Conn) drain() {
	cc.mu.Lock()
	cc.goingAway = true
	cc.mu.Unlock()
	cc.closeIfDone()
}

// closeWithError ends the connection: every stream fails with err.
func (cc *h2Conn) closeWithError(err error) {
	cc.mu.Lock()
	if cc.err != nil {
		cc.mu.Unlock()
		return
	}
	cc.err = err
	streams := cc.streams
	cc.streams = map[uint32]*h2Stream{}
	cc.mu.Unlock()
	cc.timer.Stop()
	cc.client.forget(cc)
	cc.tc.Close()
	for _, s := range streams {
		s.mu.Lock()
		if s.err == nil && !s.eof {
			s.err = err
		}
		s.mu.Unlock()
		s.wake()
	}
}

// healthCheck runs every h2HealthInterval: it closes a connection idle
// for defaultIdleConnTimeout, pings one that read nothing for
// defaultHTTP2ReadIdle and closes it when the ping is not answered within
// defaultHTTP2PingTimeout (the main transport's settings).
func (cc *h2Conn) healthCheck() {
	now := time.Now()
	last := time.Unix(0, cc.lastRead.Load())
	cc.mu.Lock()
	if cc.err != nil {
		cc.mu.Unlock()
		return
	}
	idle := len(cc.streams) == 0 && now.Sub(cc.idleSince) >= defaultIdleConnTimeout
	lost := !cc.pingSent.IsZero() && now.Sub(cc.pingSent) >= defaultHTTP2PingTimeout && !last.After(cc.pingSent)
	ping := !idle && !lost && cc.pingSent.IsZero() && now.Sub(last) >= defaultHTTP2ReadIdle
	if ping {
		cc.pingSent = now
	}
	cc.mu.Unlock()
	switch {
	case idle:
		cc.closeWithError(net.ErrClosed)
		return
	case lost:
		cc.closeWithError(errH2ConnLost)
		return
	case ping:
		cc.write(func() error { return cc.fr.WritePing(false, [8]byte{'a', 'g', 'g', 's', 'i', 'm'}) })
	}
	cc.timer.Reset(h2HealthInterval)
}
