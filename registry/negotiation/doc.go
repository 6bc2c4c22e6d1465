// Package negotiation decides how an answer goes on the wire and writes
// it, as k8s.io/apiserver/pkg/endpoints/handlers/negotiation and
// responsewriters do: the one Accept parser of aggsim (ParseAccept), the
// response format of resource requests (Output: JSON or YAML, Table or
// PartialObjectMetadata), pretty printing, Warning headers, and the one
// writer of Status errors (WriteStatus).
//
// It imports only the wire types: discovery, the proxy's neighbours and the
// REST layer all use it without linking the store.
package negotiation
