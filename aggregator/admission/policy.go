package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// PolicySource is what a Source also implements to have
// ValidatingAdmissionPolicies enforced: the policies, their bindings, and
// the parameter objects of a paramKind (name set: that object; else those
// matching selector; namespace "" for a cluster-scoped kind). Params
// returns known=false for a kind aggsim does not serve.
type PolicySource interface {
	ValidatingAdmissionPolicies(ctx context.Context) ([]*admissionregistration.ValidatingAdmissionPolicy, error)
	ValidatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistration.ValidatingAdmissionPolicyBinding, error)
	Params(ctx context.Context, apiVersion, kind, namespace, name string, selector *meta.LabelSelector) (objs []meta.Object, namespaced, known bool, err error)
}

// validatePolicies enforces the ValidatingAdmissionPolicies bound to a's
// request, before validating webhooks (upstream's plugin order): each
// binding (in name order) whose policy and matchResources match is
// evaluated with its params; a failed validation denies (action Deny:
// `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with
// binding '<b>' denied request: <message>`, code from the validation's
// reason, 422 Invalid by default) or warns (Warn: `Validation failed for
// ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>`); Audit
// is accepted and ignored. Texts as kube-apiserver 1.33.13 answers them.
func (d *Dispatcher) validatePolicies(ctx context.Context, a *registry.AdmissionAttributes, memo *celVars) error {
	ps, ok := d.opts.Source.(PolicySource)
	if !ok {
		return nil
	}
	bindings, err := ps.ValidatingAdmissionPolicyBindings(ctx)
	if err != nil || len(bindings) == 0 {
		return err
	}
	policies, err := ps.ValidatingAdmissionPolicies(ctx)
	if err != nil {
		return err
	}
	byName := map[string]*admissionregistration.ValidatingAdmissionPolicy{}
	for _, p := range policies {
		byName[p.Name] = p
	}
	slices.SortFunc(bindings, func(x, y *admissionregistration.ValidatingAdmissionPolicyBinding) int {
		return strings.Compare(x.Name, y.Name)
	})
	var vars map[string]any
	var nsObj any
	for _, b := range bindings {
		p := byName[b.Spec.PolicyName]
		if p == nil {
			continue
		}
		if ok, err := d.matchResources(ctx, p.Spec.MatchConstraints, a, true); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		if b.Spec.MatchResources != nil {
			if ok, err := d.matchResources(ctx, b.Spec.MatchResources, a, false); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
		}
		if vars == nil {
			if vars, err = memo.of(ctx, a); err != nil {
				return meta.NewInternalError(err)
			}
			if nsObj, err = namespaceObject(ctx, d.opts.Source, a); err != nil {
				return meta.NewInternalError(err)
			}
		}
		deny := func(msg, reason string) error {
			return d.refuse(ctx, a, Refusal{By: "policy", Policy: p.Name, Binding: b.Name}, policyDenied(a, p.Name, b.Name, msg, reason))
		}
		failClosed := p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != "Ignore"
		paramSets := []any{nil}
		if pk := p.Spec.ParamKind; pk != nil {
			objs, err := d.params(ctx, ps, pk, b.Spec.ParamRef, a)
			if err != nil {
				if !failClosed {
					continue
				}
				return deny("failed to configure binding: "+err.Error(), "Invalid")
			}
			if objs == nil {
				continue // parameterNotFoundAction Allow
			}
			paramSets = objs
		}
		for _, params := range paramSets {
			v := map[string]any{"object": vars["object"], "oldObject": vars["oldObject"], "request": vars["request"],
				"params": params, "namespaceObject": nsObj}
			d.addAuthorizer(ctx, a, v)
			ok, errs := evalMatchConditions(ctx, envPolicy, p.Spec.MatchConditions, v)
			if len(errs) > 0 {
				if failClosed {
					return deny(errs[0].Error(), "Invalid")
				}
				continue
			}
			if !ok {
				continue
			}
			for _, dec := range evalPolicyValidations(p, v, failClosed) {
				for _, act := range b.Spec.ValidationActions {
					switch act {
					case "Deny":
						return deny(dec.msg, dec.reason)
					case "Warn":
						registry.AddWarnings(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.Name, b.Name, dec.msg))
					}
				}
			}
		}
	}
	return nil
}

