package admissionregistration

import (
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// returnKind is what an expression must evaluate to (upstream's
// ExpressionAccessor.ReturnTypes).
type returnKind int

const (
	kindBool          returnKind = iota // validations, match conditions
	kindString                          // message expressions
	kindStringOrNull                    // audit annotation values
	kindAny                             // variables
	kindObject                          // ApplyConfiguration mutations
	kindJSONPatchList                   // JSONPatch mutations
)

// envOptions are upstream's OptionalVariableDeclarations: whether params,
// authorizer and variables are declared.
type envOptions struct {
	params, authorizer, variables bool
	mutation                      bool // the Object and JSONPatch types (cel_mutation.go)
	// vars, when set, types the variables variable as upstream's
	// kubernetes.variables object with the variables compiled so far (an
	// environment with it is not cached).
	vars *varTypes
}

// varTypes are a policy's variables with their compiled output types (dyn
// for one that failed to compile), in order; a later one of the same name
// wins, as upstream.
type varTypes struct {
	fields []celrules.Field
}

var (
	envMu   sync.Mutex
	envs    = map[envOptions]*cel.Env{}
	envErrs = map[envOptions]error{}
)

// celEnv returns the (cached) compile environment of o: the variables
// upstream declares (object, oldObject, request, namespaceObject, and
// params, authorizer, authorizer.requestResource and variables when o
// says so) in kube-apiserver 1.33's base environment for new expressions
// (celrules.EnvOptions: k8s.io/apiserver/pkg/cel/environment/base.go at
// compatibility 1.32, so no semver). request, namespaceObject and the
// authorizer are typed as upstream types them (admissionObjectTypes);
// object, oldObject, params and variables are dynamically typed. With
// o.mutation, a MutatingAdmissionPolicy's Object and JSONPatch types and
// jsonpatch.escapeKey are declared too (cel_mutation.go).
func celEnv(o envOptions) (*cel.Env, error) {
	var extra map[string][]celrules.Field
	if o.vars != nil {
		byName := map[string]int{}
		var fields []celrules.Field
		for _, f := range o.vars.fields {
			if i, ok := byName[f.Name]; ok {
				fields[i] = f
				continue
			}
			byName[f.Name] = len(fields)
			fields = append(fields, f)
		}
		extra = map[string][]celrules.Field{variablesTypeName: fields}
	} else {
		envMu.Lock()
		defer envMu.Unlock()
		if e, ok := envs[o]; ok || envErrs[o] != nil {
			return e, envErrs[o]
		}
	}
	var next types.Provider // the mutation types under the admission ones
	if o.mutation {
		reg, err := types.NewRegistry()
		if err != nil {
			return nil, err
		}
		next = mutationProvider{reg}
	}
	opts := append(celrules.EnvOptions(), admissionObjectTypes(extra, next),
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", requestType),
		cel.Variable("namespaceObject", namespaceType),
	)
	if o.params {
		opts = append(opts, cel.Variable("params", cel.DynType))
	}
	if o.authorizer {
		opts = append(opts, cel.Variable("authorizer", celrules.AuthorizerType), cel.Variable("authorizer.requestResource", celrules.ResourceCheckType))
	}
	if o.mutation {
		opts = append(opts, jsonPatchEscapeKey)
	}
	switch {
	case o.vars != nil:
		opts = append(opts, cel.Variable("variables", types.NewObjectType(variablesTypeName)))
		return cel.NewEnv(opts...)
	case o.variables:
		opts = append(opts, cel.Variable("variables", cel.DynType))
	}
	e, err := cel.NewEnv(opts...)
	envs[o], envErrs[o] = e, err
	return e, err
}

// compileCheck compiles expr (as upstream's CompileCELExpression does)
// and returns the field error upstream gives for path: `compilation
// failed: <cel-go issues>` or `must evaluate to <type> but got <type>`,
// with shown (the expression as the user wrote it) as the bad value; nil
// when the expression compiles. With o.vars, variables.<name> has the
// type of that variable's expression.
func compileCheck(path, expr, shown string, want returnKind, o envOptions) *meta.FieldError {
	_, fe := compileType(path, expr, shown, want, o)
	return fe
}

// compileType is compileCheck that also returns the expression's output
// type (dyn when it did not compile).
func compileType(path, expr, shown string, want returnKind, o envOptions) (*types.Type, *meta.FieldError) {
	env, err := celEnv(o)
	if err != nil {
		return types.DynType, &meta.FieldError{Type: meta.InternalError, Field: path, Detail: "unexpected error loading CEL environment: " + err.Error()}
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return types.DynType, meta.Invalid(path, shown, "compilation failed: "+issuesText(expr, iss.Errors()))
	}
	out := ast.OutputType()
	return variableType(out), checkOutput(path, shown, want, out)
}

// variableType is the type a variable of output type t has for the
// expressions after it (convertCelTypeToDeclType upstream): primitives,
// lists and maps of them keep their type, anything else (an object such
// as an authorizer decision or a quantity, a type, an optional) is dyn.
func variableType(t *types.Type) *types.Type {
	switch t.Kind() {
	case types.AnyKind, types.BoolKind, types.BytesKind, types.DoubleKind, types.DurationKind, types.IntKind,
		types.NullTypeKind, types.StringKind, types.TimestampKind, types.UintKind, types.DynKind:
		return t
	case types.ListKind:
		return types.NewListType(variableType(t.Parameters()[0]))
	case types.MapKind:
		return types.NewMapType(variableType(t.Parameters()[0]), variableType(t.Parameters()[1]))
	}
	return types.DynType
}

// checkOutput is the error upstream gives when an expression's output
// type out is not what want asks for.
func checkOutput(path, shown string, want returnKind, out *types.Type) *meta.FieldError {
	ok := false
	var names []string
	switch want {
	case kindBool:
		ok, names = out.IsExactType(cel.BoolType), []string{"bool"}
	case kindString:
		ok, names = out.IsExactType(cel.StringType), []string{"string"}
	case kindStringOrNull:
		ok, names = out.IsExactType(cel.StringType) || out.IsExactType(cel.NullType), []string{"string", "null_type"}
	case kindAny:
		ok = true
	case kindObject:
		ok, names = out.TypeName() == MutationObjectType, []string{MutationObjectType}
	case kindJSONPatchList:
		ok, names = out.IsExactType(cel.ListType(cel.ObjectType(MutationJSONPatchType))), []string{"list(" + MutationJSONPatchType + ")"}
	}
	if ok {
		return nil
	}
	if len(names) == 1 {
		return meta.Invalid(path, shown, "must evaluate to "+names[0]+" but got "+out.String())
	}
	return meta.Invalid(path, shown, "must evaluate to one of ["+strings.Join(names, " ")+"] but got "+out.String())
}

// issuesText is cel-go's Issues.String: the errors sorted by position,
// each with its source excerpt, joined by newlines.
func issuesText(expr string, errs []*cel.Error) string {
	src := common.NewTextSource(expr)
	kept := make([]string, 0, len(errs))
	for _, e := range errs {
		kept = append(kept, e.ToDisplayString(src))
	}
	return strings.Join(kept, "\n")
}
