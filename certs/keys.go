package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
)

// KeyType selects the private-key algorithm of newly generated keys. It
// mirrors kubeadm's EncryptionAlgorithmType
// (kubernetes/cmd/kubeadm/app/apis/kubeadm/types.go).
type KeyType string

const (
	// KeyTypeECDSA is ECDSA on the NIST P-256 curve, the default.
	KeyTypeECDSA KeyType = "ecdsa"
	// KeyTypeRSA is RSA with a 2048-bit modulus.
	KeyTypeRSA KeyType = "rsa"
)

// PEM block types written and accepted.
const (
	// PEMTypeCertificate is the block type of every certificate written.
	PEMTypeCertificate = "CERTIFICATE"
	// PEMTypePrivateKey is the block type of every key written (PKCS#8).
	PEMTypePrivateKey = "PRIVATE KEY"
)

// ParseKeyType turns a flag value ("ecdsa", "rsa", or "" for the default)
// into a KeyType; other values return an error naming the accepted ones.
func ParseKeyType(s string) (KeyType, error) {
	switch KeyType(s) {
	case "", KeyTypeECDSA:
		return KeyTypeECDSA, nil
	case KeyTypeRSA:
		return KeyTypeRSA, nil
	}
	return "", fmt.Errorf("unsupported key type %q: use %q or %q", s, KeyTypeECDSA, KeyTypeRSA)
}

// newPrivateKey generates a key of type t ("" means ECDSA).
func newPrivateKey(t KeyType) (crypto.Signer, error) {
	switch t {
	case "", KeyTypeECDSA:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case KeyTypeRSA:
		return rsa.GenerateKey(rand.Reader, 2048)
	}
	_, err := ParseKeyType(string(t))
	return nil, err
}

// EncodeKeyPEM encodes key as a PKCS#8 "PRIVATE KEY" PEM block.
func EncodeKeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypePrivateKey, Bytes: der}), nil
}

// EncodeCertPEM encodes cert as a "CERTIFICATE" PEM block.
func EncodeCertPEM(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: PEMTypeCertificate, Bytes: cert.Raw})
}

// ParseKeyPEM decodes the first private key in data. It accepts PKCS#8
// "PRIVATE KEY", SEC 1 "EC PRIVATE KEY" and PKCS#1 "RSA PRIVATE KEY" blocks
// (the three forms kubeadm and openssl write), skipping other blocks such as
// "EC PARAMETERS". It returns an error if no supported key is found.
func ParseKeyPEM(data []byte) (crypto.Signer, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no private key PEM block found")
		}
		switch block.Type {
		case PEMTypePrivateKey:
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parse PKCS#8 private key: %w", err)
			}
			s, ok := k.(crypto.Signer)
			if !ok {
				return nil, fmt.Errorf("unsupported private key type %T", k)
			}
			return s, nil
		case "EC PRIVATE KEY":
			k, err := x509.ParseECPrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parse EC private key: %w", err)
			}
			return k, nil
		case "RSA PRIVATE KEY":
			k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parse RSA private key: %w", err)
			}
			return k, nil
		}
	}
}

// ParseCertsPEM decodes every "CERTIFICATE" block in data, in order, ignoring
// other block types. It returns an error if a block fails to parse or if
// there is no certificate at all.
func ParseCertsPEM(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != PEMTypeCertificate {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse certificate %d: %w", len(out)+1, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no CERTIFICATE PEM block found")
	}
	return out, nil
}

// keyMatches reports whether key is the private half of cert's public key.
func keyMatches(cert *x509.Certificate, key crypto.Signer) bool {
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(cert.PublicKey)
}

// serialLimit is 2^128: serial numbers are random 128-bit positive integers.
var serialLimit = new(big.Int).Lsh(big.NewInt(1), 128)

// newSerial returns a random, non-zero 128-bit serial number.
func newSerial() (*big.Int, error) {
	for {
		n, err := rand.Int(rand.Reader, serialLimit)
		if err != nil {
			return nil, fmt.Errorf("generate serial number: %w", err)
		}
		if n.Sign() > 0 {
			return n, nil
		}
	}
}
