package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// captureLastLine returns the proxied error body of a kube 1.33 capture
// without upstream's prefix: the crypto/x509 error text Go clients report.
func captureLastLine(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/certs/" + name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	msg := lines[len(lines)-2] // the last line is "[exit 0]"
	const prefix = "error trying to reach service: tls: failed to verify certificate: "
	if !strings.HasPrefix(msg, prefix) {
		t.Fatalf("%s: unexpected body %q", name, msg)
	}
	return strings.TrimPrefix(msg, prefix)
}

func TestVerifyFor(t *testing.T) {
	ca, err := NewCA("backend-ca", Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCA("other-ca", Options{})
	if err != nil {
		t.Fatal(err)
	}
	serving := func(ca *CA, dns ...string) *x509.Certificate {
		kp, err := ca.IssueServing("x", dns, nil)
		if err != nil {
			t.Fatal(err)
		}
		return kp.Cert
	}
	past, err := NewCA("past-ca", Options{Now: func() time.Time { return time.Now().Add(-3 * 365 * 24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	future, err := NewCA("future-ca", Options{Now: func() time.Time { return time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.IssueClient("front-proxy-client", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A CN-only certificate, as old backends sometimes have.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "api.wardle.svc"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	cnOnly, _ := x509.ParseCertificate(der)

	tests := []struct {
		name         string
		chain        []*x509.Certificate
		roots        *CA
		serverName   string
		wantReason   VerifyReason
		wantSentence string // "" means: check only the prefix below
		wantPrefix   string
		wantGoErr    string
	}{
		{name: "ok", chain: []*x509.Certificate{serving(ca, "api.wardle.svc")}, roots: ca, serverName: "api.wardle.svc"},
		{
			name: "name mismatch (c23)", chain: []*x509.Certificate{serving(ca, "wrong.wardle.svc", "localhost")}, roots: ca, serverName: "api.wardle.svc",
			wantReason:   VerifyNameMismatch,
			wantSentence: "the serving certificate has SANs [wrong.wardle.svc, localhost], the aggregator expects api.wardle.svc",
			wantGoErr:    captureLastLine(t, "c23-wrongname-proxied.client.txt"),
		},
		{
			name: "externalName IP (c33)", chain: []*x509.Certificate{serving(ca, "api.wardle.svc", "localhost")}, roots: ca, serverName: "api-ip.wardle.svc",
			wantReason:   VerifyNameMismatch,
			wantSentence: "the serving certificate has SANs [api.wardle.svc, localhost], the aggregator expects api-ip.wardle.svc",
			wantGoErr:    captureLastLine(t, "c33-extip-servername.client.txt"),
		},
		{
			name: "unknown authority (c22)", chain: []*x509.Certificate{serving(other, "api.wardle.svc")}, roots: ca, serverName: "api.wardle.svc",
			wantReason:   VerifyUnknownAuthority,
			wantSentence: `the serving certificate is issued by "CN=other-ca", which is not in the caBundle`,
			wantGoErr:    captureLastLine(t, "c22-wrongca-proxied.client.txt"),
		},
		{
			name: "no SANs", chain: []*x509.Certificate{cnOnly}, roots: ca, serverName: "api.wardle.svc",
			wantReason:   VerifyNoSANs,
			wantSentence: "the serving certificate has no SANs (only CN=api.wardle.svc, which Go clients ignore), the aggregator expects api.wardle.svc",
			wantGoErr:    "x509: certificate relies on legacy Common Name field, use SANs instead",
		},
		{
			name: "expired", chain: []*x509.Certificate{serving(past, "api.wardle.svc")}, roots: past, serverName: "api.wardle.svc",
			wantReason: VerifyExpired, wantPrefix: "the serving certificate expired at ",
		},
		{
			name: "not yet valid", chain: []*x509.Certificate{serving(future, "api.wardle.svc")}, roots: future, serverName: "api.wardle.svc",
			wantReason: VerifyNotYetValid, wantPrefix: "the serving certificate is not valid before 2199-12-31T23:55:00Z (now ",
		},
		{
			name: "client certificate served", chain: []*x509.Certificate{client.Cert}, roots: ca, serverName: "",
			wantReason:   VerifyWrongUsage,
			wantSentence: "the serving certificate is not valid for server auth (extended key usages [client auth])",
			wantGoErr:    "x509: certificate specifies an incompatible key usage",
		},
		{name: "empty chain", roots: ca, wantReason: VerifyNoCertificate, wantSentence: "the backend presented no serving certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyFor(tt.chain, tt.roots.Pool(), tt.serverName)
			if tt.wantReason == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v (%T), want *VerifyError", err, err)
			}
			if ve.Reason != tt.wantReason {
				t.Errorf("Reason = %s, want %s", ve.Reason, tt.wantReason)
			}
			if tt.wantSentence != "" && ve.Error() != tt.wantSentence {
				t.Errorf("sentence:\n got %q\nwant %q", ve.Error(), tt.wantSentence)
			}
			if !strings.HasPrefix(ve.Error(), tt.wantPrefix) {
				t.Errorf("sentence %q lacks prefix %q", ve.Error(), tt.wantPrefix)
			}
			if tt.wantGoErr != "" && (ve.Err == nil || ve.Err.Error() != tt.wantGoErr) {
				t.Errorf("Go error = %v, want %q", ve.Err, tt.wantGoErr)
			}
		})
	}
}

func TestVerifyForSystemRoots(t *testing.T) {
	ca, _ := NewCA("private-ca", Options{})
	kp, _ := ca.IssueServing("x", []string{"api.wardle.svc"}, nil)
	err := VerifyFor([]*x509.Certificate{kp.Cert}, nil, "api.wardle.svc")
	want := `the serving certificate is issued by "CN=private-ca", which is not in the system roots (no caBundle given)`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestDescribe(t *testing.T) {
	ca, _ := NewCA("aggsim-ca", Options{Now: fixedClock})
	kp, err := ca.IssueServing("aggsim-apiserver", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")})
	if err != nil {
		t.Fatal(err)
	}
	kp.Cert.SerialNumber = big.NewInt(0xabc)
	got := Describe(kp.Cert)
	got.SHA256 = "" // depends on the random key
	want := CertSummary{
		Subject: "CN=aggsim-apiserver", Issuer: "CN=aggsim-ca", CommonName: "aggsim-apiserver",
		DNSNames: []string{"localhost"}, IPAddresses: []string{"127.0.0.1", "::1"},
		NotBefore: time.Date(2026, 11, 22, 9, 55, 0, 0, time.UTC), NotAfter: time.Date(2027, 11, 22, 10, 0, 0, 0, time.UTC),
		Serial: "abc", KeyUsages: []string{"digital signature"}, ExtKeyUsages: []string{"server auth"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Describe:\n got %+v\nwant %+v", got, want)
	}
	if s := Describe(ca.Cert).SHA256; len(s) != 64 || strings.ToLower(s) != s {
		t.Errorf("SHA256 %q not 64 lower-case hex digits", s)
	}
}

func TestSplitSANs(t *testing.T) {
	dns, ips := SplitSANs([]string{"a.example", "", "10.0.0.1", "::1", "b"})
	if !reflect.DeepEqual(dns, []string{"a.example", "b"}) || len(ips) != 2 || ips[0].String() != "10.0.0.1" || ips[1].String() != "::1" {
		t.Errorf("SplitSANs = %v %v", dns, ips)
	}
}

func x509VerifyClient(d *DynamicCAFile) x509.VerifyOptions {
	return x509.VerifyOptions{Roots: d.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
}
