package aggregatortest

import (
	"crypto/x509"
	"log/slog"
	"net/http"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// User is the identity a backend learns from the aggregator's front-proxy
// headers: X-Remote-User (Username), X-Remote-Uid (UID), every
// X-Remote-Group (Groups, in order) and X-Remote-Extra-<key> (Extra, keys
// lower-cased and %-unescaped).
type User = authentication.UserInfo

// RequireFrontProxy wraps h the way a real aggregated API server's
// requestheader authenticator guards it
// (k8s.io/apiserver/pkg/authentication/request/headerrequest): a request
// is let through only when its client certificate chains to
// frontProxyCAPEM (--requestheader-client-ca-file) with CN
// front-proxy-client (--requestheader-allowed-names) and it carries
// X-Remote-User. The identity is then available to h through UserFrom;
// system:authenticated is added to the groups unless present, as the
// backend's authenticator does, and the X-Remote-* headers are removed.
// Anything else is answered 401 with a Status `Unauthorized`. The backend
// must request client certificates (RegisterBackend's does). It panics if
// frontProxyCAPEM holds no certificate.
func RequireFrontProxy(h http.Handler, frontProxyCAPEM []byte) http.Handler {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(frontProxyCAPEM) {
		panic("aggregatortest: RequireFrontProxy: frontProxyCAPEM holds no PEM certificate")
	}
	authn := aggregator.AuthnOptions{RequestHeader: &aggregator.RequestHeaderOptions{
		ClientCA:     func() *x509.CertPool { return pool },
		AllowedNames: []string{certs.FrontProxyClientCN},
	}}
	// WithAuthentication remembers verified chains, as a real backend's
	// authenticator verifies the aggregator's certificate without paying
	// a signature check on every request.
	return aggregator.WithAuthentication(h, authn, slog.New(slog.DiscardHandler))
}

// UserFrom returns the identity RequireFrontProxy found for r, or false
// when r did not pass through RequireFrontProxy.
func UserFrom(r *http.Request) (*User, bool) { return request.UserFrom(r.Context()) }
