// Package celrules compiles and evaluates the x-kubernetes-validations
// (CEL) rules of a CustomResourceDefinition schema as
// apiextensions-apiserver 1.33 does: the CEL environment typed from the
// structural schema (pkg/apiserver/schema/cel and apiserver/pkg/cel), the
// compile-time checks and cost limits of a CRD create/update
// (pkg/apis/apiextensions/validation), and the evaluation of rules on
// custom objects with upstream's messages, reasons, field paths and
// runtime cost budget.
//
// It is pure: it takes a *structural.Schema and objects as map[string]any
// decoded with json.Decoder.UseNumber, and returns meta.FieldErrors. It
// must not import wire types, storage or HTTP serving, and it does not run
// the schema (OpenAPI) validation itself: callers run structural.Validate
// first and skip CEL rules when it reported errors, as upstream does.
package celrules
