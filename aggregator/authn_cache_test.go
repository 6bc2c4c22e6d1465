package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// TestCertVerifierCache checks the verification cache's invariants: a
// verified chain is remembered per parsed leaf and CA pool, a pool swap (CA
// file reload) never reuses a result from the old pool, a failure is
// remembered with its error for that pool only, the same leaf presented
// with another chain is verified again, and the x509 user is built once.
func TestCertVerifierCache(t *testing.T) {
	ca1, ca2 := newTestCA(t, "one"), newTestCA(t, "two")
	carol := ca1.issue(t, "carol")
	req := httptest.NewRequest("GET", "/x", nil)
	req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{carol.Leaf}}

	v := newCertVerifier()
	var first *leafResult
	for i := 0; i < 3; i++ {
		res, err := v.verify(req, ca1.pool)
		if err != nil || res == nil {
			t.Fatalf("verify #%d against ca1: %v %v", i, res, err)
		}
		if first == nil {
			first = res
		} else if res != first {
			t.Fatalf("verify #%d against ca1 verified again instead of using the cache", i)
		}
	}
	entries := func() (leaves, results int) {
		for _, e := range v.byLeaf {
			leaves++
			results += len(e.results)
		}
		return
	}
	if l, n := entries(); l != 1 || n != 1 {
		t.Fatalf("cache holds %d leaves, %d results after three verifications of one chain, want 1 and 1", l, n)
	}
	_, err1 := v.verify(req, ca2.pool)
	if err1 == nil {
		t.Fatal("a chain verified against ca1 was accepted by ca2's pool")
	}
	_, err2 := v.verify(req, ca2.pool)
	if l, n := entries(); err2 == nil || err2.Error() != err1.Error() || l != 1 || n != 2 {
		t.Fatalf("second verification against ca2: %v (first: %v), %d leaves %d results; want the remembered failure, 1 and 2", err2, err1, l, n)
	}
	if res, err := v.verify(req, ca1.pool); err != nil || res != first {
		t.Fatalf("ca1 after a failure against ca2: %v (cached result reused: %v)", err, res == first)
	}

	u1 := v.certUser(first, carol.Leaf)
	u2 := v.certUser(first, carol.Leaf)
	if u1 != u2 || u1.Username != "carol" || len(u1.Groups) != 1 || u1.Groups[0] != GroupAuthenticated {
		t.Fatalf("certUser: %p %p %+v; want one shared user carol in [system:authenticated]", u1, u2, u1)
	}

	// The same leaf with an intermediate after it is another chain.
	other := ca2.issue(t, "other")
	req2 := httptest.NewRequest("GET", "/x", nil)
	req2.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{carol.Leaf, other.Leaf}}
	res, err := v.verify(req2, ca1.pool)
	if err != nil || res == first {
		t.Fatalf("a longer chain reused the short chain's result (err %v)", err)
	}
}

// TestCertVerifierForgetsCollectedLeaf checks that an entry goes away once
// its certificate is garbage (the cache holds it only weakly).
func TestCertVerifierForgetsCollectedLeaf(t *testing.T) {
	ca := newTestCA(t, "one")
	v := newCertVerifier()
	func() {
		leaf, err := x509.ParseCertificate(ca.issue(t, "dave").Leaf.Raw) // a copy only this function holds
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", "/x", nil)
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}
		if _, err := v.verify(req, ca.pool); err != nil {
			t.Fatal(err)
		}
	}()
	for i := 0; i < 100; i++ {
		runtime.GC()
		v.mu.Lock()
		n := len(v.byLeaf)
		v.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the entry of a collected certificate is still cached after 100 GCs")
}

// TestAuthenticationCAReloadBack checks that after the client CA changes
// back, a certificate accepted a moment ago on the same connection is
// refused: the cache is keyed by pool.
func TestAuthenticationCAReloadBack(t *testing.T) {
	ca1, ca2 := newTestCA(t, "one"), newTestCA(t, "two")
	pools := make(chan *x509.CertPool, 1)
	pools <- ca2.pool
	current := func() *x509.CertPool { p := <-pools; pools <- p; return p }
	srv := authnServer(t, ChainOptions{Authn: AuthnOptions{ClientCA: current}})
	c := clientWith(srv, ca2.issue(t, "carol"))
	if res := do(t, c, srv.URL+"/x", nil); res.code != 200 {
		t.Fatalf("with ca2: %d", res.code)
	}
	<-pools
	pools <- ca1.pool
	if res := do(t, c, srv.URL+"/x", nil); res.code != 401 {
		t.Fatalf("after switching to ca1: %d, want 401", res.code)
	}
}
