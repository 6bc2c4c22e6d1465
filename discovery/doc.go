// Package discovery serves the aggregation layer's discovery documents:
// legacy /apis (APIGroupList), /apis/<group> (APIGroup), /api (APIVersions),
// and aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) for
// /apis and /api. It mirrors kube-aggregator's pkg/apiserver/handler_apis.go
// and handler_discovery.go, and apiserver's endpoints/discovery/aggregated.
//
// What it owns: the priority ordering of groups and versions (order.go,
// including the kube-aware version comparison), the ready bytes of every
// document (handler_apis.go, handler_group.go, handler_api.go,
// aggregated.go), the negotiation of the Accept header (negotiate.go), and
// a cache of each backend's resource lists (fetch.go). Legacy documents are
// written in protobuf through registry/negotiation's registered encoder
// (EncodeProtobufJSON, which the REST layer provides): discovery links no
// protobuf schema of its own.
//
// What it must not know: routing, proxying, TLS and availability probing.
// It makes no network call of its own: every backend request goes through
// the injected [Fetcher], which the aggregator implements by sending the
// request through its proxy handler, so discovery sees what a client sees.
// It does not import the aggregator or proxy packages.
//
// The central type is [Manager]. The registration controller calls
// [Manager.Set], [Manager.Update] and [Manager.Remove] whenever an APIService
// changes; each call rebuilds every document once, into immutable bytes that
// are swapped in atomically. Request handlers never sort or encode: they
// pick the ready bytes for the negotiated media type, set headers and write.
//
// Caveats (invariants a caller can break):
//   - [APIService] values are copied by the Manager; byte slices in them
//     (CABundle, Resources) must not be modified after they are passed in.
//   - A Manager must not be copied after first use (it holds atomics and a
//     mutex).
//   - Remote resource lists are fetched only by [Manager.Run] (in the
//     background) or [Manager.Refresh] / [Manager.Sync] (synchronously).
//     Without either, remote versions that were never fetched are left out
//     of aggregated discovery, as upstream does before its first sync.
package discovery
