package admissionregistration

import (
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// returnKind is what an expression must evaluate to (upstream's
// ExpressionAccessor.ReturnTypes).
type returnKind int

const (
	kindBool         returnKind = iota // validations, match conditions
	kindString                         // message expressions
	kindStringOrNull                   // audit annotation values
	kindAny                            // variables
)

// envOptions are upstream's OptionalVariableDeclarations: whether params,
// authorizer and variables are declared.
type envOptions struct {
	params, authorizer, variables bool
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
// object, oldObject, params and variables are dynamically typed.
func celEnv(o envOptions) (*cel.Env, error) {
	envMu.Lock()
	defer envMu.Unlock()
	if e, ok := envs[o]; ok || envErrs[o] != nil {
		return e, envErrs[o]
	}
	opts := append(celrules.EnvOptions(), admissionObjectTypes(),
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
	if o.variables {
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
// when the expression compiles. Variables are not typed by their
// expressions (upstream types them), so a validation using one is
// accepted whatever its type.
func compileCheck(path, expr, shown string, want returnKind, o envOptions) *meta.FieldError {
	env, err := celEnv(o)
	if err != nil {
		return &meta.FieldError{Type: meta.InternalError, Field: path, Detail: "unexpected error loading CEL environment: " + err.Error()}
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return meta.Invalid(path, shown, "compilation failed: "+issuesText(expr, iss.Errors()))
	}
	out := ast.OutputType()
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
	}
	if ok || out.IsExactType(cel.DynType) && want != kindAny {
		// a dynamically typed result is what aggsim's untyped variables
		// give; upstream types them and may know better, aggsim accepts.
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
