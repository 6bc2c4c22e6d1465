package certs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
)

// File names IssueBackend's WriteDir uses, matching a kubernetes.io/tls
// Secret's keys plus the CA.
const (
	BackendCertName = "tls.crt"
	BackendKeyName  = "tls.key"
)

// BackendCACommonName is the subject of a CA IssueBackend creates.
const BackendCACommonName = "aggsim-backend-ca"

// BackendOptions describes the serving certificate of an aggregated API
// backend reached through Service Namespace/Service.
type BackendOptions struct {
	// Service and Namespace name the Service of the APIService's
	// spec.service; both are required.
	Service, Namespace string
	// CA signs the certificate when set.
	CA *CA
	// CACertFile and CAKeyFile name a CA to load when CA is nil; both or
	// neither. With neither (and no CA), a new CA "aggsim-backend-ca" is made.
	CACertFile, CAKeyFile string
	// Options sets key type, validity, clock and extra SANs.
	Options
}

// BackendCerts is a backend serving pair and the CA that signed it.
type BackendCerts struct {
	// ServerName is <service>.<namespace>.svc, the name the aggregator
	// verifies (and sends as SNI).
	ServerName string
	// Serving is the backend's serving certificate and key.
	Serving *KeyPair
	// CA signed Serving; its CertPEM is the APIService spec.caBundle.
	CA *CA
	// CACreated is true when IssueBackend generated CA itself.
	CACreated bool
	// CABundle is base64(CA.CertPEM), ready for spec.caBundle in YAML.
	CABundle string
}

// BackendSANs returns the SANs of a backend serving certificate:
// <svc>.<ns>.svc, <svc>.<ns>.svc.cluster.local, localhost, then extra DNS
// names; 127.0.0.1, ::1, then extra IPs; without duplicates.
func BackendSANs(service, namespace string, extraDNS []string, extraIPs []net.IP) ([]string, []net.IP) {
	base := service + "." + namespace + ".svc"
	dns := []string{base, base + ".cluster.local", "localhost"}
	for _, d := range extraDNS {
		if !slices.Contains(dns, d) {
			dns = append(dns, d)
		}
	}
	ips := []net.IP{net.IPv4(127, 0, 0, 1).To4(), net.IPv6loopback}
	for _, ip := range extraIPs {
		if !slices.ContainsFunc(ips, ip.Equal) {
			ips = append(ips, ip)
		}
	}
	return dns, ips
}

// IssueBackend issues a serving certificate for an aggregated API backend
// (CN and first SAN <service>.<namespace>.svc, see BackendSANs) signed by
// opts.CA, by the CA in opts.CACertFile/CAKeyFile, or by a new CA. It writes
// nothing; see BackendCerts.WriteDir.
func IssueBackend(opts BackendOptions) (*BackendCerts, error) {
	if opts.Service == "" || opts.Namespace == "" {
		return nil, errors.New("backend certificate: service and namespace are required")
	}
	if (opts.CACertFile == "") != (opts.CAKeyFile == "") {
		return nil, errors.New("backend certificate: CA certificate and key files must be given together")
	}
	out := &BackendCerts{ServerName: opts.Service + "." + opts.Namespace + ".svc", CA: opts.CA}
	var err error
	switch {
	case out.CA != nil:
	case opts.CACertFile != "":
		if out.CA, err = LoadCA(opts.CACertFile, opts.CAKeyFile, opts.Options); err != nil {
			return nil, err
		}
	default:
		if out.CA, err = NewCA(BackendCACommonName, opts.Options); err != nil {
			return nil, err
		}
		out.CACreated = true
	}
	dns, ips := BackendSANs(opts.Service, opts.Namespace, opts.ExtraDNSNames, opts.ExtraIPs)
	if out.Serving, err = out.CA.IssueServing(out.ServerName, dns, ips); err != nil {
		return nil, err
	}
	out.CABundle = base64.StdEncoding.EncodeToString(out.CA.CertPEM)
	return out, nil
}

// WriteDir writes dir/tls.crt and dir/tls.key, and dir/ca.crt plus
// dir/ca.key when the CA was created by IssueBackend (an existing CA's
// files are left where they are). It returns the paths written, in order.
func (b *BackendCerts) WriteDir(dir string) ([]string, error) {
	var written []string
	if b.CACreated {
		cc, ck := filepath.Join(dir, CACertName), filepath.Join(dir, CAKeyName)
		if err := b.CA.WriteFiles(cc, ck); err != nil {
			return nil, fmt.Errorf("write backend CA: %w", err)
		}
		written = append(written, cc, ck)
	}
	tc, tk := filepath.Join(dir, BackendCertName), filepath.Join(dir, BackendKeyName)
	if err := b.Serving.WriteFiles(tc, tk); err != nil {
		return nil, fmt.Errorf("write backend serving certificate: %w", err)
	}
	return append(written, tc, tk), nil
}
