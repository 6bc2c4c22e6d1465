// Package apiregistration holds the wire types of apiregistration.k8s.io/v1
// (APIService), mirroring k8s.io/kube-aggregator/pkg/apis/apiregistration/v1,
// with their defaulting, validation and condition helpers.
//
// The Go types are the one description of the wire schema: their json and
// protobuf struct tags, doc comments and markers (see internal/apidoc) are
// what protobuf tables and OpenAPI schemas are derived from;
// zz_generated.docs.go is generated from them (go generate). The package
// must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/kube-aggregator/pkg/apis/apiregistration/v1
package apiregistration

//go:generate go run github.com/aggsim/aggsim/internal/apigen
