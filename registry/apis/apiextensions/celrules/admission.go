package celrules

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
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
// environment's type provider: give it once per environment, and chain
// any other provider the environment needs through ObjectTypesOver.
func ObjectTypes(defs map[string][]Field) cel.EnvOption {
	return ObjectTypesOver(defs, nil)
}

// ObjectTypesOver is ObjectTypes over next: types not in defs, values
// (NewValue, NativeToValue), identifiers and enums are next's (nil: an
// empty cel-go registry). next may be another custom provider, e.g. one
// declaring a mutating policy's Object types.
func ObjectTypesOver(defs map[string][]Field, next types.Provider) cel.EnvOption {
	if next == nil {
		next = types.NewEmptyRegistry()
	}
	objs := map[string]*declType{}
	for name, fields := range defs {
		d := &declType{kind: kindObject, cel: types.NewObjectType(name), fields: map[string]*declField{}}
		for _, f := range fields {
			d.fields[f.Name] = &declField{name: f.Name, typ: &declType{cel: f.Type}}
		}
		objs[name] = d
	}
	return cel.CustomTypeProvider(&chainProvider{objs: objs, next: next})
}

// chainProvider resolves the object types of objs and delegates the rest
// to next.
type chainProvider struct {
	objs map[string]*declType
	next types.Provider
}

func (p *chainProvider) EnumValue(name string) ref.Val { return p.next.EnumValue(name) }

func (p *chainProvider) FindIdent(name string) (ref.Val, bool) { return p.next.FindIdent(name) }

func (p *chainProvider) FindStructType(name string) (*types.Type, bool) {
	if d, ok := p.objs[name]; ok {
		return types.NewTypeTypeWithParam(d.cel), true
	}
	return p.next.FindStructType(name)
}

func (p *chainProvider) FindStructFieldNames(name string) ([]string, bool) {
	if d, ok := p.objs[name]; ok {
		return sortedFieldNames(d.fields), true
	}
	return p.next.FindStructFieldNames(name)
}

func (p *chainProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if d, ok := p.objs[name]; ok {
		f, ok := d.fields[field]
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: f.typ.cel}, true
	}
	return p.next.FindStructFieldType(name, field)
}

func (p *chainProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	return p.next.NewValue(name, fields)
}

// NativeToValue lets the provider serve as an adapter too
// (cel.CustomTypeAdapter), as next's.
func (p *chainProvider) NativeToValue(v any) ref.Val {
	if a, ok := p.next.(types.Adapter); ok {
		return a.NativeToValue(v)
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}
