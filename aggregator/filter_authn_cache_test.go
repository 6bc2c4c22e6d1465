package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"testing"
)

// TestCertVerifierCache checks the verification cache's invariants: a
// verified chain is remembered per CA pool, a pool swap (CA file reload)
// never reuses an entry verified against the old pool, and failures are
// not remembered.
func TestCertVerifierCache(t *testing.T) {
	ca1, ca2 := newTestCA(t, "one"), newTestCA(t, "two")
	carol := ca1.issue(t, "carol")
	req := httptest.NewRequest("GET", "/x", nil)
	req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{carol.Leaf}}

	v := newCertVerifier()
	for i := 0; i < 3; i++ {
		leaf, err := v.verify(req, ca1.pool)
		if err != nil || leaf.Subject.CommonName != "carol" {
			t.Fatalf("verify #%d against ca1: %v %v", i, leaf, err)
		}
	}
	if len(v.ok) != 1 {
		t.Fatalf("cache holds %d entries after three verifications of one chain, want 1", len(v.ok))
	}
	if _, err := v.verify(req, ca2.pool); err == nil {
		t.Fatal("a chain verified against ca1 was accepted by ca2's pool")
	}
	if len(v.ok) != 1 {
		t.Fatalf("a failed verification was cached: %d entries", len(v.ok))
	}
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
