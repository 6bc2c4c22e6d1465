// Package demo is the demo aggregated API server, used by cmd/aggsim and by
// tests; it is a backend, not part of the aggregator.
//
// It serves the group wardle.example.com as the upstream
// k8s.io/sample-apiserver does: flunders (namespaced, short name fl,
// category all, with /status) in v1alpha1 and v1beta1, and fischers
// (cluster-scoped) in v1alpha1. Both versions share one storage, so an
// object created through one version is read through the other. There is
// no conversion: v1beta1 uses v1alpha1's schema (upstream's v1beta1 has
// flunderReference/fischerReference instead of reference). The REST
// API is registry.NewAPI over the strategies of this package — the same
// generic store and handlers aggsim uses for its own resources, not a copy —
// and this package adds only what the registry leaves to discovery: /apis
// (APIGroupList) and /apis/wardle.example.com (APIGroup), and its OpenAPI
// documents at /openapi/v2 and /openapi/v3 (which aggsim aggregates, so
// kubectl validates and explains flunders and fischers).
//
// Authentication mirrors a backend started with
// --requestheader-client-ca-file and --requestheader-allowed-names: a
// request is served only when it carries a client certificate signed by the
// front-proxy CA whose CN is allowed (front-proxy-client by default), and
// the user comes from X-Remote-User / X-Remote-Group / X-Remote-Extra-*.
// Anything else is answered 401 Status. It reuses the aggregator's
// requestheader authenticator (aggregator.WithAuthentication). There is no
// authorization: every authenticated user may do everything.
//
// A Backend records the last requests it received (method, path, query,
// user, groups, headers as received) in a Recorder, served as JSON at
// /debug/requests to authenticated callers: the "inspector" a user (or a
// test) reads to see what the aggregator forwarded.
//
// A Backend can be told to fail (DebugFailPath, POST ?status=503; 0
// recovers), with the same front-proxy check: every API request, discovery
// included, then answers that code, so the aggregator marks its
// APIServices unavailable, as when a real backend breaks.
//
// For the demo CustomResourceDefinitions (crd.go, pizza.go) it also serves,
// without authentication as webhooks are called, the Pizza CRD's conversion
// webhook (ConversionPath) and two admission webhooks for pizzas
// (pizza_admission.go: MutatePizzaPath defaults toppings, ValidatePizzaPath
// refuses pineapple), which PizzaCRD and PizzaWebhookConfigurations
// register through the demo Service.
//
// What it must not know: routing and proxying. register.go builds the
// objects that register the backend the way a cluster would (Namespace,
// Service, Endpoints, two APIServices) and writes them through any
// registry.API; starting the aggregator and choosing when to register is
// the caller's job (cmd/aggsim's serve --demo).
//
// Caveats a caller can break:
//   - A Backend must not be copied; Start may be called once.
//   - Objects returned by Recorder.Requests are copies; the records inside
//     the Recorder are never modified after they are added.
package demo
