// Package coordination holds the typed view of the coordination.k8s.io/v1
// Lease aggsim stores: Go structs with upstream's JSON names, field order
// and omitempty, and upstream's validation
// (pkg/apis/coordination/validation/validation.go). The registry keeps
// Leases as GenericObjects and decodes the spec into these types to
// validate it; the OpenAPI definition is derived from them. The package
// must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/api/coordination/v1
package coordination

//go:generate go run github.com/aggsim/aggsim/internal/apigen
