// Package request holds what the request path knows about one request,
// mirroring k8s.io/apiserver/pkg/endpoints/request: its RequestInfo (verb,
// group, version, namespace, resource, name, subresource, parsed once from
// the path) and the authenticated user carried in its context.
//
// It must not import anything above the wire types: the proxy and
// discovery packages read the user from here without linking the store or
// the aggregator.
package request
