package aggregator

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// connVerifications remembers, for one client connection, the
// certVerifier results its requests used, so that the second and later
// requests on the connection find their verification without the
// verifier's lock and weak-pointer lookups (two per request before: the
// front-proxy CA, then the client CA; 20% of the chain's CPU for GET
// /apis, issue 21). NewSecureServer puts one into every connection's
// context (ConnContext); requests without one use the verifier
// alone. A connection's TLS state, and so its presented chain, does not
// change after the handshake; each entry still records the chain it
// verified and is used only for that exact chain (same certificates, by
// pointer) and pool, and only until the result expires, so it answers
// exactly what certVerifier.verify would.
type connVerifications struct {
	entries atomic.Pointer[[]connVerification] // never changed in place: replaced
}

// connVerification is one remembered result.
type connVerification struct {
	chain []*x509.Certificate // the presented chain it is for (r.TLS.PeerCertificates)
	pool  *x509.CertPool
	res   *leafResult
}

// maxConnVerifications bounds a connection's entries (front-proxy and
// client CA pools, and a reload of either).
const maxConnVerifications = 4

type connVerificationsKey struct{}

// ConnContext is an http.Server.ConnContext: it gives the connection
// whose context is ctx its own connVerifications, so that the chain
// verifies a connection's client certificate chain once per CA pool
// rather than looking the verification up for every request.
// NewSecureServer sets it; a server of aggsim's chain built otherwise can
// set it too. aggsim's own (upstream caches verifications in its x509
// authenticator by chain hash, for every request).
func ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connVerificationsKey{}, &connVerifications{})
}

// connVerificationsFrom returns r's connection cache, or nil.
func connVerificationsFrom(r *http.Request) *connVerifications {
	c, _ := r.Context().Value(connVerificationsKey{}).(*connVerifications)
	return c
}

// get returns the remembered result for chain against pool, or nil when
// there is none or it expired at now.
func (c *connVerifications) get(chain []*x509.Certificate, pool *x509.CertPool, now time.Time) *leafResult {
	p := c.entries.Load()
	if p == nil {
		return nil
	}
	for _, e := range *p {
		if e.pool == pool && sameCertificates(e.chain, chain) && now.Before(e.res.exp) {
			return e.res
		}
	}
	return nil
}

// put remembers res for chain against pool, replacing what was
// remembered for that pool and dropping the oldest entry when full.
func (c *connVerifications) put(chain []*x509.Certificate, pool *x509.CertPool, res *leafResult) {
	for {
		old := c.entries.Load()
		next := make([]connVerification, 0, maxConnVerifications)
		if old != nil {
			for _, e := range *old {
				if e.pool != pool {
					next = append(next, e)
				}
			}
		}
		if len(next) >= maxConnVerifications {
			next = append(next[:0], next[1:]...)
		}
		next = append(next, connVerification{chain: chain, pool: pool, res: res})
		if c.entries.CompareAndSwap(old, &next) {
			return
		}
	}
}

// sameCertificates reports whether a and b hold the same parsed
// certificates in the same order.
func sameCertificates(a, b []*x509.Certificate) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
