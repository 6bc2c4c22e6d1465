// Command apigen writes zz_generated.docs.go into an API package: the
// descriptions and markers of the package's wire types, read from their
// doc comments with go/ast (conventions: internal/apidoc's package
// comment), registered with internal/apidoc at init (built on first lookup). Protobuf field tables
// and OpenAPI schemas are then derived from the Go types plus that data
// (registry/rest, registry/openapi), so a type is described once, in Go.
//
// It mirrors what upstream's generators read (k8s.io/kube-openapi's
// openapi-gen and k8s.io/code-generator's go-to-protobuf take the same
// comments and markers), not how they are written. It runs from the
// //go:generate line in each API package's doc.go
// (go generate ./registry/apis/...): with no argument it reads the
// package in the current directory, else the directory given.
//
// It documents every exported type that is a struct with a json or
// protobuf struct tag, an empty struct (a wire type that carries no data,
// like meta.Patch), or a type that carries a marker; of such a struct,
// every field with a description or a marker. Unknown marker keys, or type
// markers on fields and field markers on types, are errors, so a typo does
// not silently change a schema (a prose line starting with "+" is read as
// a marker too: wrap it differently).
//
// It owns the reading of comments and the writing of the generated files;
// it must not derive protobuf or OpenAPI schemas (their consumers do, at
// run time) nor be imported by production code.
package main
