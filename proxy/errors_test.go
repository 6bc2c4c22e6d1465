package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestClassifyErrorValues classifies errors built by hand: the Handler's
// own refusals, the resolver's typed errors, wrapped or not.
func TestClassifyErrorValues(t *testing.T) {
	refused := &DialError{Addr: "127.0.0.1:1", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}
	cases := []struct {
		name string
		err  error
		want ErrorKind
	}{
		{"nil", nil, ErrorKindNone},
		{"client cancelled", fmt.Errorf("proxy: %w", context.Canceled), ErrorKindNone},
		{"unavailable", ErrServiceUnavailable, ErrorKindUnavailable},
		{"service not found", &ServiceNotFoundError{Namespace: "n", Name: "s"}, ErrorKindResolve},
		{"service port", &ServicePortError{Namespace: "n", Name: "s", Port: 443}, ErrorKindResolve},
		{"endpoints not found", &EndpointsNotFoundError{Namespace: "n", Name: "s"}, ErrorKindResolve},
		{"missing endpoints, wrapped", fmt.Errorf("x: %w", &MissingEndpointsError{}), ErrorKindResolve},
		{"unsupported service type", &UnsupportedServiceTypeError{Type: "Weird"}, ErrorKindResolve},
		{"dial refused", refused, ErrorKindDial},
		{"dial refused, wrapped", fmt.Errorf("x: %w", refused), ErrorKindDial},
		{"handshake EOF", &DialError{Addr: "a", Err: io.EOF}, ErrorKindDial},
		{"handshake deadline", &DialError{Addr: "a", Err: context.DeadlineExceeded}, ErrorKindDial},
		{"record header", &DialError{Addr: "a", Err: tls.RecordHeaderError{Msg: "tls: first record does not look like a TLS handshake"}}, ErrorKindTLS},
		{"unknown authority", &DialError{Addr: "a", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, ErrorKindTLS},
		{"quic alert", tls.AlertError(42), ErrorKindTLS},
		{"ca bundle", errors.New("unable to load root certificates: unable to parse bytes as PEM block"), ErrorKindOther},
		{"stream reset", errors.New("http2: stream reset"), ErrorKindOther},
		{"tls text not at the root", errors.New("backend said: tls: no"), ErrorKindOther},
	}
	for _, tc := range cases {
		if got := ClassifyError(tc.err); got != tc.want {
			t.Errorf("%s: ClassifyError(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}

// errorOf sends one request through a Handler for b's address (or addr
// when not empty) and returns the error OnRequest reported with the code.
func errorOf(t *testing.T, b *testBackend, addr string, upgrade bool, topts ...func(*Target)) (int, error) {
	t.Helper()
	var m metricSink
	opts := Options{OnRequest: m.record}
	if addr != "" {
		host, port, _ := net.SplitHostPort(addr)
		opts.Resolver = staticResolver(host, port)
	}
	h := newTestHandler(t, b, "127.0.0.1", opts, topts...)
	r := newRequest(flunderPath)
	if upgrade {
		r.Header.Set("Connection", "Upgrade")
		r.Header.Set("Upgrade", "websocket")
	}
	serve(h, r, testUser())
	got := m.last(t)
	return got.code, got.err
}

// rawTLSServer accepts connections on 127.0.0.1 and runs the server side
// of a TLS handshake with cfg on each, then closes it.
func rawTLSServer(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				_ = c.(*tls.Conn).Handshake()
				c.Close()
			}()
		}
	}()
	return ln.Addr().String()
}

// closingServer accepts connections on 127.0.0.1, reads the client's
// first TLS record (the ClientHello) and closes the connection, so the
// client reads EOF where it expects the ServerHello.
func closingServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var hdr [5]byte
				if _, err := io.ReadFull(c, hdr[:]); err != nil {
					return
				}
				_, _ = io.CopyN(io.Discard, c, int64(hdr[3])<<8|int64(hdr[4]))
			}()
		}
	}()
	return ln.Addr().String()
}

// commonNameOnly issues a serving certificate from ca with CN cn and no
// SAN at all (certs refuses to issue one).
func commonNameOnly(t *testing.T, ca *testCA, cn string) *tls.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(42),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    ca.ca.Cert.NotBefore,
		NotAfter:     ca.ca.Cert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leaf := ca.issue(t, "donor", false, "donor.example")
	der, err := x509.CreateCertificate(nil, tmpl, ca.ca.Cert, leaf.Leaf.PublicKey, ca.ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: leaf.PrivateKey}
}

