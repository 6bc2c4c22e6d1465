package celrules

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Limits of apiserver/pkg/apis/cel/config.go and apiextensions-apiserver's
// pkg/apis/apiextensions/validation/validation.go.
const (
	// PerCallLimit is the runtime cost limit of one rule evaluation.
	PerCallLimit = 1000000
	// RuntimeCELCostBudget is the runtime cost budget of all rules of one
	// object (one request).
	RuntimeCELCostBudget = 10000000
	// StaticEstimatedCostLimit is the largest estimated cost of one rule
	// (times its cardinality) a CRD may declare.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit is the largest estimated cost of all the
	// rules of one CRD version's schema.
	StaticEstimatedCRDCostLimit = 100000000
	// maxEvaluatedMessageExpressionSizeBytes bounds a messageExpression result.
	maxEvaluatedMessageExpressionSizeBytes = 5 * 1024
	checkFrequency                         = 100
)

// Validator holds the compiled rules of one schema. It is read-only after
// Compile and safe for concurrent use.
type Validator struct {
	root   *vnode
	schema *structural.Schema
}

// vnode is one schema node with its compiled rules and the validators of
// its children (Validator in apiextensions' schema/cel/validation.go).
type vnode struct {
	schemaType string
	rules      []*compiledRule
	props      map[string]*vnode
	addl       *vnode
	items      *vnode
	decl       *declType
	adapter    types.Adapter
	listType   string
	mapKeys    []string
	usesOld    bool
}

type compiledRule struct {
	rule        structural.ValidationRule
	prog        cel.Program
	msgProg     cel.Program
	usesOldSelf bool
	fieldPath   string // normalized fieldPath, appended to the node's path
	maxCost     uint64
	msgMaxCost  uint64
	broken      bool // compilation failed: the CRD was refused
	msgErr      *meta.FieldError
}

func internalError(field, detail string) *meta.FieldError {
	return &meta.FieldError{Type: meta.InternalError, Field: field, Detail: detail}
}

// baseEnvOptions are the environment options of apiserver/pkg/cel/environment/base.go
// for compatibility version 1.32 (what kube-apiserver 1.33 offers new
// expressions): the Kubernetes URL, regex, lists, quantity, IP, CIDR and
// format libraries, strings v2, sets, two-variable comprehensions and
// optional types. The semver library (1.33) is only for stored rules.
func baseEnvOptions() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
	}
	return append(opts, kubeLibraries()...)
}

// Compile compiles every x-kubernetes-validations rule of s as
// apiextensions-apiserver 1.33 does at CRD create and update (Compile in
// pkg/apiserver/schema/cel/compilation.go and the CEL part of
// ValidateCustomResourceDefinitionOpenAPISchema in
// pkg/apis/apiextensions/validation/validation.go). It returns upstream's
// field errors under fldPath (e.g. "spec.versions[0].schema.openAPIV3Schema"):
//   - "<path>.x-kubernetes-validations[i].rule: Invalid value: <rule>:
//     compilation failed: ERROR: <input>:..." and "cel expression must
//     evaluate to a bool";
//   - the same for messageExpression ("messageExpression compilation failed:
//     ...", "messageExpression must evaluate to a string");
//   - "Forbidden: estimated rule cost exceeds budget by factor of ..." per
//     rule and for the whole schema;
//   - optionalOldSelf set on a rule without oldSelf, and oldSelf below a
//     list that is not a list-type map.
//
// Call it only on a schema without structural errors (upstream skips CEL
// when the schema has errors). The returned Validator is non-nil.
func Compile(s *structural.Schema, fldPath string) (*Validator, meta.FieldErrors) {
	c := &compiler{}
	one := uint64(1)
	root := c.node(s.Root(), fldPath, true, "", &one)
	if c.total > StaticEstimatedCRDCostLimit {
		for _, e := range c.expensive {
			c.errs = append(c.errs, meta.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, meta.Forbidden(fldPath, costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, StaticEstimatedCRDCostLimit)))
	}
	return &Validator{root: root, schema: s}, c.errs
}

type compiler struct {
	errs      meta.FieldErrors
	total     uint64
	expensive []ruleCost // the 4 most expensive rules costing >= 1% of the CRD limit
	seq       int
}

type ruleCost struct {
	path string
	cost uint64
}

// observe adds one expression's cost to the schema total
// (TotalCost.ObserveExpressionCost upstream).
func (c *compiler) observe(path string, cost uint64) {
	c.total = addSat(c.total, cost)
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	c.expensive = append(c.expensive, ruleCost{path, cost})
	sort.SliceStable(c.expensive, func(i, j int) bool { return c.expensive[i].cost > c.expensive[j].cost })
	if len(c.expensive) > 4 {
		c.expensive = c.expensive[:4]
	}
}

