// Package flowcontrol holds the typed view of the
// flowcontrol.apiserver.k8s.io/v1 bodies aggsim stores (FlowSchema and
// PriorityLevelConfiguration specs): Go structs with upstream's JSON
// names, field order and omitempty, their defaulting (upstream
// pkg/apis/flowcontrol/v1/defaults.go) and validation (upstream
// pkg/apis/flowcontrol/validation/validation.go).
//
// The registry keeps these objects as GenericObjects (raw JSON bodies); it
// decodes them into these types to default and validate them and encodes
// them back, so stored bodies come out in upstream's field order. The
// kind and list types (with every field's doc comment and upstream's
// markers) describe the whole wire form: the registry derives the
// kinds' OpenAPI definitions from them. The
// package must not depend on the registry, storage or HTTP serving.
//
// +upstreamPackage=k8s.io/api/flowcontrol/v1
package flowcontrol

//go:generate go run github.com/aggsim/aggsim/internal/apigen
