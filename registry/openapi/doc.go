// Package openapi builds OpenAPI documents as kube-apiserver 1.33 serves
// them (k8s.io/apiserver's endpoint installer routes rendered by
// kube-openapi's builder and builder3): swagger 2.0 for /openapi/v2 and
// one OpenAPI 3.0 document per /openapi/v3 index key, with upstream's
// paths (watch and discovery paths too), operations, parameters (sorted,
// shared ones lifted to the path, v2's reusable ones in #/parameters),
// extensions (x-kubernetes-group-version-kind, -action, the
// strategic-merge-patch and list/map-type ones kubectl apply reads) and
// every object's keys in upstream's order, from a DocumentSpec of
// resources and definitions (aggsim's own in package registry, the demo
// backend's in package demo).
//
// It owns the format-neutral Schema and its rendering, the paths and
// operations of a resource, and the derivation of definitions from Go
// wire types: by reflection over the types (field order, Go types, json
// and patch struct tags) plus their generated documentation
// (internal/apidoc: descriptions and markers), computed once by callers,
// as upstream's openapi-gen derives them from the same Go types. The
// apimachinery definitions (ObjectMeta, ListMeta, Status, DeleteOptions,
// Condition, ...) are derived here and added to every document.
//
// It must not know aggsim's resources, strategies or storage (package
// registry passes them in), nor serve HTTP, hash documents or build the
// /openapi/v3 index (package registry and the aggregator do).
package openapi
