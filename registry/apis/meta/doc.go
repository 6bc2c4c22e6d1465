// Package meta holds the wire types shared by every API group (ObjectMeta,
// ListMeta, Time, Status, DeleteOptions, Condition, Table, discovery
// documents...), mirroring k8s.io/apimachinery/pkg/apis/meta/v1, plus the
// error vocabulary (Status reasons, StatusError, FieldError), selectors and
// metadata validation every resource shares.
//
// The Go types are the one description of the wire schema: their json and
// protobuf struct tags, doc comments and markers (see internal/apidoc) are
// what protobuf tables and OpenAPI schemas are derived from;
// zz_generated.docs.go is generated from them (go generate). The package
// must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/apimachinery/pkg/apis/meta/v1
package meta

//go:generate go run github.com/aggsim/aggsim/internal/apigen
