package admission

import (
	"fmt"
	"math"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
)

// policyDecision is one failed validation of a policy evaluation: the
// message and reason a Deny or Warn action reports.
type policyDecision struct {
	msg, reason string
}

// costBudget is the runtime cost budget of one policy evaluation
// (celconfig.RuntimeCELCostBudget, 10,000,000, shared by the variables
// and validations of one binding and param, as upstream's
// validator.Validate charges them).
type costBudget struct{ left int64 }

func newCostBudget() *costBudget { return &costBudget{left: celrules.RuntimeCELCostBudget} }

// charge takes cost from the budget; false when it ran out.
func (b *costBudget) charge(cost *uint64) bool {
	if b == nil {
		return true
	}
	if cost == nil || *cost > math.MaxInt64 || int64(*cost) > b.left {
		b.left = -1
		return false
	}
	b.left -= int64(*cost)
	return true
}

// errOutOfBudget is the evaluation error when the budget runs out.
var errOutOfBudget = fmt.Errorf("%s", celrules.OutOfBudget)

// evalPolicyValidations evaluates p's variables and then all of its
// validations against vars (which gains "variables"), as upstream's
// validator.Validate does: every validation is evaluated before any is
// acted on, each within the per-call cost limit, all within one runtime
// budget. When the budget runs out the whole evaluation is one error,
// `validation failed due to running out of cost budget, no further
// validation rules will be run`: a single decision under failurePolicy
// Fail, none under Ignore. Otherwise the decisions are the failed
// validations in order, and evaluation errors (`expression '<expr>'
// resulted in error: <err>`, e.g. `operation cancelled: actual cost limit
// exceeded`) under Fail. The messageExpressions are evaluated afterwards
// with what is left; when that runs out, every failed validation's message
// is `failed messageExpression: validation failed due to running out of
// cost budget, ...` (kube-apiserver 1.33.13 answers so).
func evalPolicyValidations(p *admissionregistration.ValidatingAdmissionPolicy, vars map[string]any, failClosed bool) []policyDecision {
	budget := newCostBudget()
	outOfBudget := func() []policyDecision {
		if !failClosed {
			return nil
		}
		return []policyDecision{{msg: errOutOfBudget.Error(), reason: "Invalid"}}
	}
	if !evalVariables(envPolicy, p.Spec.Variables, vars, budget) {
		return outOfBudget()
	}
	type result struct {
		val    admissionregistration.Validation
		failed bool
		err    error
	}
	results := make([]result, 0, len(p.Spec.Validations))
	for _, val := range p.Spec.Validations {
		failed, cost, err := evalCondition(val.Expression, vars)
		if !budget.charge(cost) {
			return outOfBudget()
		}
		results = append(results, result{val, failed, err})
	}
	// every messageExpression is evaluated, failed validation or not, with
	// what is left of the budget (upstream's message filter)
	msgs := make([]any, len(results))
	msgOutOfBudget := false
	for i, r := range results {
		if r.val.MessageExpression == "" {
			continue
		}
		m, cost, err := evalExprCost(r.val.MessageExpression, vars)
		if !budget.charge(cost) {
			msgOutOfBudget = true
			break
		}
		if err == nil {
			msgs[i] = m
		}
	}
	var out []policyDecision
	for i, r := range results {
		switch {
		case r.err != nil:
			if failClosed {
				out = append(out, policyDecision{msg: r.err.Error(), reason: "Invalid"})
			}
		case r.failed:
			msg, reason := validationMessage(r.val, msgs[i])
			if msgOutOfBudget {
				msg = "failed messageExpression: " + celrules.OutOfBudget
			}
			out = append(out, policyDecision{msg: msg, reason: reason})
		}
	}
	return out
}

// evalVariables evaluates a policy's variables in order into
// vars["variables"] (an expression may read earlier ones), charging
// budget (nil: unlimited); false when the budget ran out. Reading a
// variable whose expression failed fails with upstream's `composited
// variable "<name>" fails to evaluate: <err>`, as its lazily composited
// variables do. Validating (envPolicy) and mutating (envMutation)
// policies share it.
func evalVariables(env int, decl []admissionregistration.Variable, vars map[string]any, budget *costBudget) bool {
	variables := map[string]any{}
	vars["variables"] = variables
	for _, vr := range decl {
		out, cost, err := evalRefCost(env, vr.Expression, vars)
		if !budget.charge(cost) {
			return false
		}
		if err != nil {
			variables[vr.Name] = types.NewErr("composited variable %q fails to evaluate: %v", vr.Name, err)
			continue
		}
		variables[vr.Name] = out
	}
	return true
}

// evalRefCost evaluates expr in environment env with its runtime cost
// (nil when cel-go could not say).
func evalRefCost(env int, expr string, vars map[string]any) (ref.Val, *uint64, error) {
	p, err := program(env, expr)
	if err != nil {
		zero := uint64(0)
		return nil, &zero, err
	}
	out, det, err := p.Eval(vars)
	var cost *uint64
	if det != nil {
		cost = det.ActualCost()
	}
	if err != nil {
		return nil, cost, err
	}
	return out, cost, nil
}

// evalExprCost evaluates a policy expression to a Go value with its
// runtime cost (nil when cel-go could not say).
func evalExprCost(expr string, vars map[string]any) (any, *uint64, error) {
	out, cost, err := evalRefCost(envPolicy, expr, vars)
	if err != nil {
		return nil, cost, err
	}
	return out.Value(), cost, nil
}

// evalCondition evaluates a validation's expression: failed when it is
// not true, or upstream's error text.
func evalCondition(expr string, vars map[string]any) (failed bool, cost *uint64, err error) {
	out, cost, err := evalExprCost(expr, vars)
	if err != nil {
		return false, cost, fmt.Errorf("expression '%s' resulted in error: %v", expr, err)
	}
	ok, isBool := out.(bool)
	if !isBool {
		return false, cost, fmt.Errorf("expression '%s' resulted in error: expected bool, got %T", expr, out)
	}
	return !ok, cost, nil
}
