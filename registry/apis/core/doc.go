// Package core holds the wire types of the legacy core group (v1) that
// aggsim serves, as k8s.io/api/core/v1 defines them: Namespace, Service,
// Endpoints, ConfigMap and IntOrString, with their defaulting (defaults.go)
// and validation (validation.go) and upstream's messages.
//
// It must not import storage or HTTP handling; only registry/apis/meta.
package core
