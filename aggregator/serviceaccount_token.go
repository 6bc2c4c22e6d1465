package aggregator

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aggsim/aggsim/internal/uuid4"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/core"
)

// DefaultServiceAccountIssuer is aggsim's --service-account-issuer
// default: the issuer kubeadm (and the reference) give kube-apiserver.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// ServiceAccountKeySource yields the token keys: the signing key and
// every key tokens are verified with (certs.ServiceAccountKeys).
type ServiceAccountKeySource interface {
	Load() (crypto.Signer, []crypto.PublicKey, error)
}

// ServiceAccountTokenOptions configures ServiceAccount tokens as
// kube-apiserver's flags do.
type ServiceAccountTokenOptions struct {
	// Keys signs and verifies tokens; nil: no TokenRequest, no token
	// authentication, no OIDC discovery keys.
	Keys ServiceAccountKeySource
	// Issuers are --service-account-issuer (repeatable): the first is the
	// iss of new tokens, every one is accepted. Empty means
	// [DefaultServiceAccountIssuer].
	Issuers []string
	// APIAudiences are --api-audiences: what a token must be meant for,
	// and the audiences of a TokenRequest that names none. Empty means
	// Issuers[:1], as kube-apiserver defaults them.
	APIAudiences []string
	// MaxExpiration is --service-account-max-token-expiration: longer
	// requests are shortened to it. 0 means no limit.
	MaxExpiration time.Duration
	// JWKSURI is --service-account-jwks-uri; empty means
	// https://<advertise address>:<secure port>/openid/v1/jwks.
	JWKSURI string
}

// ServiceAccount token constants from kube-apiserver 1.33
// (pkg/apis/authentication/validation, pkg/registry/core/serviceaccount).
const (
	// tokenDefaultExpirationSeconds is TokenRequestSpec.expirationSeconds'
	// default (1 hour).
	tokenDefaultExpirationSeconds = 60 * 60
	// tokenMinExpirationSeconds is the shortest lifetime (10 minutes).
	tokenMinExpirationSeconds = 10 * 60
	// tokenMaxExpirationSeconds is the longest lifetime (2^32 s).
	tokenMaxExpirationSeconds = 1 << 32
)

// Usernames and groups of ServiceAccounts
// (k8s.io/apiserver/pkg/authentication/serviceaccount).
const (
	groupServiceAccounts = "system:serviceaccounts"
	// credentialIDKey is the user extra naming the credential
	// ("JTI=<jti>").
	credentialIDKey = "authentication.kubernetes.io/credential-id"
)

// serviceAccountClaims are the private claims of a token
// (pkg/serviceaccount/claims.go: privateClaims).
type serviceAccountClaims struct {
	Kubernetes kubernetesClaims `json:"kubernetes.io,omitempty"`
}

type kubernetesClaims struct {
	Namespace string           `json:"namespace,omitempty"`
	Svcacct   claimRef         `json:"serviceaccount,omitempty"`
	Pod       *claimRef        `json:"pod,omitempty"`
	Secret    *claimRef        `json:"secret,omitempty"`
	Node      *claimRef        `json:"node,omitempty"`
	WarnAfter *jwt.NumericDate `json:"warnafter,omitempty"`
}

type claimRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// serviceAccountTokens issues and checks ServiceAccount tokens.
type serviceAccountTokens struct {
	opts ServiceAccountTokenOptions
	// getServiceAccount returns the live ServiceAccount, or an error.
	getServiceAccount func(ctx context.Context, namespace, name string) (*core.ServiceAccount, error)
	now               func() time.Time
	// kids memoises the key ids of the verification keys (Keys.Load
	// loads them once), computed on the first authentication.
	kidsOnce sync.Once
	kids     []string // "" for a key whose id cannot be computed
}

// newServiceAccountTokens applies the option defaults.
func newServiceAccountTokens(opts ServiceAccountTokenOptions, get func(ctx context.Context, namespace, name string) (*core.ServiceAccount, error), now func() time.Time) *serviceAccountTokens {
	if len(opts.Issuers) == 0 {
		opts.Issuers = []string{DefaultServiceAccountIssuer}
	}
	if len(opts.APIAudiences) == 0 {
		opts.APIAudiences = opts.Issuers[:1]
	}
	return &serviceAccountTokens{opts: opts, getServiceAccount: get, now: now}
}

// keyID is kube-apiserver's key id of a public key (pkg/serviceaccount/
// jwt.go keyIDFromPublicKey): the unpadded base64url SHA-256 of its PKIX
// DER encoding.
func keyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// signatureAlgorithm is the JWS algorithm of a key, as upstream picks it:
// RS256 for RSA, ES256/384/512 by the ECDSA curve.
func signatureAlgorithm(pub crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	}
	return "", fmt.Errorf("unsupported service account key type %T", pub)
}