// node compiles the rules of n and its children. uncorrelatable names the
// schema path of the nearest list that is not a list-type map (oldSelf is
// forbidden below it); cardinality is the estimated number of times the
// node's rules run per object.
func (c *compiler) node(n structural.Node, path string, isResourceRoot bool, uncorrelatable string, card *uint64) *vnode {
	if !n.Exists() {
		return nil
	}
	v := &vnode{schemaType: n.Type(), listType: n.XListType(), mapKeys: n.XListMapKeys()}
	for _, k := range n.PropertyNames() {
		p := n.Property(k)
		if cv := c.node(p, childPath(path, "properties["+k+"]"), p.XEmbeddedResource(), uncorrelatable, childCard(n, card)); cv != nil {
			if v.props == nil {
				v.props = map[string]*vnode{}
			}
			v.props[k] = cv
		}
	}
	if ap := n.AdditionalProperties(); ap.Exists() {
		v.addl = c.node(ap, childPath(path, "additionalProperties"), ap.XEmbeddedResource(), uncorrelatable, childCard(n, card))
	}
	if it := n.Items(); it.Exists() {
		u := uncorrelatable
		if u == "" && n.XListType() != "map" {
			u = path
		}
		v.items = c.node(it, childPath(path, "items"), it.XEmbeddedResource(), u, childCard(n, card))
	}
	// upstream checks the children before the node's own rules
	if rules := n.XValidations(); len(rules) > 0 {
		c.compileRules(v, n, path, isResourceRoot, uncorrelatable, card)
	}
	if len(v.rules) == 0 && v.props == nil && v.addl == nil && v.items == nil {
		return nil
	}
	return v
}

// childCard is the cardinality of a child of n (childContext in
// apiextensions' validation/cel_validation.go): the parent's times its
// maxItems or maxProperties; nil (unbounded) when either is unbounded.
func childCard(n structural.Node, card *uint64) *uint64 {
	if card == nil {
		return nil
	}
	var max *int64
	switch {
	case n.Type() == "array":
		if max = n.MaxItems(); max == nil {
			return nil
		}
	case n.Type() == "object" && n.AdditionalProperties().Exists():
		if max = n.MaxProperties(); max == nil {
			return nil
		}
	default:
		return card
	}
	r := multiplyWithOverflowGuard(*card, uint64(zeroIfNegative(*max)))
	if *card == 0 {
		r = 0
	}
	return &r
}

func childPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (c *compiler) compileRules(v *vnode, n structural.Node, path string, isResourceRoot bool, uncorrelatable string, cardP *uint64) {
	d := declTypeOf(n, isResourceRoot)
	if d == nil {
		// a node CEL cannot type (x-kubernetes-preserve-unknown-fields without a type)
		c.errs = append(c.errs, internalError(childPath(path, "x-kubernetes-validations"), "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"))
		return
	}
	c.seq++
	reg := map[string]*declType{}
	d.assignNames(fmt.Sprintf("selfType%d", c.seq), reg)
	v.decl = d
	base := types.NewEmptyRegistry()
	prov := &provider{Registry: base, objs: reg}
	v.adapter = prov
	env, err := cel.NewEnv(append(baseEnvOptions(), cel.CustomTypeProvider(prov),
		cel.Variable("self", d.cel), cel.Variable("oldSelf", d.cel))...)
	if err != nil {
		c.errs = append(c.errs, internalError(childPath(path, "x-kubernetes-validations"), err.Error()))
		return
	}
	var optEnv *cel.Env // oldSelf optional: built for the first rule setting optionalOldSelf
	est := &costEstimator{root: d}
	card := uint64(maxRequestSizeBytes / (d.minSize + 1))
	if cardP != nil {
		card = *cardP
	}
	for i, r := range n.XValidations() {
		rp := fmt.Sprintf("%s[%d]", childPath(path, "x-kubernetes-validations"), i)
		cr := &compiledRule{rule: r}
		v.rules = append(v.rules, cr)
		if strings.TrimSpace(r.Rule) == "" {
			cr.broken = true
			continue
		}
		e := env
		if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
			if optEnv == nil {
				optProv := &provider{Registry: types.NewEmptyRegistry(), objs: reg}
				optEnv, err = cel.NewEnv(append(baseEnvOptions(), cel.CustomTypeProvider(optProv),
					cel.Variable("self", d.cel), cel.Variable("oldSelf", types.NewOptionalType(d.cel)))...)
				if err != nil {
					c.errs = append(c.errs, internalError(childPath(path, "x-kubernetes-validations"), err.Error()))
					return
				}
			}
			e = optEnv
		}
		ruleErr := c.compileOne(cr, e, est, n, rp, r)
		cost := multiplyWithOverflowGuard(cr.maxCost, card)
		if cost > StaticEstimatedCostLimit {
			c.errs = append(c.errs, meta.Forbidden(rp+".rule", costErrorMessage("estimated rule cost", cost, StaticEstimatedCostLimit)))
		}
		c.observe(rp+".rule", cost)
		if ruleErr != nil {
			c.errs = append(c.errs, ruleErr)
		}
		if cr.msgErr != nil {
			c.errs = append(c.errs, cr.msgErr)
		} else if cr.msgProg != nil {
			if cr.msgMaxCost > StaticEstimatedCostLimit {
				c.errs = append(c.errs, meta.Forbidden(rp+".messageExpression", costErrorMessage("estimated messageExpression cost", cr.msgMaxCost, StaticEstimatedCostLimit)))
			}
			c.observe(rp+".messageExpression", cr.msgMaxCost)
		}
		if cr.usesOldSelf {
			v.usesOld = true
			if uncorrelatable != "" {
				c.errs = append(c.errs, meta.Invalid(rp+".rule", r.Rule, "oldSelf cannot be used on the uncorrelatable portion of the schema within "+uncorrelatable))
			}
		} else if r.OptionalOldSelf != nil {
			c.errs = append(c.errs, meta.Invalid(rp+".optionalOldSelf", *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
}

func (c *compiler) compileOne(cr *compiledRule, env *cel.Env, est *costEstimator, n structural.Node, rp string, r structural.ValidationRule) *meta.FieldError {
	ast, iss := env.Compile(r.Rule)
	if iss != nil && iss.Err() != nil {
		cr.broken = true
		return meta.Invalid(rp+".rule", ruleValue(r), "compilation failed: "+iss.String())
	}
	if ast.OutputType() != cel.BoolType {
		cr.broken = true
		return meta.Invalid(rp+".rule", ruleValue(r), "cel expression must evaluate to a bool")
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			cr.usesOldSelf = true
			break
		}
	}
	prog, err := env.Program(ast, programOptions(est)...)
	if err != nil {
		cr.broken = true
		return meta.Invalid(rp+".rule", ruleValue(r), "program instantiation failed: "+err.Error())
	}
	ce, err := env.EstimateCost(ast, est)
	if err != nil {
		cr.broken = true
		return internalError(rp+".rule", "cost estimation failed: "+err.Error())
	}
	cr.maxCost = ce.Max
	cr.prog = prog
	if r.MessageExpression != "" {
		mast, iss := env.Compile(r.MessageExpression)
		switch {
		case iss != nil && iss.Err() != nil:
			cr.msgErr = meta.Invalid(rp+".messageExpression", ruleValue(r), "messageExpression compilation failed: "+iss.String())
		case mast.OutputType() != cel.StringType:
			cr.msgErr = meta.Invalid(rp+".messageExpression", ruleValue(r), "messageExpression must evaluate to a string")
		default:
			mp, err := env.Program(mast, programOptions(est)...)
			if err != nil {
				cr.msgErr = meta.Invalid(rp+".messageExpression", ruleValue(r), "messageExpression instantiation failed: "+err.Error())
				break
			}
			mce, err := env.EstimateCost(mast, est)
			if err != nil {
				cr.msgErr = internalError(rp+".messageExpression", "cost estimation failed for messageExpression: "+err.Error())
				break
			}
			cr.msgProg, cr.msgMaxCost = mp, mce.Max
		}
	}
	if r.FieldPath != "" {
		if fp, ok := normalizeFieldPath(r.FieldPath, n); ok {
			cr.fieldPath = fp
		}
	}
	return nil
}

func programOptions(est *costEstimator) []cel.ProgramOption {
	return []cel.ProgramOption{
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.OptimizeRegex(regexOptimizations...),
		cel.CostLimit(PerCallLimit),
		cel.CostTrackerOptions(interpreter.PresenceTestHasCost(false)),
		cel.CostTracking(est),
		cel.InterruptCheckFrequency(checkFrequency),
	}
}

// ruleValue is the bad value upstream prints for a rule error: the Go
// syntax of apiextensions.ValidationRule.
func ruleValue(r structural.ValidationRule) meta.GoSyntax {
	reason := "(*apiextensions.FieldValueErrorReason)(nil)"
	if r.Reason != nil {
		reason = fmt.Sprintf("(*apiextensions.FieldValueErrorReason)(%p)", r.Reason)
	}
	oos := "(*bool)(nil)"
	if r.OptionalOldSelf != nil {
		oos = fmt.Sprintf("(*bool)(%p)", r.OptionalOldSelf)
	}
	return meta.GoSyntax(fmt.Sprintf("apiextensions.ValidationRule{Rule:%q, Message:%q, MessageExpression:%q, Reason:%s, FieldPath:%q, OptionalOldSelf:%s}",
		r.Rule, r.Message, r.MessageExpression, reason, r.FieldPath, oos))
}

func multiplyWithOverflowGuard(base, card uint64) uint64 {
	if base == 0 {
		return 0
	}
	if math.MaxUint64/base < card {
		return math.MaxUint64
	}
	return base * card
}

func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// costErrorMessage is getCostErrorMessage of upstream's validation.go.
func costErrorMessage(name string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100.0:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", name, factor)
}
