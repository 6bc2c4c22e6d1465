package certs

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// File names of the ServiceAccount token keys in a PKI directory, as
// kubeadm names them (kubernetes/cmd/kubeadm/app/constants:
// ServiceAccountPrivateKeyName, ServiceAccountPublicKeyName).
const (
	ServiceAccountKeyName       = "sa.key"
	ServiceAccountPublicKeyName = "sa.pub"
)

// pemTypePublicKey is the block type of a PKIX public key (sa.pub).
const pemTypePublicKey = "PUBLIC KEY"

// ServiceAccountKeys are the keys of ServiceAccount tokens: the signing
// key (kube-apiserver's --service-account-signing-key-file) and the keys
// tokens are verified with (--service-account-key-file, repeatable). They
// are read, or generated, on first use and then kept: generating an RSA
// key takes tens of milliseconds, which aggsim's start-up does not pay
// (EnsurePKI does not create them). Safe for concurrent use.
type ServiceAccountKeys struct {
	signingKeyFile string
	keyFiles       []string
	generate       bool // signingKeyFile is the PKI's sa.key: create it (and sa.pub) when missing

	once    sync.Once
	signer  crypto.Signer
	publics []crypto.PublicKey
	err     error
}

// NewServiceAccountKeys describes the keys without reading anything.
// signingKeyFile "" means pkiDir's sa.key, generated (RSA 2048, as
// kubeadm's, with sa.pub beside it) when missing; keyFiles empty means
// pkiDir's sa.pub when the signing key is the PKI's, else the signing
// key's own public key. The signing key's public key always verifies.
func NewServiceAccountKeys(pkiDir, signingKeyFile string, keyFiles []string) *ServiceAccountKeys {
	k := &ServiceAccountKeys{signingKeyFile: signingKeyFile, keyFiles: slices.Clone(keyFiles)}
	if signingKeyFile == "" {
		k.signingKeyFile = filepath.Join(pkiDir, ServiceAccountKeyName)
		k.generate = true
		if len(keyFiles) == 0 {
			k.keyFiles = []string{filepath.Join(pkiDir, ServiceAccountPublicKeyName)}
		}
	}
	return k
}

// Load returns the signing key and the verification keys (the signing
// key's public key first), reading or generating them on the first call.
// Errors: an unreadable or unparsable file, no key in a --service-account-key-file,
// a failed generation; the first error is returned on every call.
func (k *ServiceAccountKeys) Load() (crypto.Signer, []crypto.PublicKey, error) {
	k.once.Do(func() { k.signer, k.publics, k.err = k.load() })
	return k.signer, k.publics, k.err
}

func (k *ServiceAccountKeys) load() (crypto.Signer, []crypto.PublicKey, error) {
	data, err := os.ReadFile(k.signingKeyFile)
	if errors.Is(err, os.ErrNotExist) && k.generate {
		data, err = generateServiceAccountKey(k.signingKeyFile, k.keyFiles[0])
	}
	if err != nil {
		return nil, nil, fmt.Errorf("service account signing key: %w", err)
	}
	signer, err := ParseKeyPEM(data)
	if err != nil {
		return nil, nil, fmt.Errorf("service account signing key %s: %w", k.signingKeyFile, err)
	}
	publics := []crypto.PublicKey{signer.Public()}
	for _, f := range k.keyFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("service account key file: %w", err)
		}
		keys, err := ParsePublicKeysPEM(b)
		if err != nil {
			return nil, nil, fmt.Errorf("service account key file %s: %w", f, err)
		}
		for _, p := range keys {
			if !slices.ContainsFunc(publics, func(q crypto.PublicKey) bool {
				e, ok := q.(interface{ Equal(crypto.PublicKey) bool })
				return ok && e.Equal(p)
			}) {
				publics = append(publics, p)
			}
		}
	}
	return signer, publics, nil
}

// generateServiceAccountKey writes a new RSA 2048 key to keyPath (PKCS#8,
// 0600) and its public key to pubPath (PKIX "PUBLIC KEY", 0644), as
// kubeadm's certs phase "sa" (and `openssl genrsa`/`openssl rsa -pubout`)
// do, and returns the key's PEM.
func generateServiceAccountKey(keyPath, pubPath string) ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	keyPEM, err := EncodeKeyPEM(key)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(pubPath, pem.EncodeToMemory(&pem.Block{Type: pemTypePublicKey, Bytes: der}), 0o644); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return nil, err
	}
	return keyPEM, nil
}

// ParsePublicKeysPEM returns every public key in data, as kube-apiserver
// reads a --service-account-key-file (keyutil.ParsePublicKeysPEM): PKIX
// "PUBLIC KEY" and PKCS#1 "RSA PUBLIC KEY" blocks, the public halves of
// private keys, and the keys of certificates. It returns an error for a
// block that fails to parse or when there is no key at all.
func ParsePublicKeysPEM(data []byte) ([]crypto.PublicKey, error) {
	var out []crypto.PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		var (
			pub crypto.PublicKey
			err error
		)
		switch block.Type {
		case pemTypePublicKey:
			pub, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case PEMTypeCertificate:
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(block.Bytes); err == nil {
				pub = c.PublicKey
			}
		case PEMTypePrivateKey, "EC PRIVATE KEY", "RSA PRIVATE KEY":
			var s crypto.Signer
			if s, err = ParseKeyPEM(pem.EncodeToMemory(block)); err == nil {
				pub = s.Public()
			}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("parse %s block: %w", block.Type, err)
		}
		out = append(out, pub)
	}
	if len(out) == 0 {
		return nil, errors.New("data does not contain any valid RSA or ECDSA public keys")
	}
	return out, nil
}
