// Package aggregator assembles aggsim's server: kube-aggregator's place at
// the head of kube-apiserver's delegation chain (k8s.io/kube-aggregator
// pkg/apiserver).
//
// # What it owns
//
//   - Server (server.go): wiring of the store's REST API, discovery, the
//     router, the proxy handlers, the informers and the controllers.
//   - The request chain (chain.go): panic recovery, request id and access
//     log, RequestInfo, authentication (authn.go: client certificates,
//     bearer tokens, front-proxy request headers, anonymous), impersonation
//     and authorization (authz.go), and the timeout, run one after another
//     in one function. The chain asks the router once which handler serves
//     a request and whether it is proxied, and serves that handler.
//   - The router (router.go): a PathRecorderMux-like table swapped
//     atomically. It is the one place that remembers what each APIService
//     routes: its /apis/<group>/<version> subtree, its proxy handler, and
//     /apis/<group> while any version of the group is routed. Built-in
//     group/versions always win over a remote APIService.
//   - The controllers, each behind narrow interfaces and level-triggered
//     from the store's watch (informer.go): registration
//     (controller_registration.go: a lister and an APIHandlerManager that
//     fans an APIService out to the router, proxy, discovery and OpenAPI),
//     availability (controller_availability.go: a lister, a prober and a
//     status writer), the extension-apiserver-authentication writer, and
//     kube-apiserver's API Priority and Fairness configuration producer
//     and consumer (controller_apf.go: the bootstrap FlowSchemas and
//     PriorityLevelConfigurations, the FlowSchema Dangling condition),
//     which write through the REST API in-process as a loopback client,
//     and kube-controller-manager's namespace controller
//     (controller_namespace.go; off with Options.Controllers "-namespace"),
//     which sends its requests through the whole handler chain in-process
//     as system:serviceaccount:kube-system:namespace-controller, so its
//     deletes of aggregated content go through the proxy; explain_namespace.go
//     explains a namespace it cannot finish. kube-controller-manager's
//     garbage collector (controller_gc.go; off with "-garbagecollector")
//     keeps an ownerReferences graph of every resource in discovery (own
//     resources from their store's watch, aggregated ones watched through
//     the chain as system:serviceaccount:kube-system:generic-garbage-collector)
//     and deletes or orphans dependents; explain_gc.go reports its stall.
//     Its serviceaccount controller (controller_serviceaccount.go) keeps a
//     default ServiceAccount in every active namespace (off with
//     "-serviceaccount").
//   - ServiceAccount tokens (serviceaccount_token.go: signing with the
//     certs package's keys, the JWT bearer authenticator;
//     serviceaccount_tokenrequest.go: the serviceaccounts/token
//     subresource; serviceaccount_oidc.go: issuer discovery).
//   - The review APIs a k8s.io/apiserver backend calls back into
//     (reviews.go), health checks, metrics and the explain/debug views
//     (explain_access.go and explain_access_rbac.go: why a user may or may
//     not do something, from the RBAC authorizer's index).
//   - The inspector's data (inspector.go, inspector_api.go): with
//     Options.InspectorRingSize the chain records every request (identity,
//     decisions, route, the proxy hop through proxy.Hop) into a bounded
//     ring, served as JSON and server-sent events under /debug/aggsim/,
//     with the discovery order explained and the discovery documents.
//     aggregator/inspectorpage renders it as a page.
//
// # What it must not do
//
// It knows neither storage nor TLS details: objects come from the
// registry's generic store through informers, backends are reached only
// through package proxy (which owns dialling, TLS and the classification of
// their errors), and OpenAPI documents are merged in aggregator/openapiaggregator.
// Nothing below it imports it (internal/archtest checks the layering).
package aggregator
