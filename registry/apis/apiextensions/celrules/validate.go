package celrules

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Validate evaluates the rules on obj (the whole custom object) with old
// the stored object on update (nil on create), as the CEL validator of
// apiextensions-apiserver 1.33 does (Validator.Validate in
// pkg/apiserver/schema/cel/validation.go) with a budget of
// RuntimeCELCostBudget:
//   - a failed rule gives "<path>: Invalid value: \"<schema type>\": <message>",
//     the message being the rule's message, its messageExpression result, or
//     "failed rule: <rule>"; reason FieldValueForbidden, FieldValueRequired
//     or FieldValueDuplicate change the error type; fieldPath is appended;
//   - rules using oldSelf run only where old has a correlated value (object
//     properties, map values, list-type map items by key) unless
//     optionalOldSelf is true;
//   - evaluation errors ("no such key: x evaluating rule: ...") and the
//     runtime cost limits end as upstream's texts.
//
// Properties are visited in sorted name order (upstream walks Go maps).
// Failures of rules without oldSelf on values that did not change on
// update are ratcheted: not errors but warnings (see ValidateWithWarnings).
func (v *Validator) Validate(obj, old map[string]any) meta.FieldErrors {
	errs, _ := v.ValidateWithWarnings(obj, old)
	return errs
}

// ValidateWithWarnings is Validate that also returns the ratcheted
// failures as upstream's warning texts ("spec.a: Invalid value: \"string\":
// a is bad"), for the Warning headers of the response. Ratcheting
// (CRDValidationRatcheting, GA in 1.30) applies to a failure of a rule
// that does not use oldSelf when the value at the rule's node is
// unchanged, compared through object keys and list-type map keys; inside
// other lists, when the whole list is unchanged.
func (v *Validator) ValidateWithWarnings(obj, old map[string]any) (meta.FieldErrors, []string) {
	if v == nil || v.root == nil {
		return nil, nil
	}
	var o any
	var r ratchet
	if old != nil {
		o = old
		r.cur = &corrNode{new: obj, old: old, s: v.schema.Root()}
	}
	st := &evalState{budget: RuntimeCELCostBudget}
	v.root.validate(st, "", obj, o, r)
	for _, e := range st.errs {
		if e.Field == "" {
			e.Field = "<nil>" // upstream's nil *field.Path at the object root
		}
	}
	return st.errs, st.warnings
}

