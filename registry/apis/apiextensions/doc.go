// Package apiextensions holds the wire types of apiextensions.k8s.io/v1
// (CustomResourceDefinition), mirroring
// k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1, with their
// defaulting (defaults.go upstream) and the validation of names, group,
// scope, versions, subresources and printer columns
// (pkg/apis/apiextensions/validation/validation.go upstream). Checking
// openAPIV3Schema for structure belongs to the structural-schema engine,
// not to this package.
//
// The Go types are the one description of the wire schema: their json and
// protobuf struct tags, doc comments and markers (see internal/apidoc) are
// what protobuf tables and OpenAPI schemas are derived from;
// zz_generated.docs.go is generated from them (go generate). The package
// must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
package apiextensions

//go:generate go run github.com/aggsim/aggsim/internal/apigen
