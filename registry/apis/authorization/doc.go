// Package authorization holds the authorization.k8s.io/v1 wire types:
// SubjectAccessReview (and its Local and Self variants) and
// SelfSubjectRulesReview, as k8s.io/api/authorization/v1 defines them.
// Their doc comments and markers describe them for the OpenAPI documents.
//
// It must not import storage or HTTP handling; only registry/apis/meta.
//
// +upstreamPackage=k8s.io/api/authorization/v1
package authorization

//go:generate go run github.com/aggsim/aggsim/internal/apigen
