// Package rbac holds the wire types of rbac.authorization.k8s.io/v1
// (Role, ClusterRole, RoleBinding, ClusterRoleBinding), mirroring
// k8s.io/api/rbac/v1, with their defaulting and validation (upstream
// pkg/apis/rbac/validation/validation.go) and the rule matching of
// upstream's RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go).
//
// The Go types are the one description of the wire schema: their json and
// protobuf struct tags, doc comments and markers (see internal/apidoc) are
// what protobuf tables and OpenAPI schemas are derived from;
// zz_generated.docs.go is generated from them (go generate). The package
// must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/api/rbac/v1
package rbac

//go:generate go run github.com/aggsim/aggsim/internal/apigen
