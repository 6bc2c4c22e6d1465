package aggregator

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/storage"
)

// The reference answers are in ../testdata/serviceaccounts (README.md
// there says how each was captured from kube-apiserver 1.33.13;
// compare.sh ran the same requests against both servers).
const saTestdata = "../testdata/serviceaccounts/"

// runTokenServer runs a Server with ServiceAccount tokens whose keys
// are generated into a fresh PKI directory, reachable as
// https://127.0.0.1:17300 (the reference's address, for jwks_uri).
func runTokenServer(t *testing.T) *Server {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	s, _ := runServer(t, Options{Storage: st, Anonymous: true, SecurePort: 17300,
		ServiceAccountTokens: ServiceAccountTokenOptions{Keys: certs.NewServiceAccountKeys(t.TempDir(), "", nil)}})
	sa := serviceAccountGetter(s.API())
	waitFor(t, "default ServiceAccount", func() bool { _, err := sa(context.Background(), "default", "default"); return err == nil })
	return s
}

// serveReq sends one request through the server's handler chain.
func serveReq(s *Server, method, path, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

var tokenVolatile = regexp.MustCompile(`"(token|creationTimestamp|time|expirationTimestamp|uid)":"[^"]*"`)

// TestTokenRequestReference sends each request of tokenrequest-ref.txt
// and expects kube-apiserver 1.33.13's answer: defaulted expirationSeconds
// and audiences, metadata from the ServiceAccount, managedFields of
// subresource token, the lifetime limits, the bound-object errors (aggsim
// serves no Pods, Secrets or Nodes: upstream's answer for a missing one),
// the name and namespace rules, and 405 for GET.
func TestTokenRequestReference(t *testing.T) {
	s := runTokenServer(t)
	f, err := os.Open(saTestdata + "tokenrequest-ref.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		body, want, _ := strings.Cut(sc.Text(), "\t")
		method, path := "POST", "/api/v1/namespaces/default/serviceaccounts/default/token?fieldManager=cmp"
		switch {
		case body == "GET":
			method, body = "GET", ""
		case strings.HasPrefix(body, "nosuch "):
			body, path = strings.TrimPrefix(body, "nosuch "), strings.Replace(path, "/default/token", "/nosuch/token", 1)
		}
		w := serveReq(s, method, path, body)
		var buf bytes.Buffer
		if err := json.Compact(&buf, w.Body.Bytes()); err != nil {
			t.Fatalf("%s: %v: %s", body, err, w.Body)
		}
		if got := tokenVolatile.ReplaceAllString(buf.String(), `"$1":"X"`); got != want {
			t.Errorf("%s %s\n got %s\nwant %s", method, body, got, want)
		}
		n++
	}
	if n != 16 {
		t.Errorf("%d cases, want 16", n)
	}
}

// createToken requests a token for default/<name> and returns it.
func createToken(t *testing.T, s *Server, name, body string) string {
	t.Helper()
	w := serveReq(s, "POST", "/api/v1/namespaces/default/serviceaccounts/"+name+"/token", body)
	if w.Code != http.StatusCreated {
		t.Fatalf("token: %d %s", w.Code, w.Body)
	}
	var tr struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// jwtPart decodes part i (0 header, 1 claims) of token.
func jwtPart(t *testing.T, token string, i int) []byte {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shape replaces every string and number in v by its type, keeping keys
// and nesting.
func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = shape(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = shape(e)
		}
		return out
	}
	return reflect.TypeOf(v).String()
}

// TestTokenClaims: the header and claims of a token have the reference
// token's keys, in its order (ref-token.txt), and upstream's values:
// aud an array, exp = iat + 3600, nbf = iat, sub and kubernetes.io from
// the ServiceAccount, kid the key's id.
func TestTokenClaims(t *testing.T) {
	s := runTokenServer(t)
	ref, err := os.ReadFile(saTestdata + "ref-token.txt")
	if err != nil {
		t.Fatal(err)
	}
	refHeader, refClaims, _ := strings.Cut(strings.TrimSpace(string(ref)), "\n")
	token := createToken(t, s, "default", `{"spec":{}}`)
	header, claims := jwtPart(t, token, 0), jwtPart(t, token, 1)
	keyOrder := regexp.MustCompile(`"([a-z.]+)":`)
	if got, want := keyOrder.FindAllString(string(claims), -1), keyOrder.FindAllString(refClaims, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("claim keys %v, want %v", got, want)
	}
	var gotC, wantC, gotH, wantH map[string]any
	for _, p := range []struct {
		b []byte
		v *map[string]any
	}{{claims, &gotC}, {[]byte(refClaims), &wantC}, {header, &gotH}, {[]byte(refHeader), &wantH}} {
		if err := json.Unmarshal(p.b, p.v); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(shape(gotC), shape(wantC)) || !reflect.DeepEqual(shape(gotH), shape(wantH)) {
		t.Errorf("token %s %s, want the shape of %s %s", header, claims, refHeader, refClaims)
	}
	_, pubs, err := s.opts.ServiceAccountTokens.Keys.Load()
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := keyID(pubs[0])
	sa, _ := serviceAccountGetter(s.API())(context.Background(), "default", "default")
	iat := gotC["iat"].(float64)
	k8s := gotC["kubernetes.io"].(map[string]any)
	if gotH["alg"] != "RS256" || gotH["kid"] != kid || gotC["exp"].(float64)-iat != 3600 || gotC["nbf"] != iat ||
		gotC["iss"] != DefaultServiceAccountIssuer || gotC["sub"] != "system:serviceaccount:default:default" ||
		!reflect.DeepEqual(gotC["aud"], []any{DefaultServiceAccountIssuer}) || k8s["namespace"] != "default" ||
		!reflect.DeepEqual(k8s["serviceaccount"], map[string]any{"name": "default", "uid": sa.UID}) {
		t.Errorf("token %s %s", header, claims)
	}
}

var reviewVolatile = regexp.MustCompile(`"uid":"[^"]*"|JTI=[0-9a-f-]+`)

// TestTokenReviewServiceAccount reviews tokens as tokenreview-ref.txt's
// cases, in its order, and expects the reference's statuses: audiences
// intersected with those asked for, upstream's audience and signature
// errors joined to "invalid bearer token".
func TestTokenReviewServiceAccount(t *testing.T) {
	s := runTokenServer(t)
	if w := serveReq(s, "POST", "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"trc"}}`); w.Code != http.StatusCreated {
		t.Fatal(w.Code, w.Body)
	}
	tok := createToken(t, s, "trc", `{"spec":{}}`)
	tokA := createToken(t, s, "trc", `{"spec":{"audiences":["foo"]}}`)
	ref, err := os.ReadFile(saTestdata + "tokenreview-ref.txt")
	if err != nil {
		t.Fatal(err)
	}
	wants := strings.Split(strings.TrimSpace(string(ref)), "\n")
	specs := []string{
		`{"token":"` + tok + `"}`, `{"token":"` + tok + `","audiences":["foo"]}`,
		`{"token":"` + tokA + `"}`, `{"token":"` + tokA + `","audiences":["foo","bar"]}`,
		`{"token":"` + tok + `x"}`, `{"token":"a.b.c"}`,
	}
	if len(wants) != len(specs) {
		t.Fatalf("%d reference answers for %d cases", len(wants), len(specs))
	}
	for i, spec := range specs {
		w := serveReq(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", `{"spec":`+spec+`}`)
		var got struct {
			Status json.RawMessage `json:"status"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusCreated {
			t.Fatalf("case %d: %d %s", i, w.Code, w.Body)
		}
		// The reference's uids and JTIs are X already.
		norm := reviewVolatile.ReplaceAllStringFunc(string(got.Status), func(m string) string {
			if strings.HasPrefix(m, "JTI=") {
				return "JTI=X"
			}
			return `"uid":"X"`
		})
		var g, want any
		if err := json.Unmarshal([]byte(norm), &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(wants[i]), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, want) {
			t.Errorf("case %d: %s\nwant %s", i, norm, wants[i])
		}
	}
}

// TestServiceAccountBearerToken: a token authenticates requests as its
// ServiceAccount (`kubectl auth whoami` on the reference: the user, the
// ServiceAccount's uid, its groups and the credential id), one for
// another audience is 401, and after the ServiceAccount is deleted (or
// recreated with another uid) the token no longer authenticates.
func TestServiceAccountBearerToken(t *testing.T) {
	s := runTokenServer(t)
	if w := serveReq(s, "POST", "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"bob"}}`); w.Code != http.StatusCreated {
		t.Fatal(w.Code, w.Body)
	}
	sa, _ := serviceAccountGetter(s.API())(context.Background(), "default", "bob")
	tok := createToken(t, s, "bob", `{"spec":{}}`)
	claims := jwtPart(t, tok, 1)
	var c struct {
		JTI string `json:"jti"`
	}
	_ = json.Unmarshal(claims, &c)
	whoami := func(token string) *httptest.ResponseRecorder {
		return serveReq(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, "Authorization", "Bearer "+token)
	}
	w := whoami(tok)
	want := `{"username":"system:serviceaccount:default:bob","uid":"` + sa.UID + `","groups":["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"],"extra":{"authentication.kubernetes.io/credential-id":["JTI=` + c.JTI + `"]}}`
	if w.Code != http.StatusCreated || !strings.Contains(w.Body.String(), `"userInfo":`+want) {
		t.Errorf("whoami: %d %s\nwant userInfo %s", w.Code, w.Body, want)
	}
	if w := whoami(createToken(t, s, "bob", `{"spec":{"audiences":["foo"]}}`)); w.Code != http.StatusUnauthorized {
		t.Errorf("token for audience foo: %d %s", w.Code, w.Body)
	}
	if w := serveReq(s, "DELETE", "/api/v1/namespaces/default/serviceaccounts/bob", ""); w.Code != http.StatusOK {
		t.Fatal(w.Code, w.Body)
	}
	if w := whoami(tok); w.Code != http.StatusUnauthorized {
		t.Errorf("token of a deleted ServiceAccount: %d %s", w.Code, w.Body)
	}
	if w := serveReq(s, "POST", "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"bob"}}`); w.Code != http.StatusCreated {
		t.Fatal(w.Code, w.Body)
	}
	if w := whoami(tok); w.Code != http.StatusUnauthorized {
		t.Errorf("token of a recreated ServiceAccount: %d %s", w.Code, w.Body)
	}
}

// staticKeys is a ServiceAccountKeySource of fixed public keys.
type staticKeys []crypto.PublicKey

func (k staticKeys) Load() (crypto.Signer, []crypto.PublicKey, error) { return nil, k, nil }

// TestOIDCDiscoveryReference: with the reference's public key, aggsim's
// /openid/v1/jwks and /.well-known/openid-configuration are the
// reference's bytes (kid, n, e, field order, jwks_uri of
// https://127.0.0.1:17300), with its Content-Type and Cache-Control; other
// methods are 405.
func TestOIDCDiscoveryReference(t *testing.T) {
	pem, err := os.ReadFile(saTestdata + "ref-sa.pub")
	if err != nil {
		t.Fatal(err)
	}
	pubs, err := certs.ParsePublicKeysPEM(pem)
	if err != nil {
		t.Fatal(err)
	}
	d := newOIDCDiscovery(newServiceAccountTokens(ServiceAccountTokenOptions{Keys: staticKeys(pubs)}, nil, time.Now), "", 17300)
	for _, c := range []struct {
		file, contentType string
		serve             http.HandlerFunc
	}{
		{"ref-jwks.json", "application/jwk-set+json", d.ServeJWKS},
		{"ref-openid-configuration.json", "application/json", d.ServeConfiguration},
	} {
		want, err := os.ReadFile(saTestdata + c.file)
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		c.serve(w, httptest.NewRequest("GET", "/", nil))
		if w.Code != 200 || w.Body.String() != string(want) || w.Header().Get("Content-Type") != c.contentType || w.Header().Get("Cache-Control") != "public, max-age=3600" {
			t.Errorf("%s: %d %v\n%s\nwant %s", c.file, w.Code, w.Header(), w.Body, want)
		}
		w = httptest.NewRecorder()
		c.serve(w, httptest.NewRequest("POST", "/", nil))
		if w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s POST: %d", c.file, w.Code)
		}
	}
}

// TestServiceAccountTokenOptions: --service-account-issuer (the first
// signs, every one is accepted), --api-audiences (the default audiences
// of a TokenRequest and what requests must be meant for) and
// --service-account-max-token-expiration (longer requests shortened, in
// spec.expirationSeconds too: kube-apiserver 1.33.13 started with
// --service-account-max-token-expiration=2h --api-audiences=api,other
// answers a request of 86400 s with expirationSeconds 7200, audiences
// [api other], and the token says the same).
func TestServiceAccountTokenOptions(t *testing.T) {
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	dir := t.TempDir()
	s, _ := runServer(t, Options{Storage: st, Anonymous: true, SecurePort: 6443, ServiceAccountTokens: ServiceAccountTokenOptions{
		Keys:    certs.NewServiceAccountKeys(dir, "", nil),
		Issuers: []string{"https://issuer.example", "https://old.example"}, APIAudiences: []string{"api", "other"},
		MaxExpiration: 2 * time.Hour, JWKSURI: "https://issuer.example/keys",
	}})
	get := serviceAccountGetter(s.API())
	waitFor(t, "default ServiceAccount", func() bool { _, err := get(context.Background(), "default", "default"); return err == nil })
	w := serveReq(s, "POST", "/api/v1/namespaces/default/serviceaccounts/default/token", `{"spec":{"expirationSeconds":86400}}`)
	var tr struct {
		Spec struct {
			Audiences         []string `json:"audiences"`
			ExpirationSeconds int64    `json:"expirationSeconds"`
		} `json:"spec"`
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &tr); err != nil || w.Code != http.StatusCreated {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var c struct {
		Aud      []string `json:"aud"`
		Iss      string   `json:"iss"`
		Exp, Iat int64
	}
	_ = json.Unmarshal(jwtPart(t, tr.Status.Token, 1), &c)
	if !reflect.DeepEqual(tr.Spec.Audiences, []string{"api", "other"}) || tr.Spec.ExpirationSeconds != 7200 ||
		c.Iss != "https://issuer.example" || !reflect.DeepEqual(c.Aud, []string{"api", "other"}) || c.Exp-c.Iat != 7200 {
		t.Errorf("TokenRequest %s, claims %+v", w.Body, c)
	}
	whoami := func(tok string) int {
		return serveReq(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{}`, "Authorization", "Bearer "+tok).Code
	}
	if code := whoami(tr.Status.Token); code != http.StatusCreated {
		t.Errorf("whoami: %d", code)
	}
	// A token of the older issuer, signed with the same key, is accepted.
	old := newServiceAccountTokens(ServiceAccountTokenOptions{Keys: s.opts.ServiceAccountTokens.Keys, Issuers: []string{"https://old.example"}}, nil, time.Now)
	sa, _ := get(context.Background(), "default", "default")
	tok, err := old.issue(sa, []string{"other"}, 3600, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if code := whoami(tok); code != http.StatusCreated {
		t.Errorf("token of the second issuer: %d", code)
	}
	// Another issuer's token is not a ServiceAccount token here; an
	// expired one is refused.
	other := newServiceAccountTokens(ServiceAccountTokenOptions{Keys: s.opts.ServiceAccountTokens.Keys, Issuers: []string{"https://elsewhere.example"}}, nil, time.Now)
	if tok, _ = other.issue(sa, []string{"api"}, 3600, time.Now()); whoami(tok) != http.StatusUnauthorized {
		t.Error("a token of an unknown issuer authenticated")
	}
	if tok, _ = old.issue(sa, []string{"api"}, 600, time.Now().Add(-time.Hour)); whoami(tok) != http.StatusUnauthorized {
		t.Error("an expired token authenticated")
	}
	u, _, handled, err := s.saTokens.authenticate(context.Background(), tok, nil)
	if !handled || u != nil || err == nil || err.Error() != "service account token has expired" {
		t.Errorf("expired token: %v %v %v", u, handled, err)
	}
	cfg := getJSON(t, s, "/.well-known/openid-configuration")
	if !strings.HasPrefix(string(cfg), `{"issuer":"https://issuer.example","jwks_uri":"https://issuer.example/keys",`) {
		t.Errorf("openid-configuration: %s", cfg)
	}
}
