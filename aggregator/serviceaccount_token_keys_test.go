package aggregator

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// signerKeys is a ServiceAccountKeySource of one signing key.
type signerKeys struct{ s crypto.Signer }

func (k signerKeys) Load() (crypto.Signer, []crypto.PublicKey, error) {
	return k.s, []crypto.PublicKey{k.s.Public()}, nil
}

// TestTokenOfAnotherKey: a token whose key id names none of the
// verification keys is refused without trying them, as kube-apiserver
// 1.33.13 answers (curl -X POST .../apis/authentication.k8s.io/v1/tokenreviews
// -d '{"spec":{"token":"<kubectl create token f, against another server>"}}':
// status.error "[invalid bearer token, invalid signature, no keys found]"); a token
// with a verification key's id but a broken signature keeps go-jose's
// error, as the reference's ("error in cryptographic primitive").
func TestTokenOfAnotherKey(t *testing.T) {
	newKey := func() crypto.Signer {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	sa := &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "default", UID: "u1"}}
	get := func(context.Context, string, string) (*core.ServiceAccount, error) { return sa, nil }
	ours := newServiceAccountTokens(ServiceAccountTokenOptions{Keys: signerKeys{newKey()}}, get, time.Now)
	theirs := newServiceAccountTokens(ServiceAccountTokenOptions{Keys: signerKeys{newKey()}}, get, time.Now)
	auds := []string{DefaultServiceAccountIssuer}
	foreign, err := theirs.issue(sa, auds, 3600, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	u, _, handled, err := ours.authenticate(context.Background(), foreign, nil)
	if !handled || u != nil || err == nil || err.Error() != "invalid signature, no keys found" {
		t.Errorf("token of another key: %v %v %v", u, handled, err)
	}
	own, err := ours.issue(sa, auds, 3600, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if u, _, handled, err := ours.authenticate(context.Background(), own, nil); !handled || err != nil || u == nil {
		t.Fatalf("own token: %v %v %v", u, handled, err)
	}
	broken := own[:len(own)-4] + "AAAA"
	u, _, handled, err = ours.authenticate(context.Background(), broken, nil)
	if !handled || u != nil || err == nil || err.Error() != "go-jose/go-jose: error in cryptographic primitive" {
		t.Errorf("broken signature: %v %v %v", u, handled, err)
	}
}