// BlockingError reports whether schema validation errors keep the CEL
// rules from running, as hasBlockingErr in apiextensions'
// pkg/registry/customresource/strategy.go decides: any NotSupported,
// Required, TooLong, TooMany or TypeInvalid error. It then returns the
// error upstream appends instead of the rules' results:
// `<nil>: Invalid value: "null": some validation rules were not checked
// because the object was invalid; correct the existing errors to complete
// validation`.
func BlockingError(schemaErrs meta.FieldErrors) (*meta.FieldError, bool) {
	for _, e := range schemaErrs {
		switch e.Type {
		case meta.FieldValueNotSupported, meta.FieldValueRequired, meta.FieldValueTooLong, meta.FieldValueTooMany, meta.FieldValueTypeInvalid:
			return meta.Invalid("<nil>", nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"), true
		}
	}
	return nil, false
}

type evalState struct {
	errs     meta.FieldErrors
	warnings []string
	budget   int64
}

func (s *evalState) add(e *meta.FieldError) { s.errs = append(s.errs, e) }

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// validate returns false when evaluation must stop (budget exhausted).
func (n *vnode) validate(st *evalState, path string, obj, old any, r ratchet) bool {
	if n == nil || obj == nil {
		return true
	}
	if !n.validateExpressions(st, path, obj, old, r) {
		return false
	}
	switch x := obj.(type) {
	case map[string]any:
		om, _ := old.(map[string]any)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if n.addl != nil {
			for _, k := range keys {
				var ov any
				if om != nil {
					ov = om[k]
				}
				if !n.addl.validate(st, path+"["+k+"]", x[k], ov, r.key(k, path == "")) {
					return false
				}
			}
		}
		for _, k := range keys {
			c := n.props[k]
			if c == nil {
				continue
			}
			var ov any
			if om != nil {
				ov = om[k]
			}
			if !c.validate(st, child(path, k), x[k], ov, r.key(k, path == "")) {
				return false
			}
		}
	case []any:
		if n.items == nil {
			return true
		}
		ol, _ := old.([]any)
		for i, e := range x {
			var ov any
			if n.listType == "map" && ol != nil {
				ov = findByKeys(ol, e, n.mapKeys)
			}
			if !n.items.validate(st, fmt.Sprintf("%s[%d]", path, i), e, ov, r.index(i)) {
				return false
			}
		}
	}
	return true
}

// findByKeys returns the item of old with the same map keys as e.
func findByKeys(old []any, e any, keys []string) any {
	em, ok := e.(map[string]any)
	if !ok {
		return nil
	}
	for _, o := range old {
		om, ok := o.(map[string]any)
		if !ok {
			continue
		}
		same := true
		for _, k := range keys {
			if fmt.Sprint(em[k]) != fmt.Sprint(om[k]) {
				same = false
				break
			}
		}
		if same {
			return o
		}
	}
	return nil
}

type activation struct {
	self, oldSelf ref.Val
	hasOld        bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		return a.oldSelf, a.hasOld
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

func (n *vnode) validateExpressions(st *evalState, path string, obj, old any, r ratchet) bool {
	if len(n.rules) == 0 {
		return true
	}
	if st.budget <= 0 {
		st.add(meta.Invalid(path, n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
		st.budget = -1
		return false
	}
	if n.decl == nil {
		return true
	}
	self := toVal(n.adapter, obj, n.decl)
	act := &activation{self: self}
	optAct := &activation{self: self, oldSelf: types.OptionalNone, hasOld: true}
	if old != nil {
		ov := toVal(n.adapter, old, n.decl)
		act.oldSelf, act.hasOld = ov, true
		optAct.oldSelf = types.OptionalOf(ov)
	}
	for _, cr := range n.rules {
		rule := cr.rule
		if cr.broken || cr.prog == nil {
			continue
		}
		optional := rule.OptionalOldSelf != nil && *rule.OptionalOldSelf
		if cr.usesOldSelf && old == nil && !optional {
			continue
		}
		a := act
		if optional {
			a = optAct
		}
		res, det, err := cr.prog.ContextEval(context.Background(), a)
		if det == nil || det.ActualCost() == nil {
			st.add(internalError(path, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(rule))))
			st.budget = -1
			return false
		}
		rt := *det.ActualCost()
		if rt > math.MaxInt64 || int64(rt) > st.budget {
			st.add(meta.Invalid(path, n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
			st.budget = -1
			return false
		}
		st.budget -= int64(rt)
		if err != nil {
			switch {
			case strings.HasPrefix(err.Error(), "no such overload"):
				st.add(meta.Invalid(path, n.schemaType, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(rule))))
			case strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded"):
				st.add(meta.Invalid(path, n.schemaType, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(rule))))
				st.budget = -1
				return false
			default:
				st.add(meta.Invalid(path, n.schemaType, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(rule))))
			}
			continue
		}
		if res == types.True {
			continue
		}
		add := func(e *meta.FieldError) {
			if !cr.usesOldSelf && r.shouldRatchet() {
				if e.Field == "" {
					e.Field = "<nil>"
				}
				st.warnings = append(st.warnings, e.Error())
				return
			}
			st.add(e)
		}
		fp := path
		if cr.fieldPath != "" {
			fp = child(path, cr.fieldPath)
			if path == "" {
				fp = cr.fieldPath
			}
		}
		if cr.msgProg != nil {
			msg, fatal, mErr := n.evalMessage(st, cr, act)
			switch {
			case fatal != nil:
				fatal.Field = fp
				add(fatal)
				st.budget = -1
				return false
			case mErr != "":
				add(errorForReason(fp, n.schemaType, ruleMessageOrDefault(rule), rule.Reason))
			default:
				add(errorForReason(fp, n.schemaType, msg, rule.Reason))
			}
			continue
		}
		add(errorForReason(fp, n.schemaType, ruleMessageOrDefault(rule), rule.Reason))
	}
	return true
}

// evalMessage runs a messageExpression (evalMessageExpression upstream):
// fatal ends validation (budget), mErr falls back to the rule's message.
func (n *vnode) evalMessage(st *evalState, cr *compiledRule, act *activation) (msg string, fatal *meta.FieldError, mErr string) {
	res, det, err := cr.msgProg.ContextEval(context.Background(), act)
	if det == nil || det.ActualCost() == nil {
		return "", internalError("", fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", cr.rule.MessageExpression)), ""
	}
	rt := *det.ActualCost()
	if rt > math.MaxInt64 || int64(rt) > st.budget {
		return "", meta.Invalid("", n.schemaType, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"), ""
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return "", meta.Invalid("", n.schemaType, fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", cr.rule.MessageExpression)), ""
		}
		st.budget -= int64(rt)
		return "", nil, "messageExpression evaluation failed due to: " + err.Error()
	}
	st.budget -= int64(rt)
	s, ok := res.Value().(string)
	if !ok {
		return "", nil, "messageExpression failed to convert to string"
	}
	s = strings.TrimSpace(s)
	switch {
	case len(s) > maxEvaluatedMessageExpressionSizeBytes:
		return "", nil, fmt.Sprintf("messageExpression beyond allowable length of %d", maxEvaluatedMessageExpressionSizeBytes)
	case strings.Contains(s, "\n"):
		return "", nil, "messageExpression should not contain line breaks"
	case s == "":
		return "", nil, "messageExpression should evaluate to a non-empty string"
	}
	return s, nil, ""
}

func errorForReason(path string, value any, detail string, reason *string) *meta.FieldError {
	if reason == nil {
		return meta.Invalid(path, value, detail)
	}
	switch *reason {
	case "FieldValueForbidden":
		return meta.Forbidden(path, detail)
	case "FieldValueRequired":
		return meta.Required(path, detail)
	case "FieldValueDuplicate":
		return &meta.FieldError{Type: meta.FieldValueDuplicate, Field: path, BadValue: value}
	}
	return meta.Invalid(path, value, detail)
}

// ruleMessageOrDefault is the message of a failed rule without
// messageExpression: its message, or "failed rule: <rule>".
func ruleMessageOrDefault(r structural.ValidationRule) string {
	if len(r.Message) == 0 {
		return "failed rule: " + ruleErrorString(r)
	}
	return strings.TrimSpace(r.Message)
}

// ruleErrorString names a rule in error texts: its message, else its rule.
func ruleErrorString(r structural.ValidationRule) string {
	if len(r.Message) > 0 {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}
