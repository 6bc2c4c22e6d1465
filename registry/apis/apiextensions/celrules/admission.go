package celrules

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// OutOfBudget is the error detail upstream gives when the runtime cost
// budget of a request's expressions (RuntimeCELCostBudget) runs out, for
// CRD rules and admission policies alike (apiserver/pkg/admission/plugin/cel
// filter.go, apiextensions' schema/cel/validation.go).
const OutOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run"

// EnvOptions returns the options of kube-apiserver 1.33's base CEL
// environment for new expressions (apiserver/pkg/cel/environment/base.go
// at compatibility version 1.32): the cel-go options, strings v2, sets,
// two-variable comprehensions, optional types and the Kubernetes lists,
// regex, URL, IP, CIDR, quantity and format libraries with their cost
// estimates. Admission expressions (webhook matchConditions and
// ValidatingAdmissionPolicies) are compiled in this environment plus their
// variables, as CRD rules are; the slice is new on every call.
func EnvOptions() []cel.EnvOption {
	return baseEnvOptions()
}

// RuntimeProgramOptions returns the program options upstream evaluates a
// CEL expression with: cost tracking with the Kubernetes libraries'
// runtime costs and the per-call limit PerCallLimit (1,000,000; beyond it
// evaluation stops with cel-go's `operation cancelled: actual cost limit
// exceeded`), interrupt checks every 100 comprehension iterations and
// regex precompilation. EvalDetails.ActualCost of a program built with
// them is the cost to charge against RuntimeCELCostBudget.
func RuntimeProgramOptions() []cel.ProgramOption {
	return programOptions(&costEstimator{})
}

// Field is one field of an ObjectType: its name and CEL type.
type Field struct {
	Name string
	Type *types.Type
}

// ObjectTypes declares named CEL object types for the type checker (as
// DeclTypes with fields do upstream, e.g. admission's
// kubernetes.AdmissionRequest and kubernetes.Namespace): each name maps
// to its fields. Values of these types at evaluation time are plain maps,
// as upstream's admission activation passes them. The option replaces the
// environment's type provider, so give it once per environment.
func ObjectTypes(defs map[string][]Field) cel.EnvOption {
	objs := map[string]*declType{}
	for name, fields := range defs {
		d := &declType{kind: kindObject, cel: types.NewObjectType(name), fields: map[string]*declField{}}
		for _, f := range fields {
			d.fields[f.Name] = &declField{name: f.Name, typ: &declType{cel: f.Type}}
		}
		objs[name] = d
	}
	return cel.CustomTypeProvider(&provider{Registry: types.NewEmptyRegistry(), objs: objs})
}
