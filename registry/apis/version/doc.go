// Package version holds the wire type of GET /version: the server's
// version and build (upstream k8s.io/apimachinery/pkg/version.Info). Its
// doc comments and markers describe it for the OpenAPI documents.
//
// It must not import other aggsim packages but internal/apidoc.
//
// +upstreamPackage=k8s.io/apimachinery/pkg/version
package version

//go:generate go run github.com/aggsim/aggsim/internal/apigen