// issue signs a token for sa with the claims kube-apiserver 1.33 gives
// a TokenRequest (pkg/serviceaccount/claims.go Claims): sub, aud, iat,
// nbf, exp, jti (a random UUID), kubernetes.io{namespace,
// serviceaccount{name,uid}}, iss; the header names alg and kid.
func (t *serviceAccountTokens) issue(sa *core.ServiceAccount, audiences []string, expirationSeconds int64, now time.Time) (string, error) {
	signer, _, err := t.opts.Keys.Load()
	if err != nil {
		return "", err
	}
	alg, err := signatureAlgorithm(signer.Public())
	if err != nil {
		return "", err
	}
	kid, err := keyID(signer.Public())
	if err != nil {
		return "", err
	}
	js, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Algorithm: string(alg), Key: signer, KeyID: kid}}, nil)
	if err != nil {
		return "", err
	}
	public := jwt.Claims{
		Issuer:    t.opts.Issuers[0],
		Subject:   serviceAccountUsernamePrefix + sa.Namespace + ":" + sa.Name,
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		Expiry:    jwt.NewNumericDate(now.Add(time.Duration(expirationSeconds) * time.Second)),
		ID:        uuid4.New(),
	}
	private := serviceAccountClaims{Kubernetes: kubernetesClaims{Namespace: sa.Namespace, Svcacct: claimRef{Name: sa.Name, UID: sa.UID}}}
	// aud is always an array, as upstream's go-jose v2 writes it (v4's
	// Audience writes a single audience as a string).
	aud := struct {
		Audience []string `json:"aud"`
	}{audiences}
	return jwt.Signed(js).Claims(public).Claims(aud).Claims(private).Serialize()
}

// tokenAlgorithms are the JWS algorithms a token may be signed with.
var tokenAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512}

// hasIssuer reports whether token is a JWT whose unverified iss is one of
// the issuers (upstream's hasCorrectIssuer: other tokens are left to
// other authenticators).
func (t *serviceAccountTokens) hasIssuer(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return false
	}
	return slices.Contains(t.opts.Issuers, claims.Issuer)
}

// authenticate checks token as kube-apiserver's ServiceAccount token
// authenticator (pkg/serviceaccount/jwt.go and claims.go): a JWT of
// another issuer is not handled (false, nil); else the signature, the
// audiences (the token's against requested, which nil means the API
// audiences), the time claims and the ServiceAccount (it must exist with
// the uid of the claim) are checked, with upstream's error texts. It
// returns the user (groups system:serviceaccounts and
// system:serviceaccounts:<ns>, extra credential-id JTI=<jti>) and the
// audiences it is valid for.
func (t *serviceAccountTokens) authenticate(ctx context.Context, token string, requested []string) (*authentication.UserInfo, []string, bool, error) {
	if t == nil || t.opts.Keys == nil || !t.hasIssuer(token) {
		return nil, nil, false, nil
	}
	tok, err := jwt.ParseSigned(token, tokenAlgorithms)
	if err != nil {
		return nil, nil, false, nil
	}
	publics, kids, err := t.verificationKeys()
	if err != nil {
		return nil, nil, true, err
	}
	var public jwt.Claims
	var private serviceAccountClaims
	var errs []error
	found := false
	keys := keysFor(publics, kids, tok.Headers[0].KeyID)
	if len(keys) == 0 {
		return nil, nil, true, errors.New("invalid signature, no keys found")
	}
	for _, pub := range keys {
		if err := tok.Claims(pub, &public, &private); err != nil {
			errs = append(errs, err)
			continue
		}
		found = true
		break
	}
	if !found {
		return nil, nil, true, aggregateErrors(errs)
	}
	if !slices.Contains(t.opts.Issuers, public.Issuer) {
		return nil, nil, true, fmt.Errorf("token issuer %q is invalid", public.Issuer)
	}
	tokenAuds := []string(public.Audience)
	if len(tokenAuds) == 0 {
		tokenAuds = t.opts.APIAudiences
	}
	if requested == nil {
		requested = t.opts.APIAudiences
	}
	var auds []string
	for _, a := range tokenAuds {
		if slices.Contains(requested, a) && !slices.Contains(auds, a) {
			auds = append(auds, a)
		}
	}
	if len(auds) == 0 {
		return nil, nil, true, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAuds, requested)
	}
	u, err := t.validate(ctx, &public, &private)
	if err != nil {
		return nil, nil, true, err
	}
	return u, auds, true, nil
}

