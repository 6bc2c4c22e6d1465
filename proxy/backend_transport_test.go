package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// closedAddr returns a 127.0.0.1 address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	// A socket bound to a port but not listening: a dial is refused, and
	// the port stays taken until the test ends (a listener closed at
	// once let another test's server take the port, and the dial
	// succeeded).
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}

// TestCaptureChain: the capture handshake sends the proxy's SNI, client
// certificate and ALPN offer, returns the presented chain without
// verifying it, keeps the chain when the backend then refuses the client
// certificate, and reports a failed dial as a *DialError.
func TestCaptureChain(t *testing.T) {
	p := testPKI(t)
	type seen struct {
		serverName string
		alpn       []string
	}
	hello := make(chan seen, 1)
	clientCN := make(chan string, 1)
	record := func(s *httptest.Server) {
		s.TLS.GetConfigForClient = func(chi *tls.ClientHelloInfo) (*tls.Config, error) {
			select {
			case hello <- seen{serverName: chi.ServerName, alpn: chi.SupportedProtos}:
			default:
			}
			return nil, nil
		}
		s.TLS.VerifyConnection = func(cs tls.ConnectionState) error {
			select {
			case clientCN <- cs.PeerCertificates[0].Subject.CommonName:
			default:
			}
			return nil
		}
	}
	stranger := newCA(t, "stranger").issue(t, "stranger", false, "stranger.example")
	tr := NewTransports(TransportOptions{GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return p.client, nil }})

	ok := newBackend(t, nil, withServingCert(stranger), record)
	chain, err := tr.CaptureChain(context.Background(), strings.TrimPrefix(ok.URL, "https://"), "api.wardle.svc")
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) != 1 || chain[0].Subject.CommonName != "stranger" {
		t.Errorf("chain %v, want [CN=stranger]", chain)
	}
	if got := <-hello; got.serverName != "api.wardle.svc" || strings.Join(got.alpn, ",") != "h2,http/1.1" {
		t.Errorf("client hello %+v, want SNI api.wardle.svc, ALPN h2,http/1.1", got)
	}
	if got := <-clientCN; got != "front-proxy-client" {
		t.Errorf("client certificate CN %q, want front-proxy-client", got)
	}

	h1 := NewTransports(TransportOptions{DisableHTTP2: true})
	if _, err := h1.CaptureChain(context.Background(), strings.TrimPrefix(ok.URL, "https://"), "x.example"); err != nil {
		t.Fatal(err)
	}
	if got := <-hello; got.serverName != "x.example" || strings.Join(got.alpn, ",") != "http/1.1" {
		t.Errorf("client hello %+v, want SNI x.example, ALPN http/1.1", got)
	}

	refusing := newBackend(t, nil, withClientCA(newCA(t, "other-client")), func(s *httptest.Server) { s.TLS.MaxVersion = tls.VersionTLS12 })
	chain, err = tr.CaptureChain(context.Background(), strings.TrimPrefix(refusing.URL, "https://"), "api.wardle.svc")
	var de *DialError
	if !errors.As(err, &de) || err.Error() != "remote error: tls: unknown certificate authority" {
		t.Errorf("err %#v, want a *DialError: remote error: tls: unknown certificate authority", err)
	}
	if len(chain) != 1 || chain[0].Subject.CommonName != "api" {
		t.Errorf("chain %v, want [CN=api]", chain)
	}

	addr := closedAddr(t)
	chain, err = tr.CaptureChain(context.Background(), addr, "api.wardle.svc")
	if !errors.As(err, &de) || de.Addr != addr || err.Error() != "dial tcp "+addr+": connect: connection refused" || chain != nil {
		t.Errorf("chain %v err %#v, want none and a *DialError: connection refused", chain, err)
	}

	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if _, err := tr.CaptureChain(ctx, strings.TrimPrefix(ok.URL, "https://"), "api.wardle.svc"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("expired context: err %v, want context.DeadlineExceeded", err)
	}
}
