package aggregator

import "fmt"

// The reasons of the Available condition, verbatim as upstream's available
// condition controllers write them
// (kube-aggregator/pkg/controllers/status/remote/remote_available_controller.go
// and local/local_available_controller.go; captured in
// testdata/kube-1.33/b-status). Status False unless stated otherwise.
const (
	// ReasonLocal: the APIService has no spec.service; status True.
	ReasonLocal = "Local"
	// ReasonPassed: every check passed; status True.
	ReasonPassed = "Passed"
	// ReasonServiceNotFound: the Service named by spec.service is missing.
	ReasonServiceNotFound = "ServiceNotFound"
	// ReasonServiceAccessError: the Service could not be read; status
	// Unknown. aggsim reads Services from memory, so it never occurs.
	ReasonServiceAccessError = "ServiceAccessError"
	// ReasonServicePortError: a ClusterIP Service has no port numbered
	// spec.service.port.
	ReasonServicePortError = "ServicePortError"
	// ReasonEndpointsNotFound: the Service has no Endpoints object.
	ReasonEndpointsNotFound = "EndpointsNotFound"
	// ReasonMissingEndpoints: no subset has a ready address and a port
	// named like the Service port.
	ReasonMissingEndpoints = "MissingEndpoints"
	// ReasonFailedDiscoveryCheck: every GET /apis/<group>/<version> probe
	// failed (or the endpoint could not be resolved).
	ReasonFailedDiscoveryCheck = "FailedDiscoveryCheck"
)

// The messages of the Available condition. The Local message comes from
// kube-aggregator/pkg/apis/apiregistration/helpers.go. The messages of the
// ServiceNotFound, ServicePortError, EndpointsNotFound and MissingEndpoints
// reasons are the Error() texts of proxy's resolver errors.
const (
	// MessageLocal is the message of every local APIService.
	MessageLocal = "Local APIServices are always available"
	// MessagePassed is the message of a remote APIService that passed.
	MessagePassed = "all checks passed"
)

// discoveryFailure is the probe error of one attempt that got an error or
// a bad status: `failing or missing response from <url>: <err>`.
type discoveryFailure struct {
	url string
	err error
}

func (e *discoveryFailure) Error() string {
	return fmt.Sprintf("failing or missing response from %s: %v", e.url, e.err)
}

func (e *discoveryFailure) Unwrap() error { return e.err }

// badStatusError is the probe error for a response outside 200..299:
// `bad status from <url>: <code>`.
type badStatusError struct {
	url  string
	code int
}

func (e *badStatusError) Error() string { return fmt.Sprintf("bad status from %s: %d", e.url, e.code) }

// guardTimeoutError is the probe error when an attempt has not finished
// after the 6 s guard timer: `timed out waiting for <url>`.
type guardTimeoutError struct{ url string }

func (e *guardTimeoutError) Error() string { return "timed out waiting for " + e.url }
