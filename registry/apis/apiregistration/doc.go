// Package apiregistration holds the apiregistration.k8s.io/v1 wire types,
// as k8s.io/kube-aggregator/pkg/apis/apiregistration/v1 defines them:
// APIService, its defaulting and validation with upstream's messages, and
// the reasons and messages of its Available condition.
//
// It must not import storage or HTTP handling; only registry/apis/meta.
package apiregistration
