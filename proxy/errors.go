package proxy

import (
	"errors"
	"fmt"
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
