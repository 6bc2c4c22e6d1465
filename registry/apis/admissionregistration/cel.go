package admissionregistration

import (
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/ext"

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
}

var (
	envMu   sync.Mutex
	envs    = map[envOptions]*cel.Env{}
	envErrs = map[envOptions]error{}
)

// k8sLibraryFunctions are the functions of kube-apiserver's own CEL
// libraries (k8s.io/apiserver/pkg/cel/library: lists, regex, urls, authz,
// quantity, ip, cidr, format, semver) that aggsim does not implement: a
// reference to one of them is not reported as undeclared, so expressions
// upstream accepts are accepted here too.
var k8sLibraryFunctions = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`isSorted sum min max indexOf lastIndexOf find findAll
		url isURL getScheme getHost getHostname getPort getEscapedPath getQuery
		path group resource subresource namespace name check allowed reason errored error
		serviceAccount fieldSelector labelSelector
		quantity isQuantity sign isInteger asInteger asApproximateFloat add sub compareTo isGreaterThan isLessThan
		ip isIP cidr isCIDR family isUnspecified isLoopback isLinkLocalMulticast isLinkLocalUnicast isGlobalUnicast
		isCanonical containsIP containsCIDR masked prefixLength
		semver isSemver major minor patch
		format.named format.dns1123Label format.dns1123Subdomain format.dns1035Label format.qualifiedName
		format.dns1123LabelPrefix format.dns1123SubdomainPrefix format.dns1035LabelPrefix format.labelValue
		format.uri format.uuid format.byte format.date format.datetime validate`) {
		k8sLibraryFunctions[f] = true
	}
}

// celEnv returns the (cached) compile environment of o: the variables
// upstream declares (object, oldObject, request, namespaceObject, and
// params, authorizer, authorizer.requestResource and variables when o
// says so), all dynamically typed, with the cel-go options and extension
// libraries of kube-apiserver 1.33's base environment
// (k8s.io/apiserver/pkg/cel/environment/base.go at compatibility 1.32).
func celEnv(o envOptions) (*cel.Env, error) {
	envMu.Lock()
	defer envMu.Unlock()
	if e, ok := envs[o]; ok || envErrs[o] != nil {
		return e, envErrs[o]
	}
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		cel.ASTValidators(cel.ValidateDurationLiterals(), cel.ValidateTimestampLiterals(), cel.ValidateRegexLiterals(), cel.ValidateHomogeneousAggregateLiterals()),
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType),
		cel.Variable("namespaceObject", cel.DynType),
	}
	if o.params {
		opts = append(opts, cel.Variable("params", cel.DynType))
	}
	if o.authorizer {
		opts = append(opts, cel.Variable("authorizer", cel.DynType), cel.Variable("authorizer.requestResource", cel.DynType))
	}
	if o.variables {
		opts = append(opts, cel.Variable("variables", cel.DynType))
	}
	if o.mutation {
		m, err := MutationCELOptions()
		if err != nil {
			envs[o], envErrs[o] = nil, err
			return nil, err
		}
		opts = append(opts, m...)
	}
	e, err := cel.NewEnv(opts...)
	envs[o], envErrs[o] = e, err
	return e, err
}

// compileCheck compiles expr (as upstream's CompileCELExpression does)
// and returns the field error upstream gives for path: `compilation
// failed: <cel-go issues>` or `must evaluate to <type> but got <type>`,
// with shown (the expression as the user wrote it) as the bad value; nil
// when the expression compiles. Only the declared variables are typed
// dynamically here, so field-level type errors upstream finds through its
// typed request, namespaceObject and authorizer are not reported.
func compileCheck(path, expr, shown string, want returnKind, o envOptions) *meta.FieldError {
	env, err := celEnv(o)
	if err != nil {
		return &meta.FieldError{Type: meta.InternalError, Field: path, Detail: "unexpected error loading CEL environment: " + err.Error()}
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		msg := issuesText(expr, iss.Errors())
		if msg == "" {
			return nil // only references to kube-apiserver library functions
		}
		return meta.Invalid(path, shown, "compilation failed: "+msg)
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
	case kindObject:
		ok, names = out.TypeName() == MutationObjectType, []string{MutationObjectType}
	case kindJSONPatchList:
		ok, names = out.IsExactType(cel.ListType(cel.ObjectType(MutationJSONPatchType))), []string{"list(" + MutationJSONPatchType + ")"}
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

// issuesText is cel-go's Issues.String for the errors that are not
// undeclared references to kube-apiserver library functions: sorted by
// position, each with its source excerpt, joined by newlines.
func issuesText(expr string, errs []*cel.Error) string {
	src := common.NewTextSource(expr)
	var kept []string
	for _, e := range errs {
		if n, ok := strings.CutPrefix(e.Message, "undeclared reference to '"); ok {
			if name, _, _ := strings.Cut(n, "'"); k8sLibraryFunctions[name] {
				continue
			}
		}
		kept = append(kept, e.ToDisplayString(src))
	}
	return strings.Join(kept, "\n")
}
