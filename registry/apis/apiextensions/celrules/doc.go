// Package celrules compiles and evaluates the x-kubernetes-validations
// (CEL) rules of a CustomResourceDefinition schema as
// apiextensions-apiserver 1.33 does: the CEL environment typed from the
// structural schema with the Kubernetes libraries (pkg/apiserver/schema/cel
// and apiserver/pkg/cel), the compile-time checks and cost limits of a CRD
// create/update (pkg/apis/apiextensions/validation), and the evaluation of
// rules on custom objects with upstream's messages, reasons, field paths,
// ratcheting and runtime cost budget.
//
// How a caller uses it, in upstream's order:
//   - CRD create/update: structural.New(schema, fldPath); only when it
//     returned no errors, Compile(schema, fldPath) and report its errors
//     after structural's (upstream compiles rules only for a structural
//     schema with valid defaults).
//   - custom object create/update: default and prune as structural does,
//     then structural.Validate; when BlockingError(schemaErrs) reports true
//     append its error instead of running the rules, else append
//     Validator.Validate(obj, old) (or ValidateWithWarnings and send the
//     warnings as Warning headers).
//
// It is pure: it takes a *structural.Schema and objects as map[string]any
// decoded with json.Decoder.UseNumber, and returns meta.FieldErrors. It
// must not import wire types, storage or HTTP serving, and it does not run
// the schema (OpenAPI) validation itself.
package celrules
