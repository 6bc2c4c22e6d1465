package aggregator

import (
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/go-jose/go-jose/v4"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// Paths of ServiceAccount issuer discovery (kube-apiserver's
// pkg/routes/openidmetadata.go).
const (
	pathOIDCConfiguration = "/.well-known/openid-configuration"
	pathOIDCJWKS          = "/openid/v1/jwks"
)

// oidcCacheControl is the Cache-Control of both documents (captured:
// "public, max-age=3600").
const oidcCacheControl = "public, max-age=3600"

// oidcDiscovery serves the OpenID Connect discovery document and the
// key set of the ServiceAccount issuer as kube-apiserver 1.33 does
// (pkg/serviceaccount/openidmetadata.go): compact JSON, Cache-Control
// public, max-age=3600, GET only (405 Status otherwise), built once on
// first use. Who may read them is the authorizer's business (RBAC:
// system:service-account-issuer-discovery).
type oidcDiscovery struct {
	tokens  *serviceAccountTokens
	jwksURI string

	once   sync.Once
	config []byte
	jwks   []byte
	err    error
}

// newOIDCDiscovery computes the jwks_uri: the configured one, else
// https://<advertise address>:<port>/openid/v1/jwks, as upstream builds it
// from its external address.
func newOIDCDiscovery(tokens *serviceAccountTokens, advertise string, port int) *oidcDiscovery {
	uri := tokens.opts.JWKSURI
	if uri == "" {
		if advertise == "" {
			advertise = "127.0.0.1"
		}
		uri = "https://" + net.JoinHostPort(advertise, strconv.Itoa(port)) + pathOIDCJWKS
	}
	return &oidcDiscovery{tokens: tokens, jwksURI: uri}
}

// build renders both documents: the issuer, jwks_uri and the signing
// algorithms (sorted, deduplicated) of the verification keys; the key set
// with use sig, kid and alg per key, in go-jose's field order.
func (d *oidcDiscovery) build() {
	_, publics, err := d.tokens.opts.Keys.Load()
	if err != nil {
		d.err = err
		return
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	var algs []string
	for _, pub := range publics {
		alg, err := signatureAlgorithm(pub)
		if err != nil {
			d.err = err
			return
		}
		kid, err := keyID(pub)
		if err != nil {
			d.err = err
			return
		}
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: pub, KeyID: kid, Algorithm: string(alg), Use: "sig"})
		if !slices.Contains(algs, string(alg)) {
			algs = append(algs, string(alg))
		}
	}
	slices.Sort(algs)
	config := struct {
		Issuer        string   `json:"issuer"`
		JWKSURI       string   `json:"jwks_uri"`
		ResponseTypes []string `json:"response_types_supported"`
		SubjectTypes  []string `json:"subject_types_supported"`
		SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
	}{d.tokens.opts.Issuers[0], d.jwksURI, []string{"id_token"}, []string{"public"}, algs}
	if d.config, d.err = json.Marshal(config); d.err != nil {
		return
	}
	d.jwks, d.err = json.Marshal(set)
}

// serve writes one of the documents.
func (d *oidcDiscovery) serve(w http.ResponseWriter, r *http.Request, contentType string, body func() []byte) {
	if r.Method != http.MethodGet {
		negotiation.WriteStatus(w, r, meta.NewPathMethodNotAllowed())
		return
	}
	d.once.Do(d.build)
	if d.err != nil {
		negotiation.WriteStatus(w, r, meta.NewInternalError(d.err))
		return
	}
	w.Header().Set("Cache-Control", oidcCacheControl)
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body())
}

// ServeConfiguration answers /.well-known/openid-configuration.
func (d *oidcDiscovery) ServeConfiguration(w http.ResponseWriter, r *http.Request) {
	d.serve(w, r, "application/json", func() []byte { return d.config })
}

// ServeJWKS answers /openid/v1/jwks (application/jwk-set+json).
func (d *oidcDiscovery) ServeJWKS(w http.ResponseWriter, r *http.Request) {
	d.serve(w, r, "application/jwk-set+json", func() []byte { return d.jwks })
}
