package aggregator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestConnVerifications checks the per-connection verification cache: a
// connection's second request gets the first one's result without the
// verifier (whose entries are dropped here to show it), per CA pool; another
// chain on the same connection, or an expired result, is verified again.
func TestConnVerifications(t *testing.T) {
	ca1, ca2 := newTestCA(t, "one"), newTestCA(t, "two")
	carol, other := ca1.issue(t, "carol"), ca2.issue(t, "other")
	ctx := ConnContext(context.Background(), nil)
	state := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{carol.Leaf}}
	req := httptest.NewRequestWithContext(ctx, "GET", "/x", nil)
	req.TLS = state
	if connVerificationsFrom(req) == nil {
		t.Fatal("no connection cache in the connection's context")
	}

	v := newCertVerifier()
	first, err := v.verify(req, ca1.pool)
	if err != nil || first == nil {
		t.Fatalf("verify against ca1: %v %v", first, err)
	}
	_, failed := v.verify(req, ca2.pool)
	if failed == nil {
		t.Fatal("a chain verified against ca1 was accepted by ca2's pool")
	}
	clear(v.byLeaf) // only the connection remembers now
	again := httptest.NewRequestWithContext(ctx, "GET", "/y", nil)
	again.TLS = state
	if res, err := v.verify(again, ca1.pool); err != nil || res != first {
		t.Fatalf("second request on the connection: %v (the first one's result: %v), want the remembered result", err, res == first)
	}
	if _, err := v.verify(again, ca2.pool); err == nil || err.Error() != failed.Error() {
		t.Fatalf("second request against ca2: %v, want the remembered failure %v", err, failed)
	}
	if len(v.byLeaf) != 0 {
		t.Fatalf("the verifier was asked (%d entries) for results the connection remembers", len(v.byLeaf))
	}

	longer := httptest.NewRequestWithContext(ctx, "GET", "/z", nil)
	longer.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{carol.Leaf, other.Leaf}}
	if res, err := v.verify(longer, ca1.pool); err != nil || res == first {
		t.Fatalf("a longer chain on the connection reused the short chain's result (err %v)", err)
	}

	first.exp = time.Now().Add(-time.Second)
	clear(v.byLeaf)
	res, err := v.verify(again, ca1.pool)
	if err != nil || res == first || !time.Now().Before(res.exp) {
		t.Fatalf("after the remembered result expired: %v (same result: %v), want a new verification", err, res == first)
	}
	if res2, _ := v.verify(again, ca1.pool); res2 != res {
		t.Fatal("the new verification was not remembered for the connection")
	}
}

// TestSecureServerConnVerifications checks that NewSecureServer gives every
// connection, HTTP/2 and HTTP/1.1, one cache that all its requests see,
// and another connection another one.
func TestSecureServerConnVerifications(t *testing.T) {
	ca := newTestCA(t, "conn-cache-ca")
	kp, err := ca.ca.IssueServing("localhost", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[*connVerifications]int{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := connVerificationsFrom(r)
		mu.Lock()
		seen[c]++
		mu.Unlock()
	})
	s, err := NewSecureServer(h, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}}, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { s.Close() })
	url := "https://" + ln.Addr().String() + "/"
	for _, proto := range []string{"h2", "http/1.1"} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{proto}}, //nolint:gosec // test server
			ForceAttemptHTTP2: proto == "h2"}
		for range 3 {
			resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if (resp.ProtoMajor == 2) != (proto == "h2") {
				t.Fatalf("%s: served as %s", proto, resp.Proto)
			}
		}
		tr.CloseIdleConnections()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[nil] != 0 {
		t.Fatalf("caches seen by two connections of three requests each: %v, want two caches of 3", seen)
	}
	for c, n := range seen {
		if n != 3 {
			t.Fatalf("cache %p seen by %d requests, want 3", c, n)
		}
	}
}
