package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"testing"
)

// TestCertVerifierCache checks the verification cache's invariants: a
// verified chain is remembered per CA pool, a pool swap (CA file reload)
// never reuses an entry verified against the old pool, and a failure is
// remembered with its error for that pool only.
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
	if len(v.seen) != 1 {
		t.Fatalf("cache holds %d entries after three verifications of one chain, want 1", len(v.seen))
	}
	_, err1 := v.verify(req, ca2.pool)
	if err1 == nil {
		t.Fatal("a chain verified against ca1 was accepted by ca2's pool")
	}
	_, err2 := v.verify(req, ca2.pool)
	if err2 == nil || err2.Error() != err1.Error() || len(v.seen) != 2 {
		t.Fatalf("second verification against ca2: %v (first: %v), %d entries; want the remembered failure and 2 entries", err2, err1, len(v.seen))
	}
	if _, err := v.verify(req, ca1.pool); err != nil {
		t.Fatalf("ca1 after a failure against ca2: %v", err)
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
