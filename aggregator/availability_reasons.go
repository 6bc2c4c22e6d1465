package aggregator

import "fmt"

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
