// Package authentication holds the authentication.k8s.io/v1 wire types a
// k8s.io/apiserver backend sends back to its kube-apiserver (TokenReview,
// SelfSubjectReview) and UserInfo, the identity the request path carries.
//
// It must not import storage or HTTP handling; only registry/apis/meta.
package authentication
