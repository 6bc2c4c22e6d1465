package certs

import (
	"crypto"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Default validity periods and clock-skew allowance, as kubeadm uses
// (kubernetes/cmd/kubeadm/app/constants/constants.go: CACertificateValidityPeriod,
// CertificateValidityPeriod; client-go/util/cert/cert.go backdates its
// self-signed certificates the same way).
const (
	// DefaultCAValidity is how long a generated CA certificate is valid: 10 years.
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	// DefaultValidity is how long a generated leaf certificate is valid: 1 year.
	DefaultValidity = 365 * 24 * time.Hour
	// Backdate is subtracted from "now" for every NotBefore, so that a peer
	// whose clock is a little behind still accepts a brand-new certificate.
	Backdate = 5 * time.Minute
)

// Options tunes key and certificate generation. The zero value is valid:
// ECDSA P-256 keys, CAs valid 10 years, leaves valid 1 year, the real clock.
type Options struct {
	// KeyType is the algorithm of generated keys; "" means KeyTypeECDSA.
	KeyType KeyType
	// CAValidity is the lifetime of generated CA certificates; 0 means DefaultCAValidity.
	CAValidity time.Duration
	// Validity is the lifetime of generated leaf certificates; 0 means DefaultValidity.
	Validity time.Duration
	// ExtraDNSNames and ExtraIPs are added to the serving certificate's SANs
	// by EnsurePKI and IssueBackend (beside localhost, 127.0.0.1 and ::1).
	ExtraDNSNames []string
	// ExtraIPs: see ExtraDNSNames.
	ExtraIPs []net.IP
	// Now returns the current time; nil means time.Now. Tests inject a clock.
	Now func() time.Time
	// Ephemeral marks a fresh PKI directory that is thrown away with its
	// process (aggregatortest's temporary folders): EnsurePKI then creates
	// its files in place, without a temporary file, rename or directory
	// sync, which cost more than generating the keys (about 0.25 ms a file
	// on a sandboxed file system). A file that exists already is an error
	// rather than replaced.
	Ephemeral bool
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) caValidity() time.Duration {
	if o.CAValidity > 0 {
		return o.CAValidity
	}
	return DefaultCAValidity
}

func (o Options) validity() time.Duration {
	if o.Validity > 0 {
		return o.Validity
	}
	return DefaultValidity
}

// KeyPair is a certificate with its private key, parsed and as PEM.
// Values are shared, not copied: do not modify them.
type KeyPair struct {
	// Cert is the parsed leaf (or CA) certificate.
	Cert *x509.Certificate
	// Key is the private key matching Cert.PublicKey.
	Key crypto.Signer
	// CertPEM is Cert as a "CERTIFICATE" PEM block.
	CertPEM []byte
	// KeyPEM is Key as PEM (PKCS#8 for generated keys; as read for loaded ones).
	KeyPEM []byte
}

// TLSCertificate returns the pair as a tls.Certificate with Leaf set.
func (kp *KeyPair) TLSCertificate() (tls.Certificate, error) {
	c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		return tls.Certificate{}, err
	}
	c.Leaf = kp.Cert
	return c, nil
}

// WriteFiles writes the certificate (mode 0644) and key (mode 0600)
// atomically, creating missing parent directories with mode 0700.
func (kp *KeyPair) WriteFiles(certPath, keyPath string) error {
	return kp.writeFiles(certPath, keyPath, writeDurable)
}

// writeFiles is WriteFiles with the given writeMode, the key first.
func (kp *KeyPair) writeFiles(certPath, keyPath string, how writeMode) error {
	if err := writeFile(keyPath, kp.KeyPEM, 0o600, how); err != nil {
		return err
	}
	return writeFile(certPath, kp.CertPEM, 0o644, how)
}

// LoadKeyPair reads a certificate file (first certificate is the leaf) and a
// key file. It returns an error if either is missing or unparsable, or if
// the key does not match the certificate.
func LoadKeyPair(certPath, keyPath string) (*KeyPair, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, err
	}
	kp, err := parseKeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("load %s and %s: %w", certPath, keyPath, err)
	}
	return kp, nil
}

