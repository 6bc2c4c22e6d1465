package aggregator

import (
	"crypto/tls"
	"log"
	"net/http"
	"time"

	"golang.org/x/net/http2"
)

// Secure serving settings of kube-apiserver
// (k8s.io/apiserver/pkg/server/secure_serving.go), which aggsim's listener
// uses as they are.
const (
	// ServingIdleTimeout closes a keep-alive connection (HTTP/1.1 or
	// HTTP/2) after 90 s without a request, matching
	// http.DefaultTransport's keep-alive timeout.
	ServingIdleTimeout = 90 * time.Second
	// ServingReadHeaderTimeout bounds reading a request's headers (32 s,
	// just shy of the 34 s request-timeout upper bound upstream).
	ServingReadHeaderTimeout = 32 * time.Second
	// ServingMaxHeaderBytes bounds a request's header block (1 MiB).
	ServingMaxHeaderBytes = 1 << 20
	// HTTP2MaxConcurrentStreams is kube-apiserver's per-connection stream
	// limit since the HTTP/2 rapid-reset fix (CVE-2023-44487): 100, the Go
	// HTTP/2 client's default.
	HTTP2MaxConcurrentStreams = 100
	// http2FrameAndStreamBuffer is the HTTP/2 read frame size and
	// per-stream upload buffer upstream sizes to 256 KiB, enough for most
	// API POST bodies in one frame.
	http2FrameAndStreamBuffer = 256 * 1024
)

// NewSecureServer returns the http.Server aggsim serves h with over TLS
// (tlsConfig; its NextProtos should offer h2 and http/1.1): upstream's
// idle, read-header and header-size limits, and HTTP/2 with upstream's
// stream limit, frame size and upload buffers; each connection's context
// carries its client-certificate verifications (ConnContext). errorLog
// receives the server's connection errors (nil: the log package's default
// logger). The error is http2.ConfigureServer's.
func NewSecureServer(h http.Handler, tlsConfig *tls.Config, errorLog *log.Logger) (*http.Server, error) {
	s := &http.Server{
		Handler:           h,
		TLSConfig:         tlsConfig,
		MaxHeaderBytes:    ServingMaxHeaderBytes,
		IdleTimeout:       ServingIdleTimeout,
		ReadHeaderTimeout: ServingReadHeaderTimeout,
		ErrorLog:          errorLog,
		ConnContext:       ConnContext, // authn_conncache.go
	}
	h2 := &http2.Server{
		IdleTimeout:                  ServingIdleTimeout,
		MaxConcurrentStreams:         HTTP2MaxConcurrentStreams,
		MaxReadFrameSize:             http2FrameAndStreamBuffer,
		MaxUploadBufferPerStream:     http2FrameAndStreamBuffer,
		MaxUploadBufferPerConnection: http2FrameAndStreamBuffer * HTTP2MaxConcurrentStreams,
	}
	if err := http2.ConfigureServer(s, h2); err != nil {
		return nil, err
	}
	return s, nil
}