// TestClassifyErrorHandshakes classifies the errors real failed
// connections give through a Handler, and shows which of them crypto/tls
// types: typed is whether isTLSError recognises the error without its
// "tls: " text fallback. The unparsable certificate is the one a
// crypto/tls error with no type at all reports.
func TestClassifyErrorHandshakes(t *testing.T) {
	p := testPKI(t)
	plain := httptest.NewUnstartedServer(http.NotFoundHandler())
	plain.Config.ErrorLog = log.New(io.Discard, "", 0)
	plain.Start()
	t.Cleanup(plain.Close)
	junk := *p.serving
	junk.Certificate = [][]byte{[]byte("junk")}
	tls12 := func(s *httptest.Server) { s.TLS.MaxVersion = tls.VersionTLS12 }

	cases := []struct {
		name     string
		backend  []backendOption
		addr     string // "" means the backend's
		upgrade  bool
		topts    []func(*Target)
		wantMsg  string
		wantDial bool // a *DialError
		typed    bool
		want     ErrorKind
		noSAN    bool
	}{
		{name: "ok", want: ErrorKindNone},
		{name: "unknown authority", topts: []func(*Target){withCABundle(newCA(t, "other").pem)},
			wantMsg: "tls: failed to verify certificate: x509: certificate signed by unknown authority", wantDial: true, typed: true, want: ErrorKindTLS},
		{name: "hostname mismatch", backend: []backendOption{withServingCert(p.servingCA.issue(t, "x", false, "x.example"))},
			wantMsg: "tls: failed to verify certificate: x509: certificate is valid for x.example, not api.wardle.svc", wantDial: true, typed: true, want: ErrorKindTLS},
		{name: "common name only", backend: []backendOption{withServingCert(commonNameOnly(t, p.servingCA, "api.wardle.svc"))},
			wantMsg: "tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead", wantDial: true, typed: true, want: ErrorKindTLS, noSAN: true},
		{name: "not a TLS server", addr: strings.TrimPrefix(plain.URL, "http://"),
			wantMsg: "tls: first record does not look like a TLS handshake", wantDial: true, typed: true, want: ErrorKindTLS},
		{name: "client certificate rejected, TLS 1.2", backend: []backendOption{withClientCA(newCA(t, "other-client")), tls12},
			wantMsg: "remote error: tls: unknown certificate authority", wantDial: true, typed: true, want: ErrorKindTLS},
		{name: "client certificate rejected, TLS 1.2, upgrade", backend: []backendOption{withClientCA(newCA(t, "other-client")), tls12}, upgrade: true,
			wantMsg: "remote error: tls: unknown certificate authority", wantDial: true, typed: true, want: ErrorKindTLS},
		// Over HTTP/1.1 (the upgrade transport) the alert comes back as
		// is; over HTTP/2 the transport sometimes reports only its own
		// untyped "http2: client conn could not be established" (other).
		{name: "client certificate rejected, TLS 1.3 (after the handshake)", backend: []backendOption{withClientCA(newCA(t, "other-client"))}, upgrade: true,
			wantMsg: "remote error: tls: unknown certificate authority", typed: true, want: ErrorKindTLS},
		{name: "unparsable serving certificate", addr: rawTLSServer(t, &tls.Config{Certificates: []tls.Certificate{junk}}),
			wantMsg: "tls: failed to parse certificate from server: x509: malformed certificate", wantDial: true, want: ErrorKindTLS},
		{name: "connection closed in the handshake", addr: closingServer(t),
			wantMsg: "EOF", wantDial: true, want: ErrorKindDial},
		{name: "connection refused", addr: closedAddr(t),
			wantMsg: "dial tcp ADDR: connect: connection refused", wantDial: true, want: ErrorKindDial},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend(t, nil, tc.backend...)
			code, err := errorOf(t, b, tc.addr, tc.upgrade, tc.topts...)
			if got := ClassifyError(err); got != tc.want {
				t.Errorf("ClassifyError(%v) = %q, want %q", err, got, tc.want)
			}
			if got := IsMissingSAN(err); got != tc.noSAN {
				t.Errorf("IsMissingSAN(%v) = %v, want %v", err, got, tc.noSAN)
			}
			if tc.want == ErrorKindNone {
				if err != nil || code != http.StatusOK {
					t.Errorf("code %d err %v, want 200 and no error", code, err)
				}
				return
			}
			if code != http.StatusServiceUnavailable {
				t.Errorf("code %d, want 503", code)
			}
			// When the alert arrives after the handshake, net/http reports it
			// from its read loop, sometimes with this prefix (a race inside
			// the transport); the error and its kind are the same.
			msg := strings.TrimPrefix(err.Error(), "readLoopPeekFailLocked: ")
			if want := strings.ReplaceAll(tc.wantMsg, "ADDR", tc.addr); msg != want {
				t.Errorf("error %q, want %q", err, want)
			}
			var de *DialError
			if got := errors.As(err, &de); got != tc.wantDial {
				t.Errorf("errors.As(*DialError) = %v, want %v", got, tc.wantDial)
			}
			if tc.want == ErrorKindTLS {
				if got := typedTLSError(err); got != tc.typed {
					t.Errorf("typedTLSError(%v) = %v, want %v", err, got, tc.typed)
				}
			}
		})
	}
}