func parseKeyPair(certPEM, keyPEM []byte) (*KeyPair, error) {
	certs, err := ParseCertsPEM(certPEM)
	if err != nil {
		return nil, err
	}
	key, err := ParseKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	if !keyMatches(certs[0], key) {
		return nil, errors.New("private key does not match the certificate's public key")
	}
	return &KeyPair{Cert: certs[0], Key: key, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// CA is a certificate authority that can issue serving and client
// certificates. It mirrors what kubeadm's pkiutil
// (kubernetes/cmd/kubeadm/app/util/pkiutil/pki_helpers.go) does with a CA
// pair. A CA is safe for concurrent use.
type CA struct {
	KeyPair
	opts Options
}

// NewCA generates a self-signed CA with the given common name (for example
// "aggsim-ca" or "front-proxy-ca"), a key of opts.KeyType, KeyUsage
// CertSign|CRLSign|DigitalSignature and validity opts.CAValidity.
func NewCA(commonName string, opts Options) (*CA, error) {
	key, err := newPrivateKey(opts.KeyType)
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := opts.now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-Backdate).UTC(),
		NotAfter:              now.Add(opts.caValidity()).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate %q: %w", commonName, err)
	}
	kp, err := newKeyPair(der, key)
	if err != nil {
		return nil, err
	}
	return &CA{KeyPair: *kp, opts: opts}, nil
}

// LoadCA reads a CA certificate and key. It returns an error if the files are
// missing, do not match, or the certificate is not a CA. opts governs the
// certificates the CA issues afterwards.
func LoadCA(certPath, keyPath string, opts Options) (*CA, error) {
	kp, err := LoadKeyPair(certPath, keyPath)
	if err != nil {
		return nil, err
	}
	if !kp.Cert.IsCA {
		return nil, fmt.Errorf("%s is not a CA certificate", certPath)
	}
	return &CA{KeyPair: *kp, opts: opts}, nil
}

// Pool returns a new pool holding only the CA certificate.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// IssueServing issues a serving certificate (ExtKeyUsage ServerAuth) with
// the given common name and SANs. It returns an error if there is no SAN at
// all, since Go clients ignore the common name.
func (ca *CA) IssueServing(commonName string, dnsNames []string, ips []net.IP) (*KeyPair, error) {
	if len(dnsNames) == 0 && len(ips) == 0 {
		return nil, fmt.Errorf("serving certificate %q needs at least one DNS or IP SAN", commonName)
	}
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		DNSNames:    dnsNames,
		IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// IssueClient issues a client certificate (ExtKeyUsage ClientAuth) whose
// subject is CN=commonName, O=orgs — the user name and groups a Kubernetes
// API server derives from it.
func (ca *CA) IssueClient(commonName string, orgs []string) (*KeyPair, error) {
	return ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName, Organization: orgs},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

func (ca *CA) issue(tmpl *x509.Certificate) (*KeyPair, error) {
	key, err := newPrivateKey(ca.opts.KeyType)
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := ca.opts.now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-Backdate).UTC()
	tmpl.NotAfter = now.Add(ca.opts.validity()).UTC()
	if tmpl.NotAfter.After(ca.Cert.NotAfter) {
		// A leaf outliving its CA fails verification anyway; say so honestly.
		tmpl.NotAfter = ca.Cert.NotAfter
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if _, ok := key.(*rsa.PrivateKey); ok {
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	tmpl.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(nil, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, fmt.Errorf("issue certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	return newKeyPair(der, key)
}

func newKeyPair(der []byte, key crypto.Signer) (*KeyPair, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse generated certificate: %w", err)
	}
	keyPEM, err := EncodeKeyPEM(key)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Cert: cert, Key: key, CertPEM: EncodeCertPEM(cert), KeyPEM: keyPEM}, nil
}
