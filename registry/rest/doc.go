// Package rest serves the registry's stores over HTTP, as
// k8s.io/apiserver/pkg/endpoints/handlers does: one API handler for the
// legacy core group under /api/v1 and every named group under
// /apis/<group>/<version>.
//
// # What it owns
//
//   - Routing of resource paths to verbs (get, list, watch, create, update,
//     patch, delete, deletecollection) and the /status subresource.
//   - Request bodies: bounded reading (3 MiB, 413 beyond), JSON, YAML and
//     protobuf decoding (protobuf.go) with strict or warned unknown fields.
//   - Patches: JSON patch, merge patch, strategic merge patch, and
//     server-side apply with field ownership (fieldmanager.go).
//   - Responses: objects, lists and watch streams in the format
//     registry/negotiation picked, server-side tables, dryRun.
//
// # What it must not do
//
// It holds no state of its own and no storage logic: every read and write
// goes through a registry.Store. It never proxies and never decides
// discovery order.
package rest