// validationMessage is the message and reason of a failed validation:
// its messageExpression's result m (nil when it has none or it failed)
// when a non-empty single line, else message, else `failed expression:
// <expr>`; reason Invalid by default.
func validationMessage(val admissionregistration.Validation, m any) (msg, reason string) {
	reason = "Invalid"
	if val.Reason != nil && *val.Reason != "" {
		reason = *val.Reason
	}
	msg = "failed expression: " + strings.TrimSpace(val.Expression)
	if val.Message != "" {
		msg = val.Message
	}
	if s, ok := m.(string); ok && strings.TrimSpace(s) != "" && !strings.ContainsAny(s, "\n") {
		msg = strings.TrimSpace(s)
	}
	return msg, reason
}

// policyDenied is the Status of a denial by policy p through binding b.
func policyDenied(a *registry.AdmissionAttributes, p, b, msg, reason string) *meta.StatusError {
	text := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", p, b, msg)
	e := forbidden(a, fmt.Errorf("%s", text))
	code := int32(http.StatusUnprocessableEntity)
	switch reason {
	case "Forbidden":
		code = http.StatusForbidden
	case "Unauthorized":
		code = http.StatusUnauthorized
	case "RequestEntityTooLarge":
		code = http.StatusRequestEntityTooLarge
	}
	e.Status.Code, e.Status.Reason = code, reason
	e.Status.Details.Causes = []meta.StatusCause{{Message: text}}
	return e
}

// params resolves a binding's paramRef: nil (no error) when nothing was
// found and parameterNotFoundAction is Allow; the error upstream names
// otherwise.
func (d *Dispatcher) params(ctx context.Context, ps PolicySource, pk *admissionregistration.ParamKind, ref *admissionregistration.ParamRef, a *registry.AdmissionAttributes) ([]any, error) {
	if ref == nil {
		return nil, fmt.Errorf("paramKind kind `%s` not known", pk.Kind)
	}
	ns := ref.Namespace
	if ns == "" {
		ns = a.Namespace
	}
	objs, namespaced, known, err := ps.Params(ctx, pk.APIVersion, pk.Kind, ns, ref.Name, ref.Selector)
	if err != nil {
		return nil, err
	}
	if !known {
		return nil, fmt.Errorf("paramKind kind `%s` not known", pk.Kind)
	}
	_ = namespaced
	if len(objs) == 0 {
		if ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == "Deny" {
			return nil, fmt.Errorf("no params found for policy binding with `Deny` parameterNotFoundAction")
		}
		return nil, nil
	}
	out := make([]any, 0, len(objs))
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// matchResources applies a policy's matchConstraints (required: nil
// matches nothing) or a binding's matchResources (nil rules: every
// resource the policy matched) to a.
func (d *Dispatcher) matchResources(ctx context.Context, mr *admissionregistration.MatchResources, a *registry.AdmissionAttributes, constraints bool) (bool, error) {
	if mr == nil {
		return !constraints, nil
	}
	if len(mr.ResourceRules) > 0 || constraints {
		in := false
		for _, r := range mr.ResourceRules {
			if namedRuleMatches(r, a) {
				in = true
				break
			}
		}
		if !in {
			return false, nil
		}
	}
	for _, r := range mr.ExcludeResourceRules {
		if namedRuleMatches(r, a) {
			return false, nil
		}
	}
	h := &hook{w: admissionregistration.ValidatingWebhook{NamespaceSelector: mr.NamespaceSelector, ObjectSelector: mr.ObjectSelector,
		Rules: []admissionregistration.RuleWithOperations{rule1()}}}
	return d.matches(ctx, h, a, nil) // h has no match conditions
}

// rule1 matches every request (selectors are checked by matches).
func rule1() admissionregistration.RuleWithOperations {
	return admissionregistration.RuleWithOperations{Operations: []string{"*"},
		Rule: admissionregistration.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*", "*/*"}}}
}

func namedRuleMatches(r admissionregistration.NamedRuleWithOperations, a *registry.AdmissionAttributes) bool {
	if !ruleMatches(r.RuleWithOperations, a) {
		return false
	}
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.Name)
}
