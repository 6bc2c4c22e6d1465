// Package openapiaggregator merges the OpenAPI documents of the remote
// APIServices with aggsim's own and serves /openapi/v2 and /openapi/v3, as
// kube-aggregator's OpenAPI aggregation controllers do
// (pkg/controllers/openapi and openapiv3).
//
// # What it owns
//
// Controller: it is told each APIService's state (Update, Remove), fetches
// the backends' documents on its own workers through a Fetcher (ETags,
// refetch interval, last good document kept on failure), and serves one
// immutable snapshot: the merged swagger 2.0 document (JSON and protobuf),
// the v3 index and each group-version's v3 document, with upstream's
// hashes, ETags and caching headers.
//
// # What it must not do
//
// It never dials a backend itself: the Fetcher (the aggregator's proxy
// handler, as system:aggregator) does. It does not decide availability and
// does not know the router.
package openapiaggregator
