// Package proxy is the per-APIService reverse proxy of the aggregation layer:
// it turns an authenticated client request for /apis/<group>/<version>/...
// into a request to the APIService's backend, mirroring
// k8s.io/kube-aggregator/pkg/apiserver/handler_proxy.go together with the
// helpers it uses (apimachinery/pkg/util/proxy, client-go/transport).
//
// # What it owns
//
//   - Handler (handler.go): one per remote APIService. It answers 503
//     `service unavailable` when the aggregator says the APIService is not
//     Available, resolves spec.service to a host:port, rewrites the request
//     (decoded path, query re-encoded with sorted keys, Host and
//     X-Forwarded-* set to the dialled backend) and streams the exchange
//     through net/http/httputil.ReverseProxy (watches flush at once,
//     WebSocket/SPDY upgrades pass through over HTTP/1.1). The front-proxy
//     identity headers are set there too: Authorization, Impersonate-* and
//     every client-sent X-Remote-* header are removed before X-Remote-User,
//     X-Remote-Uid, X-Remote-Group (one field per group) and
//     X-Remote-Extra-<escaped key> are set from the user in the request
//     context (request.UserFrom). Handler.Do sends the aggregator's own
//     requests (discovery, OpenAPI) through the same rewrite.
//   - Finding and reaching the backend (backend.go): the resolver over a
//     ServiceCache the aggregator feeds from its informers (ExternalName
//     services resolve to https://<externalName>:<spec.service.port>;
//     ClusterIP, NodePort and LoadBalancer services through their Endpoints
//     to a ready address carrying the port whose name matches the service
//     port), and Transports: one client transport per distinct (caBundle,
//     ServerName <service>.<namespace>.svc, insecureSkipTLSVerify) that
//     presents the front-proxy client certificate, speaks HTTP/2 when the
//     backend offers it and wraps "never connected" failures in *DialError.
//     CaptureChain does the same handshake without verification, for
//     explain.
//   - The own HTTP/2 client path (h2conn.go): plain GETs and HEADs carrying
//     the client's Accept-Encoding go to an HTTP/2 backend over a connection
//     of the transport's own (x/net/http2's Framer and hpack), written from
//     the handler's goroutine with Audit-Id never indexed; everything else,
//     and every backend that negotiates HTTP/1.1, takes net/http's transport.
//   - The inspector's hop record (inspect.go): a Handler built with
//     Options.RecordHops fills the *Hop the request's context carries
//     (address, server name, headers sent and received, the backend's
//     certificate); without the option it never looks.
//   - The errors (errors.go): the resolver's typed errors with upstream's
//     texts, and ClassifyError, the one place a backend error is sorted
//     into dial, tls, resolve, unavailable or other.
//
// # What it must not know
//
// It never decides availability: the aggregator's availability controller
// does, and passes the verdict in Target.Available. It does not import the
// aggregator, discovery or the registry's store (internal/archtest checks
// it), and does not serve local APIServices (those without spec.service).
//
// # Caveats
//
//   - Handler and Transports hold atomics and mutexes: do not copy them.
//   - Every request served by a Handler must carry a user in its context
//     (request.WithUser); without one the Handler answers 500
//     `missing user`, as upstream does.
//   - The Audit-ID request header is forwarded as received; the aggregator's
//     request chain is expected to set it on the incoming request.
//   - When the front-proxy client certificate changes, call
//     Transports.CloseIdleConnections: cached transports are dropped, so the
//     next request opens a new connection that presents the new
//     certificate. Handlers pick up the new transports on their next
//     request without an Update.
//   - httputil.ReverseProxy aborts a response whose body copy fails half
//     way by panicking with http.ErrAbortHandler; a recovering filter in
//     front of the Handler must let that value through (or ignore it).
package proxy
