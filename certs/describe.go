package certs

import (
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// CertSummary is what a human needs to know about one certificate; it is
// what `aggsim explain` prints. Times are UTC.
type CertSummary struct {
	Subject       string    `json:"subject"`
	Issuer        string    `json:"issuer"`
	CommonName    string    `json:"commonName,omitempty"`
	Organizations []string  `json:"organizations,omitempty"`
	DNSNames      []string  `json:"dnsNames,omitempty"`
	IPAddresses   []string  `json:"ipAddresses,omitempty"`
	NotBefore     time.Time `json:"notBefore"`
	NotAfter      time.Time `json:"notAfter"`
	// Serial is the serial number in lower-case hex.
	Serial       string   `json:"serial"`
	IsCA         bool     `json:"isCA"`
	KeyUsages    []string `json:"keyUsages,omitempty"`
	ExtKeyUsages []string `json:"extKeyUsages,omitempty"`
	// SHA256 is the lower-case hex SHA-256 of the DER certificate.
	SHA256 string `json:"sha256"`
}

// SANs returns DNS names followed by IP addresses.
func (s CertSummary) SANs() []string {
	return append(append([]string(nil), s.DNSNames...), s.IPAddresses...)
}

// Describe summarises cert.
func Describe(cert *x509.Certificate) CertSummary {
	s := CertSummary{
		Subject:       cert.Subject.String(),
		Issuer:        cert.Issuer.String(),
		CommonName:    cert.Subject.CommonName,
		Organizations: cert.Subject.Organization,
		DNSNames:      cert.DNSNames,
		NotBefore:     cert.NotBefore.UTC(),
		NotAfter:      cert.NotAfter.UTC(),
		IsCA:          cert.IsCA,
		KeyUsages:     keyUsageNames(cert.KeyUsage),
	}
	for _, ip := range cert.IPAddresses {
		s.IPAddresses = append(s.IPAddresses, ip.String())
	}
	if cert.SerialNumber != nil {
		s.Serial = cert.SerialNumber.Text(16)
	}
	for _, u := range cert.ExtKeyUsage {
		s.ExtKeyUsages = append(s.ExtKeyUsages, extKeyUsageName(u))
	}
	sum := sha256.Sum256(cert.Raw)
	s.SHA256 = fmt.Sprintf("%x", sum)
	return s
}

func keyUsageNames(u x509.KeyUsage) []string {
	names := []string{"digital signature", "content commitment", "key encipherment",
		"data encipherment", "key agreement", "cert sign", "crl sign", "encipher only", "decipher only"}
	var out []string
	for i, n := range names {
		if u&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func extKeyUsageName(u x509.ExtKeyUsage) string {
	switch u {
	case x509.ExtKeyUsageAny:
		return "any"
	case x509.ExtKeyUsageServerAuth:
		return "server auth"
	case x509.ExtKeyUsageClientAuth:
		return "client auth"
	case x509.ExtKeyUsageCodeSigning:
		return "code signing"
	case x509.ExtKeyUsageEmailProtection:
		return "email protection"
	case x509.ExtKeyUsageTimeStamping:
		return "time stamping"
	case x509.ExtKeyUsageOCSPSigning:
		return "ocsp signing"
	}
	return fmt.Sprintf("ext key usage %d", int(u))
}

// VerifyReason classifies why VerifyFor failed.
type VerifyReason string

// The reasons VerifyFor reports.
const (
	VerifyNoCertificate    VerifyReason = "NoCertificate"
	VerifyExpired          VerifyReason = "Expired"
	VerifyNotYetValid      VerifyReason = "NotYetValid"
	VerifyNameMismatch     VerifyReason = "NameMismatch"
	VerifyNoSANs           VerifyReason = "NoSANs"
	VerifyUnknownAuthority VerifyReason = "UnknownAuthority"
	VerifyWrongUsage       VerifyReason = "WrongUsage"
	VerifyOther            VerifyReason = "Other"
)

// VerifyError is VerifyFor's failure: a classification, a sentence a human
// can act on, and the crypto/x509 error (what a Go client such as the
// aggregator's proxy reports) as Err.
type VerifyError struct {
	Reason VerifyReason
	// Sentence explains the failure in the aggregator's terms.
	Sentence string
	// Err is the underlying error; nil for VerifyNoCertificate.
	Err error
}

// Error returns the sentence.
func (e *VerifyError) Error() string { return e.Sentence }

// Unwrap returns the crypto/x509 error.
func (e *VerifyError) Unwrap() error { return e.Err }

// VerifyFor checks a serving certificate chain (leaf first, then any
// intermediates) the way the aggregator's proxy transport does: against
// roots (the APIService caBundle; nil means the system roots), for
// serverName (<service>.<namespace>.svc), with ExtKeyUsage ServerAuth, at the
// current time. It returns nil or a *VerifyError, e.g. "the serving
// certificate has SANs [api.example.svc], the aggregator expects
// wardle-server.wardle-namespace.svc". Checks run in crypto/x509's order
// (validity period, name, authority, usage), so the first failure reported
// is the one a Go client sees.
func VerifyFor(chain []*x509.Certificate, roots *x509.CertPool, serverName string) error {
	if len(chain) == 0 {
		return &VerifyError{Reason: VerifyNoCertificate, Sentence: "the backend presented no serving certificate"}
	}
	leaf := chain[0]
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	now := time.Now()
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: inter,
		DNSName:       serverName,
		CurrentTime:   now,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err == nil {
		return nil
	}
	s := Describe(leaf)
	ve := &VerifyError{Reason: VerifyOther, Err: err,
		Sentence: fmt.Sprintf("the serving certificate (%s) does not verify: %v", s.Subject, err)}
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var invErr x509.CertificateInvalidError
	switch {
	case errors.As(err, &hostErr):
		if len(s.SANs()) == 0 {
			ve.Reason = VerifyNoSANs
			ve.Sentence = fmt.Sprintf("the serving certificate has no SANs (only CN=%s, which Go clients ignore), the aggregator expects %s", s.CommonName, serverName)
		} else {
			ve.Reason = VerifyNameMismatch
			ve.Sentence = fmt.Sprintf("the serving certificate has SANs [%s], the aggregator expects %s", strings.Join(s.SANs(), ", "), serverName)
		}
	case errors.As(err, &authErr):
		ve.Reason = VerifyUnknownAuthority
		where := "the caBundle"
		if roots == nil {
			where = "the system roots (no caBundle given)"
		}
		ve.Sentence = fmt.Sprintf("the serving certificate is issued by %q, which is not in %s", s.Issuer, where)
	case errors.As(err, &invErr):
		switch invErr.Reason {
		case x509.Expired:
			if now.Before(leaf.NotBefore) {
				ve.Reason = VerifyNotYetValid
				ve.Sentence = fmt.Sprintf("the serving certificate is not valid before %s (now %s)", s.NotBefore.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
			} else {
				ve.Reason = VerifyExpired
				ve.Sentence = fmt.Sprintf("the serving certificate expired at %s (now %s)", s.NotAfter.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
			}
		case x509.IncompatibleUsage:
			ve.Reason = VerifyWrongUsage
			ve.Sentence = fmt.Sprintf("the serving certificate is not valid for server auth (extended key usages [%s])", strings.Join(s.ExtKeyUsages, ", "))
		}
	}
	return ve
}

// SplitSANs splits a list of SANs (as given to --extra-sans) into DNS names
// and IP addresses; empty entries are dropped.
func SplitSANs(names []string) (dns []string, ips []net.IP) {
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			ips = append(ips, ip)
		} else if n != "" {
			dns = append(dns, n)
		}
	}
	return dns, ips
}
