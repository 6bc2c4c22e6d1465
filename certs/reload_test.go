package certs

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pairFiles issues a new serving pair from ca and writes it to cert/key.
func writeServing(t *testing.T, ca *CA, cn, certPath, keyPath string) *KeyPair {
	t.Helper()
	kp, err := ca.IssueServing(cn, []string{"localhost"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := kp.WriteFiles(certPath, keyPath); err != nil {
		t.Fatal(err)
	}
	return kp
}

// countingLogger records log lines.
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuf) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSpace(l.buf.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func newLogger() (*slog.Logger, *logBuf) {
	lb := &logBuf{}
	h := slog.NewTextHandler(lb, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}})
	return slog.New(h), lb
}

// TestDynamicCertificateReload checks, driving Reload by hand:
//   - identical content is not a change and does not notify;
//   - a rotated pair is served after Reload and listeners run once;
//   - a broken certificate, a mismatched key or a missing file keeps the
//     previous pair, and each distinct failure is logged once.
func TestDynamicCertificateReload(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca, _ := NewCA("ca", Options{})
	first := writeServing(t, ca, "first", certPath, keyPath)
	logger, logs := newLogger()
	d, err := NewDynamicCertificate(certPath, keyPath, ReloadOptions{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	d.AddListener(func() { calls++ })
	if !d.Current().Leaf.Equal(first.Cert) {
		t.Fatal("initial certificate not served")
	}
	if changed, err := d.Reload(); changed || err != nil {
		t.Fatalf("Reload of unchanged files = %v, %v", changed, err)
	}
	// Rewriting the same bytes (new mtime) is not a change either.
	first.WriteFiles(certPath, keyPath)
	if changed, err := d.Reload(); changed || err != nil || calls != 0 {
		t.Fatalf("Reload of identical content = %v, %v, calls %d", changed, err, calls)
	}

	second := writeServing(t, ca, "second", certPath, keyPath)
	if changed, err := d.Reload(); !changed || err != nil {
		t.Fatalf("Reload after rotation = %v, %v", changed, err)
	}
	if calls != 1 || !d.Current().Leaf.Equal(second.Cert) {
		t.Fatalf("after rotation: calls %d, serving %s", calls, d.Current().Leaf.Subject)
	}
	for _, get := range []func() (*tls.Certificate, error){
		func() (*tls.Certificate, error) { return d.GetCertificate(nil) },
		func() (*tls.Certificate, error) { return d.GetClientCertificate(nil) },
	} {
		if c, err := get(); err != nil || c != d.Current() {
			t.Errorf("getter returned %v, %v", c, err)
		}
	}

	third, _ := ca.IssueServing("third", []string{"localhost"}, nil)
	broken := []struct {
		name       string
		cert, key  []byte
		remove     bool
		wantErrSub string
	}{
		{name: "garbage certificate", cert: []byte("not a cert"), key: third.KeyPEM, wantErrSub: "no CERTIFICATE PEM block found"},
		{name: "empty key", cert: third.CertPEM, key: []byte{}, wantErrSub: "no private key PEM block found"},
		{name: "mismatched key", cert: third.CertPEM, key: second.KeyPEM, wantErrSub: "private key does not match"},
		{name: "missing key", remove: true, wantErrSub: "no such file"},
	}
	for _, b := range broken {
		if b.remove {
			os.Remove(keyPath)
		} else {
			os.WriteFile(certPath, b.cert, 0o644)
			os.WriteFile(keyPath, b.key, 0o600)
		}
		for range 2 { // the second identical failure is not logged again
			changed, err := d.Reload()
			if changed || err == nil || !strings.Contains(err.Error(), b.wantErrSub) {
				t.Errorf("%s: Reload = %v, %v; want error containing %q", b.name, changed, err, b.wantErrSub)
			}
		}
		if !d.Current().Leaf.Equal(second.Cert) || calls != 1 {
			t.Errorf("%s: previous pair not kept (serving %s, calls %d)", b.name, d.Current().Leaf.Subject, calls)
		}
	}
	third.WriteFiles(certPath, keyPath)
	if changed, err := d.Reload(); !changed || err != nil || !d.Current().Leaf.Equal(third.Cert) || calls != 2 {
		t.Fatalf("recovery: %v, %v, calls %d", changed, err, calls)
	}

	lines := logs.lines()
	var levels []string
	for _, l := range lines {
		levels = append(levels, strings.SplitN(l, " ", 2)[0])
	}
	want := []string{"level=INFO", "level=ERROR", "level=ERROR", "level=ERROR", "level=ERROR", "level=INFO"}
	if strings.Join(levels, ",") != strings.Join(want, ",") {
		t.Errorf("log levels %v, want %v; log:\n%s", levels, want, strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[1], `level=ERROR msg="keeping the previous certificate: reload failed" files="[`) {
		t.Errorf("error log line: %s", lines[1])
	}
}

func TestNewDynamicCertificateFailsOnBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewDynamicCertificate(filepath.Join(dir, "a"), filepath.Join(dir, "b"), ReloadOptions{}); err == nil {
		t.Fatal("missing files accepted")
	}
	os.WriteFile(filepath.Join(dir, "ca.crt"), []byte("junk"), 0o644)
	if _, err := NewDynamicCAFile(filepath.Join(dir, "ca.crt"), ReloadOptions{}); err == nil || err.Error() != "no CERTIFICATE PEM block found" {
		t.Fatalf("junk CA accepted: %v", err)
	}
}

// TestDynamicCertificateRun drives Run with an injected tick channel and
// waits for the listener, so nothing depends on timing. It also checks
// that a TLS server using GetCertificate serves the new certificate on the
// next connection.
func TestDynamicCertificateRun(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca, _ := NewCA("ca", Options{})
	writeServing(t, ca, "first", certPath, keyPath)
	ticks := make(chan time.Time)
	logger, _ := newLogger()
	d, err := NewDynamicCertificate(certPath, keyPath, ReloadOptions{Ticks: ticks, FullCheckEvery: 1, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 1)
	d.AddListener(func() { changed <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()

	// A bare TLS listener: httptest would add its own certificate, which
	// crypto/tls prefers over GetCertificate for clients without SNI.
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{GetCertificate: d.GetCertificate})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	servedCN := func() string {
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
	}
	if cn := servedCN(); cn != "first" {
		t.Fatalf("served %q", cn)
	}

	ticks <- time.Time{} // unchanged: no listener call
	writeServing(t, ca, "second", certPath, keyPath)
	ticks <- time.Time{}
	<-changed
	if cn := servedCN(); cn != "second" {
		t.Errorf("after rotation served %q, want second", cn)
	}
	select {
	case <-changed:
		t.Error("listener ran for the unchanged tick")
	default:
	}
	cancel()
	<-done
}

func TestDynamicCAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ca.crt")
	a, _ := NewCA("a", Options{})
	b, _ := NewCA("b", Options{})
	os.WriteFile(path, a.CertPEM, 0o644)
	d, err := NewDynamicCAFile(path, ReloadOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	d.AddListener(func() { calls++ })
	leafB, _ := b.IssueClient("u", nil)
	verifies := func() bool {
		_, err := leafB.Cert.Verify(x509VerifyClient(d))
		return err == nil
	}
	if verifies() || !bytes.Equal(d.PEM(), a.CertPEM) || len(d.Certificates()) != 1 {
		t.Fatal("initial bundle wrong")
	}
	bundle := append(append([]byte{}, a.CertPEM...), b.CertPEM...)
	os.WriteFile(path, bundle, 0o644)
	if changed, err := d.Reload(); !changed || err != nil || calls != 1 {
		t.Fatalf("Reload = %v, %v, calls %d", changed, err, calls)
	}
	if !verifies() || !bytes.Equal(d.PEM(), bundle) || len(d.Certificates()) != 2 {
		t.Fatal("new bundle not served")
	}
	os.WriteFile(path, []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0o644)
	if changed, err := d.Reload(); changed || err == nil {
		t.Fatalf("broken bundle: Reload = %v, %v", changed, err)
	}
	if !verifies() || !bytes.Equal(d.PEM(), bundle) || calls != 1 {
		t.Fatal("broken bundle replaced the previous one")
	}
}

// TestDynamicCertificateConcurrent is for -race: readers run while the
// pair is reloaded.
func TestDynamicCertificateConcurrent(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	ca, _ := NewCA("ca", Options{})
	writeServing(t, ca, "0", certPath, keyPath)
	d, err := NewDynamicCertificate(certPath, keyPath, ReloadOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					if c, _ := d.GetCertificate(nil); c == nil || c.Leaf == nil {
						t.Error("nil certificate")
						return
					}
				}
			}
		}()
	}
	for i := range 5 {
		writeServing(t, ca, string(rune('a'+i)), certPath, keyPath)
		d.Reload()
	}
	close(stop)
	wg.Wait()
	if d.Current().Leaf.Subject.CommonName != "e" {
		t.Errorf("final CN %q", d.Current().Leaf.Subject.CommonName)
	}
}
