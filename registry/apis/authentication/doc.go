// Package authentication holds the authentication.k8s.io/v1 wire types a
// k8s.io/apiserver backend sends back to its kube-apiserver (TokenReview,
// SelfSubjectReview) and UserInfo, the identity the request path carries.
// Their doc comments and markers describe them for the OpenAPI documents.
//
// It must not import storage or HTTP handling; only registry/apis/meta.
//
// +upstreamPackage=k8s.io/api/authentication/v1
package authentication

//go:generate go run github.com/aggsim/aggsim/internal/apigen
