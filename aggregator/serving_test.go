package aggregator

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/aggsim/aggsim/certs"
)

// TestSecureServerSettings checks upstream's secure-serving limits on the
// wire: the server's first HTTP/2 SETTINGS frame announces 100 concurrent
// streams and 256 KiB frames and stream windows, and the http.Server closes
// idle keep-alive connections after 90 s and bounds header reading.
func TestSecureServerSettings(t *testing.T) {
	ca, err := certs.NewCA("serving-test-ca", certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kp, err := ca.IssueServing("localhost", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSecureServer(http.NotFoundHandler(), &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	if s.IdleTimeout != 90*time.Second || s.ReadHeaderTimeout != 32*time.Second || s.MaxHeaderBytes != 1<<20 {
		t.Errorf("IdleTimeout %v ReadHeaderTimeout %v MaxHeaderBytes %d, want 1m30s 32s 1048576", s.IdleTimeout, s.ReadHeaderTimeout, s.MaxHeaderBytes)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { s.Close() })

	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}) //nolint:gosec // test server
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("negotiated %q, want h2", p)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok {
		t.Fatalf("first frame %T, want SETTINGS", f)
	}
	want := map[http2.SettingID]uint32{
		http2.SettingMaxConcurrentStreams: 100,
		http2.SettingMaxFrameSize:         256 * 1024,
		http2.SettingInitialWindowSize:    256 * 1024,
	}
	for id, v := range want {
		if got, ok := sf.Value(id); !ok || got != v {
			t.Errorf("SETTINGS %v = %d (present %v), want %d", id, got, ok, v)
		}
	}
}
