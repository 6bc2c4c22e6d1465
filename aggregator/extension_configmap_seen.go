package aggregator

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"time"
)

// extensionAuthSeen is what a sync of extension-apiserver-authentication
// that found the ConfigMap as required read: the store's revision before
// it read the ConfigMap, the CA bundles and the proxy client certificate
// its sources returned, and the earliest expiry among the certificates it
// combined. While none of that changes (no write anywhere in the store,
// the same bundles and certificate, no certificate expired), a sync would
// read the same, compute the same and write nothing, so the writer skips
// it. The writer polls every second (DefaultExtensionAuthSyncInterval);
// each sync decoded the ConfigMap and parsed and re-encoded its
// certificates, two thirds of what an idle `aggsim serve` allocated
// (issue 21: the idle heap grows until the next collection).
type extensionAuthSeen struct {
	rev                    int64
	clientCA, frontProxyCA []byte
	proxyCert              *tls.Certificate
	// until is the earliest NotAfter of the certificates combined: after
	// it, combining drops that certificate
	until time.Time
}

// extensionAuthInputs returns what a sync reads besides the ConfigMap,
// with the store's revision rev (until is left zero).
func (w *extensionAuthWriter) extensionAuthInputs(rev int64) extensionAuthSeen {
	in := extensionAuthSeen{rev: rev}
	if w.clientCA != nil {
		in.clientCA = w.clientCA()
	}
	if w.frontProxyCA != nil {
		in.frontProxyCA = w.frontProxyCA()
	}
	if w.proxyCert != nil {
		if c, err := w.proxyCert(&tls.CertificateRequestInfo{}); err == nil {
			in.proxyCert = c
		}
	}
	return in
}

// unchanged reports whether in (read now) is what s saw and no
// certificate s combined has expired since.
func (s *extensionAuthSeen) unchanged(in extensionAuthSeen, now time.Time) bool {
	return s != nil && s.rev == in.rev && s.proxyCert == in.proxyCert &&
		bytes.Equal(s.clientCA, in.clientCA) && bytes.Equal(s.frontProxyCA, in.frontProxyCA) &&
		(s.until.IsZero() || !now.After(s.until))
}

// earliestExpiry returns the earliest NotAfter of the certificates of
// infos (zero for none).
func earliestExpiry(infos ...extensionAuthInfo) time.Time {
	var until time.Time
	for _, info := range infos {
		for _, l := range [][]*x509.Certificate{info.clientCA, info.requestHeaderCA} {
			for _, c := range l {
				if until.IsZero() || c.NotAfter.Before(until) {
					until = c.NotAfter
				}
			}
		}
	}
	return until
}
