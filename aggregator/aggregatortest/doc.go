// Package aggregatortest runs a real Kubernetes API aggregation layer
// (aggsim, emulating kube-apiserver 1.33's kube-aggregator) inside
// `go test`, in milliseconds, in the spirit of net/http/httptest. It is for
// developers of aggregated API servers and of controllers and clients that
// depend on discovery and on APIService routing, who would otherwise need
// kind (a Docker cluster) or envtest (etcd and kube-apiserver binaries,
// with no Service routing to a loopback backend).
//
// The three ideas:
//   - Start (or NewServer) serves the aggregator on 127.0.0.1:0 over TLS
//     (HTTP/2 and HTTP/1.1) with an in-memory store and a fresh PKI; the
//     Server hands out what a client needs without client-go: URL, the CA
//     PEM, an admin *tls.Config and *http.Client, a kubeconfig (bytes and
//     file), and the front-proxy CA and client certificate.
//   - Server.RegisterBackend serves an http.Handler as an aggregated API
//     server (TLS certificate for <service>.<namespace>.svc), creates its
//     Namespace, Service, Endpoints and APIServices, and returns once they
//     are Available and in aggregated discovery; RequireFrontProxy guards a
//     handler as a real backend's requestheader authenticator does.
//   - A Backend injects faults for tests of clients: SetLatency, FailWith,
//     DropConnections, PresentWrongCertificate, and Restore.
//
// It owns only test scaffolding: certificates, listeners and the objects
// a cluster administrator would create. It does not reach into the
// aggregator's internals; everything goes through the aggregator's store
// and its HTTPS endpoint, as a user's kubectl and backend would.
//
// Caveats a caller can break:
//   - Faults hit every request the backend gets, including the
//     aggregator's availability probe (GET /apis/<group>/<version> every
//     DefaultAvailabilityCheckInterval, and on every change of an
//     APIService, Service or Endpoints). After FailWith or
//     DropConnections the APIService turns unavailable at the next probe
//     and the aggregator itself answers 503 `service unavailable`, as
//     upstream does. Start with WithAvailabilityCheckInterval(time.Hour)
//     to keep seeing the backend's failure through the proxy.
//   - A handler given to RegisterBackend must answer GET
//     /apis/<group>/<version> with a 2xx APIResourceList, or the
//     APIService never becomes Available and RegisterBackend fails.
//   - Server.Client is shared by every caller; change a copy of
//     AdminTLSConfig instead.
//   - Servers and Backends must not be copied. Start and RegisterBackend
//     clean up with t.Cleanup; NewServer and AddBackend need Close.
package aggregatortest
