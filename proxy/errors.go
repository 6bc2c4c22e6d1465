package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
)

// The plain-text messages written to clients on the proxy path. Upstream
// writes them with http.Error (text/plain; charset=utf-8, nosniff, a
// trailing newline), not as a metav1.Status
// (kube-aggregator/pkg/apiserver/handler_proxy.go,
// apimachinery/pkg/util/proxy/upgradeaware.go).
const (
	// msgServiceUnavailable answers a request for an APIService that is not
	// Available, or whose service could not be resolved (503).
	msgServiceUnavailable = "service unavailable"
	// msgMissingUser answers a request without a user in its context (500).
	msgMissingUser = "missing user"
	// msgReachPrefix prefixes a transport error on a normal request (503).
	msgReachPrefix = "error trying to reach service: "
	// msgDialBackendPrefix prefixes a dial error on an upgrade request (503).
	msgDialBackendPrefix = "error dialing backend: "
	// msgRedirectRejected replaces a backend redirect (502, no newline).
	msgRedirectRejected = "the backend attempted to redirect this request, which is not permitted"
)

// ErrServiceUnavailable is returned by Handler.Do when the APIService is
// not Available; ServeHTTP answers the same situation with 503
// `service unavailable`.
var ErrServiceUnavailable = errors.New(msgServiceUnavailable)

// ErrNotProxied is returned by Handler.Do when the Handler has no remote
// target: Update was never called, or the APIService has no spec.service
// (a local APIService, which the aggregator serves itself).
var ErrNotProxied = errors.New("apiservice is not proxied")

// DialError reports that no connection to the backend was established: the
// TCP dial or the TLS handshake (including serving-certificate
// verification and a rejected client certificate) failed, so no byte of the
// request reached the backend. It lets metrics and availability tell
// "never connected" from "the backend failed". Error returns the wrapped
// error's text unchanged, so client-visible messages stay those of Go's
// net and crypto/tls packages, as upstream shows them
// (`dial tcp 127.0.0.1:1: connect: connection refused`,
// `tls: failed to verify certificate: x509: ...`).
type DialError struct {
	// Addr is the host:port that was dialled.
	Addr string
	// Err is the dial or handshake error.
	Err error
}

// Error returns the wrapped error's message.
func (e *DialError) Error() string { return e.Err.Error() }

// Unwrap returns the dial or handshake error.
func (e *DialError) Unwrap() error { return e.Err }

// ServiceNotFoundError reports that the APIService's Service does not
// exist. Its message is the one the availability controller shows
// (reason ServiceNotFound,
// kube-aggregator/pkg/controllers/status/remote/remote_available_controller.go).
type ServiceNotFoundError struct {
	Namespace, Name string
}

// Error returns the availability message for this failure.
func (e *ServiceNotFoundError) Error() string {
	return fmt.Sprintf("service/%s in %q is not present", e.Name, e.Namespace)
}

// ServicePortError reports that a ClusterIP-like Service has no port
// numbered as the APIService's spec.service.port (reason ServicePortError).
type ServicePortError struct {
	Namespace, Name string
	// Port is spec.service.port.
	Port int32
}

// Error returns the availability message for this failure.
func (e *ServicePortError) Error() string {
	return fmt.Sprintf("service/%s in %q is not listening on port %d", e.Name, e.Namespace, e.Port)
}

// EndpointsNotFoundError reports that the Service has no Endpoints object
// (reason EndpointsNotFound).
type EndpointsNotFoundError struct {
	Namespace, Name string
}

// Error returns the availability message for this failure.
func (e *EndpointsNotFoundError) Error() string {
	return fmt.Sprintf("cannot find endpoints for service/%s in %q", e.Name, e.Namespace)
}

// MissingEndpointsError reports that the Endpoints object has no ready
// address in a subset that carries the port named like the service port
// (reason MissingEndpoints).
type MissingEndpointsError struct {
	Namespace, Name string
	// PortName is the service port's name ("" for an unnamed port).
	PortName string
}

// Error returns the availability message for this failure.
func (e *MissingEndpointsError) Error() string {
	return fmt.Sprintf("endpoints for service/%s in %q have no addresses with port name %q", e.Name, e.Namespace, e.PortName)
}

// UnsupportedServiceTypeError reports a Service type the resolver cannot
// route to, with upstream's message `unsupported service type "<type>"`
// (apiserver/pkg/util/proxy/proxy.go).
type UnsupportedServiceTypeError struct {
	Type ServiceType
}

// Error returns upstream's message for this failure.
func (e *UnsupportedServiceTypeError) Error() string {
	return fmt.Sprintf("unsupported service type %q", string(e.Type))
}

// ErrorKind is a coarse class of the error that ended a proxied request:
// the kind label of aggsim's aggsim_proxy_backend_errors_total metric
// (aggsim's own; upstream has no such metric).
type ErrorKind string

