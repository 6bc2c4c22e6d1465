// Package admission is aggsim's admission chain for the objects it serves
// itself: MutatingWebhookConfiguration and ValidatingWebhookConfiguration
// webhooks called as kube-apiserver 1.33 calls them
// (k8s.io/apiserver/pkg/admission/plugin/webhook/{mutating,validating}):
// rules, scope, namespace and object selectors, CEL match conditions,
// dry-run and side effects, timeouts, failure policies, AdmissionReview
// v1 and v1beta1, JSONPatch mutation with reinvocation, warnings, and
// upstream's error texts. A Dispatcher is a registry.Admission: every
// registry.Store built with it (built-in resources and, through the same
// store, custom resources) runs it on create, update and delete.
//
// It owns the webhook calls (their TLS, resolution through a
// proxy.ServiceResolver, timeouts), a bounded record of recent calls
// for /debug/aggsim/webhooks and one of recent refusals (Refusals; webhooks
// and policies) for `aggsim explain webhook --last-denied`. It must not know the HTTP request handling
// of the API (registry/rest) or store anything: configurations and
// namespaces are read through Source.
package admission
