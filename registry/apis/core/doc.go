// Package core holds the wire types of the legacy core group subset aggsim
// serves (Namespace, Service, Endpoints, ConfigMap, Event, ResourceQuota,
// LimitRange, and the Quantity of resource lists), mirroring
// k8s.io/api/core/v1, with their defaulting and validation.
//
// The Go types are the one description of the wire schema: their json and
// protobuf struct tags, doc comments and markers (see internal/apidoc) are
// what protobuf tables and OpenAPI schemas are derived from;
// zz_generated.docs.go is generated from them (go generate). The package
// must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/api/core/v1
package core

//go:generate go run github.com/aggsim/aggsim/internal/apigen