// The ErrorKind values, which are the metric's label values.
const (
	// ErrorKindNone is no error, or a request the client cancelled.
	ErrorKindNone ErrorKind = ""
	// ErrorKindDial is a TCP connection that could not be made, or a
	// connection lost (EOF, reset, timeout) before the TLS handshake ended.
	ErrorKindDial ErrorKind = "dial"
	// ErrorKindTLS is a TLS handshake or certificate verification failure,
	// including a TLS alert the backend sent (such as a rejected client
	// certificate).
	ErrorKindTLS ErrorKind = "tls"
	// ErrorKindResolve is a Service that could not be resolved to an
	// endpoint (ServiceNotFoundError, ServicePortError,
	// EndpointsNotFoundError, MissingEndpointsError,
	// UnsupportedServiceTypeError).
	ErrorKindResolve ErrorKind = "resolve"
	// ErrorKindUnavailable is ErrServiceUnavailable.
	ErrorKindUnavailable ErrorKind = "unavailable"
	// ErrorKindOther is any other error (a backend reset after the
	// request was sent, a bad caBundle, ...).
	ErrorKindOther ErrorKind = "other"
)

// ClassifyError returns the kind of err, an error a Handler reports
// through Options.OnRequest or returns from Do: ErrorKindNone for nil and
// for context.Canceled; ErrorKindUnavailable for ErrServiceUnavailable;
// ErrorKindResolve for the resolver's typed errors; for a *DialError,
// ErrorKindTLS when its cause is a TLS error, else ErrorKindDial; for any
// other error, ErrorKindTLS when it is a TLS error (a TLS alert the backend
// sends after the handshake, as a TLS 1.3 backend rejecting the client
// certificate does), else ErrorKindOther. It never fails.
func ClassifyError(err error) ErrorKind {
	if err == nil || errors.Is(err, context.Canceled) {
		return ErrorKindNone
	}
	var (
		snf *ServiceNotFoundError
		spe *ServicePortError
		enf *EndpointsNotFoundError
		me  *MissingEndpointsError
		ust *UnsupportedServiceTypeError
		de  *DialError
	)
	switch {
	case errors.Is(err, ErrServiceUnavailable):
		return ErrorKindUnavailable
	case errors.As(err, &snf), errors.As(err, &spe), errors.As(err, &enf), errors.As(err, &me), errors.As(err, &ust):
		return ErrorKindResolve
	case errors.As(err, &de):
		if isTLSError(de.Err) {
			return ErrorKindTLS
		}
		return ErrorKindDial
	case isTLSError(err):
		return ErrorKindTLS
	}
	return ErrorKindOther
}

// isTLSError reports whether err comes from the TLS handshake, from
// certificate verification, or is a TLS alert.
//
// crypto/tls types only some of its errors. A TLS alert received from the
// peer is a *net.OpError with Op "remote error" whose Err has an unexported
// type (crypto/tls conn.go); an alert aggsim sent is Op "local error". Many
// handshake checks fail with an untyped errors.New("tls: ...")
// (handshake_client*.go), for example `tls: failed to parse certificate from
// server: ...` when the backend sends a certificate that does not parse.
// Those have nothing but their text to go by, so the last check looks at the
// innermost error of the chain only, and only at its "tls: " prefix, which
// every crypto/tls error message carries.
func isTLSError(err error) bool {
	return typedTLSError(err) || strings.HasPrefix(innermost(err).Error(), "tls: ")
}

// typedTLSError is isTLSError without the text fallback.
func typedTLSError(err error) bool {
	var (
		cve *tls.CertificateVerificationError
		ae  tls.AlertError
		rhe tls.RecordHeaderError
		ech *tls.ECHRejectionError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		oe  *net.OpError
	)
	switch {
	case errors.As(err, &cve), errors.As(err, &ae), errors.As(err, &rhe), errors.As(err, &ech),
		errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci):
		return true
	case errors.As(err, &oe) && (oe.Op == "remote error" || oe.Op == "local error"):
		return true
	}
	return false
}

// innermost follows err's Unwrap chain (the first error of a multi-error)
// to its end.
func innermost(err error) error {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if errs := u.Unwrap(); len(errs) > 0 {
				next = errs[0]
			}
		}
		if next == nil {
			return err
		}
		err = next
	}
}

// IsMissingSAN reports whether err is a verification failure of a serving
// certificate that has no subject alternative name at all, only a
// CommonName (which Go, like upstream, no longer accepts as a host name).
// It mirrors the condition of upstream's
// apiserver_kube_aggregator_x509_missing_san_total counter
// (kube-aggregator/pkg/apiserver/metrics.go,
// apiserver/pkg/util/x509metrics/server_cert_deprecations.go).
func IsMissingSAN(err error) bool {
	if err == nil {
		return false // before he is declared: errors.As moves it to the heap
	}
	var he x509.HostnameError
	if !errors.As(err, &he) || he.Certificate == nil {
		return false
	}
	c := he.Certificate
	return len(c.DNSNames) == 0 && len(c.IPAddresses) == 0 && len(c.EmailAddresses) == 0 && len(c.URIs) == 0
}
