// Package structural is the schema engine of CustomResourceDefinitions: it
// parses one openAPIV3Schema, checks it as apiextensions-apiserver checks a
// CRD's schema (structural-schema rules, forbidden keywords, x-kubernetes-*
// combinations, metadata restrictions, defaults), and then validates,
// prunes and defaults custom objects against it with upstream's field
// paths and messages.
//
// It mirrors k8s.io/apiextensions-apiserver/pkg/apiserver/schema (structural
// schema, pruning, defaulting, listtype, objectmeta),
// pkg/apis/apiextensions/validation (the CRD schema checks) and the value
// validator of k8s.io/kube-openapi/pkg/validation/validate that upstream
// runs on custom resources.
//
// It owns no wire types: it takes the schema as JSON bytes and objects as
// map[string]any decoded with json.Decoder.UseNumber. It must not import
// the CRD wire types (registry/apis/apiextensions), storage or HTTP
// serving, and it does not evaluate x-kubernetes-validations (CEL) rules;
// Rules exposes them for the caller.
//
// Deterministic order: upstream walks Go maps, so errors about sibling
// properties come in random order. Here every walk over properties or
// object keys goes in sorted key order; within one object the value
// validator reports, as kube-openapi does, additionalProperties values
// first, then declared properties, then missing required fields (in the
// schema's order).
package structural
