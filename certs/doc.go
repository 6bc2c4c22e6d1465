// Package certs owns aggsim's X.509 material: the certificate authorities,
// the serving certificate, the admin client certificate, the front-proxy CA
// and front-proxy client certificate the aggregator presents to backends,
// the certificates a demo backend serves with, the ServiceAccount token keys
// (sa.key/sa.pub, read or generated on first use), the kubeconfig model (the
// admin kubeconfig it writes, the kubeconfigs `aggsim explain` reads), and
// the reloading of certificate and CA files while the server runs.
//
// It knows nothing about HTTP routing, APIServices or storage: callers hand
// it paths and names and get back files, PEM bytes, *tls.Certificate values
// and *x509.CertPool values.
//
// The on-disk layout follows kubeadm's file names (ca.crt, apiserver.crt,
// front-proxy-ca.crt, front-proxy-client.crt, ...), see EnsurePKI. Keys are
// written as PKCS#8 "PRIVATE KEY" PEM blocks (readable by Go's crypto/tls,
// kubectl and curl/OpenSSL) with mode 0600; certificates as "CERTIFICATE"
// blocks with mode 0644; directories are created 0700. Every file is written
// to a temporary name and renamed into place, so a reader (for example a
// DynamicCertificate) never sees a half-written file; a certificate and its
// key are still two files, so a reader may briefly see a new certificate
// beside an old key, which the reloaders treat as "keep the old pair".
//
// Caveats a caller can break:
//   - A *CA, *KeyPair and their PEM slices are shared, not copied; do not
//     modify them.
//   - Listener funcs registered with AddListener run on the goroutine that
//     noticed the change (Run's loop or a Reload caller); they must not block
//     and must not call Reload.
package certs
