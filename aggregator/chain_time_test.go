package aggregator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRequestTime checks that requestTime answers the chain's start time
// of the request, through the chain's own context and under contexts
// derived from it, and the clock outside the chain.
func TestRequestTime(t *testing.T) {
	start := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	r := httptest.NewRequest(http.MethodGet, "/apis", nil)
	st := &requestState{Context: r.Context(), start: start}
	in := st.withRequest(r)
	if got := requestTime(in); !got.Equal(start) {
		t.Errorf("in the chain's context: %v, want %v", got, start)
	}
	type k struct{}
	derived := in.WithContext(context.WithValue(in.Context(), k{}, 1))
	if got := requestTime(derived); !got.Equal(start) {
		t.Errorf("under a derived context: %v, want %v", got, start)
	}
	before := time.Now()
	got := requestTime(r)
	if got.Before(before) || got.After(time.Now()) {
		t.Errorf("outside the chain: %v, want the clock's time (after %v)", got, before)
	}
}

// TestChainVerifiesAgainstRequestTime checks that the certificate
// verification a connection remembers is used until the request's start
// time passes its expiry, and not after: a request that entered the chain
// before the expiry still uses it.
func TestChainVerifiesAgainstRequestTime(t *testing.T) {
	ca := newTestCA(t, "time-ca")
	carol := ca.issue(t, "carol")
	ctx := ConnContext(context.Background(), nil)
	state := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{carol.Leaf}}
	req := func(start time.Time) *http.Request {
		r := httptest.NewRequestWithContext(ctx, "GET", "/apis", nil)
		r.TLS = state
		st := &requestState{Context: r.Context(), start: start}
		return st.withRequest(r)
	}
	v := newCertVerifier()
	first, err := v.verify(req(time.Now()), ca.pool)
	if err != nil || first == nil {
		t.Fatalf("verify: %v %v", first, err)
	}
	clear(v.byLeaf) // only the connection remembers now
	if res, err := v.verify(req(first.exp.Add(-time.Millisecond)), ca.pool); err != nil || res != first {
		t.Errorf("a request that started before the expiry: %v (same result: %v), want the remembered result", err, res == first)
	}
	res, err := v.verify(req(first.exp.Add(time.Millisecond)), ca.pool)
	if err != nil || res == first {
		t.Errorf("a request that started after the expiry: %v (same result: %v), want a new verification", err, res == first)
	}
}