// verificationKeys returns the verification keys and their key ids
// (keyID, computed once: the keys are loaded once).
func (t *serviceAccountTokens) verificationKeys() ([]crypto.PublicKey, []string, error) {
	_, publics, err := t.opts.Keys.Load()
	if err != nil {
		return nil, nil, err
	}
	t.kidsOnce.Do(func() {
		t.kids = make([]string, len(publics))
		for i, p := range publics {
			t.kids[i], _ = keyID(p)
		}
	})
	return publics, t.kids, nil
}

// keysFor returns the keys to verify a token with key id kid, as
// upstream's static public keys getter (pkg/serviceaccount/jwt.go): every
// key for a token without a key id, else those whose key id (kids, in the
// keys' order) is kid; none is upstream's `invalid signature, no keys
// found` (the caller's error).
func keysFor(publics []crypto.PublicKey, kids []string, kid string) []crypto.PublicKey {
	if kid == "" {
		return publics
	}
	var match []crypto.PublicKey
	for i, p := range publics {
		if kids[i] == kid {
			match = append(match, p)
		}
	}
	return match
}

// aggregateErrors formats errs as apimachinery's NewAggregate: one error
// as itself, several as "[a, b]".
func aggregateErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return errors.New("no keys to verify the token with")
	case 1:
		return errs[0]
	}
	texts := make([]string, len(errs))
	for i, e := range errs {
		texts[i] = e.Error()
	}
	return errors.New("[" + strings.Join(texts, ", ") + "]")
}

// validate is the claims validator of upstream's claims.go: time claims
// (a minute of leeway), the namespace and ServiceAccount claims, and the
// live ServiceAccount with the claimed uid.
func (t *serviceAccountTokens) validate(ctx context.Context, public *jwt.Claims, private *serviceAccountClaims) (*authentication.UserInfo, error) {
	if err := public.ValidateWithLeeway(jwt.Expected{Time: t.now()}, jwt.DefaultLeeway); err != nil {
		switch {
		case errors.Is(err, jwt.ErrExpired):
			return nil, errors.New("service account token has expired")
		case errors.Is(err, jwt.ErrNotValidYet):
			return nil, errors.New("service account token is not valid yet")
		case errors.Is(err, jwt.ErrIssuedInTheFuture):
			return nil, errors.New("service account token is issued in the future")
		}
		return nil, err
	}
	k := private.Kubernetes
	if k.Namespace == "" {
		return nil, errors.New("service account token claims missing namespace")
	}
	if k.Svcacct.Name == "" || k.Svcacct.UID == "" {
		return nil, errors.New("service account token claims missing serviceaccount")
	}
	sa, err := t.getServiceAccount(ctx, k.Namespace, k.Svcacct.Name)
	if err != nil {
		return nil, err // `serviceaccounts "x" not found` (captured)
	}
	if sa.DeletionTimestamp != nil {
		return nil, fmt.Errorf("service account %s/%s has been deleted", k.Namespace, k.Svcacct.Name)
	}
	if sa.UID != k.Svcacct.UID {
		return nil, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, k.Svcacct.UID)
	}
	u := &authentication.UserInfo{
		Username: serviceAccountUsernamePrefix + k.Namespace + ":" + k.Svcacct.Name,
		UID:      k.Svcacct.UID,
		Groups:   []string{groupServiceAccounts, groupServiceAccounts + ":" + k.Namespace},
	}
	if public.ID != "" {
		u.Extra = map[string][]string{credentialIDKey: {"JTI=" + public.ID}}
	}
	return u, nil
}

// TokenAuthenticator authenticates a bearer token: the user, false with
// a nil error when the token is not its kind, or an error when it is and
// fails.
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string) (*authentication.UserInfo, bool, error)
}

// saTokenAuthenticator is serviceAccountTokens as a TokenAuthenticator
// for requests: tokens must be meant for the API audiences.
type saTokenAuthenticator struct{ t *serviceAccountTokens }

// AuthenticateToken checks a ServiceAccount token against the API
// audiences.
func (a saTokenAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authentication.UserInfo, bool, error) {
	u, _, handled, err := a.t.authenticate(ctx, token, nil)
	return u, handled && err == nil, err
}

// authenticator returns t as the bearer-token authenticator of requests,
// nil when there are no keys.
func (t *serviceAccountTokens) authenticator() TokenAuthenticator {
	if t == nil || t.opts.Keys == nil {
		return nil
	}
	return saTokenAuthenticator{t}
}
