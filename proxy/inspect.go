package proxy

import (
	"context"
	"crypto/x509"
	"net/http"
)

// Hop is what one proxied request looked like between aggsim and the
// backend, for the aggregator's inspector (issue 18): where it went, the
// headers sent and received, and the backend's serving certificate. A
// Handler built with Options.RecordHops fills the Hop that the request's
// context answers for HopKey{}; without the option it never looks, so
// recording costs nothing when the inspector is off. Upstream has no such
// record. Only the serving goroutine writes a Hop; read it after ServeHTTP
// returned.
type Hop struct {
	// APIService is the name of the APIService the request was proxied for.
	APIService string
	// Available is the Handler's view of the Available condition; false
	// means the request was answered 503 `service unavailable` without a
	// connection.
	Available bool
	// Address is the host:port spec.service resolved to; empty when it did
	// not resolve.
	Address string
	// ServerName is what the backend's serving certificate is verified for
	// (and sent as SNI): <service>.<namespace>.svc.
	ServerName string
	// RequestHeader is the header sent to the backend, after the
	// credentials and client identity headers were removed and the
	// X-Remote-* and X-Forwarded-* headers set; nil when nothing was sent.
	// It is the outgoing request's own map (not a copy: nothing changes it
	// once sent); read it only.
	RequestHeader http.Header
	// Code is the backend's status code; 0 when it did not answer.
	Code int
	// ResponseHeader is the backend's answer header as passed on:
	// hop-by-hop and CORS headers removed (the response's own map; read
	// it only).
	ResponseHeader http.Header
	// BackendCertificate is the serving certificate the backend presented
	// (verified against spec.caBundle for ServerName); nil without an
	// answer.
	BackendCertificate *x509.Certificate
	// Err is the error that ended the exchange (dial, TLS, reset), if any.
	Err string
}

// HopKey is the context key under which a request's context answers the
// *Hop a Handler built with Options.RecordHops fills.
type HopKey struct{}

// hopFrom returns the Hop ctx carries, or nil.
func hopFrom(ctx context.Context) *Hop {
	hop, _ := ctx.Value(HopKey{}).(*Hop)
	return hop
}

// recordRequest notes the header sent to the backend.
func (c *proxyCall) recordRequest(h http.Header) {
	if c.hop != nil {
		c.hop.RequestHeader = h
	}
}

// recordResponse notes the backend's answer.
func (c *proxyCall) recordResponse(res *http.Response) {
	if c.hop == nil {
		return
	}
	c.hop.Code = res.StatusCode
	c.hop.ResponseHeader = res.Header
	if res.TLS != nil && len(res.TLS.PeerCertificates) > 0 {
		c.hop.BackendCertificate = res.TLS.PeerCertificates[0]
	}
}
