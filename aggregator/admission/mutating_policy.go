package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types/ref"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// MutatingPolicySource is what a Source also implements to have
// MutatingAdmissionPolicies enforced (Options.MutatingAdmissionPolicy):
// the policies and their bindings, any order.
type MutatingPolicySource interface {
	PolicySource
	MutatingAdmissionPolicies(ctx context.Context) ([]*admissionregistration.MutatingAdmissionPolicy, error)
	MutatingAdmissionPolicyBindings(ctx context.Context) ([]*admissionregistration.MutatingAdmissionPolicyBinding, error)
	// ApplyStore is the store of apiVersion/kind, whose merge keys an
	// ApplyConfiguration mutation merges by (nil: none known).
	ApplyStore(apiVersion, kind string) *registry.Store
}

// boundPolicy is a MutatingAdmissionPolicy with one of its bindings.
type boundPolicy struct {
	p *admissionregistration.MutatingAdmissionPolicy
	b *admissionregistration.MutatingAdmissionPolicyBinding
}

// policyPass remembers, over one Mutate, the bindings of policies with
// reinvocationPolicy IfNeeded that ran, and whether the object changed
// after one of them ran (then they run once more, as upstream's
// reinvocation context reinvokes them). vars memoises the CEL variables
// over the pass (rebuilt only when a mutation replaced a.Object), nsObj
// the namespaceObject once read.
type policyPass struct {
	ifNeeded     []boundPolicy
	changedAfter bool
	vars         celVars
	nsObj        any
	nsRead       bool
}

// namespaceObject is a's namespaceObject, read once per pass (an error is
// not remembered).
func (pass *policyPass) namespaceObject(ctx context.Context, d *Dispatcher, a *registry.AdmissionAttributes) (any, error) {
	if !pass.nsRead {
		ns, err := namespaceObject(ctx, d.opts.Source, a)
		if err != nil {
			return nil, err
		}
		pass.nsObj, pass.nsRead = ns, true
	}
	return pass.nsObj, nil
}

// mutatePolicies applies the MutatingAdmissionPolicies bound to a's
// request (CREATE and UPDATE; upstream's MutatingAdmissionPolicy plugin,
// which runs before MutatingAdmissionWebhook), binding by binding in
// name order: the policy's matchConstraints and the binding's
// matchResources, its params (paramRef), then per param object the
// matchConditions, variables and mutations in order. An ApplyConfiguration
// result is merged into the object as server-side apply merges; a
// JSONPatch result is applied as RFC 6902. Errors (a failed expression or
// patch, params not found) skip the mutation under failurePolicy Ignore;
// under Fail they are collected and, after every policy ran, refuse the
// request: 403 with the first error as message (`policy '<p>' with
// binding '<b>' denied request: <error>`), reason Invalid (Forbidden for a
// binding that could not be configured) and every error as a cause, as
// kube-apiserver 1.33.13 answers.
func (d *Dispatcher) mutatePolicies(ctx context.Context, a *registry.AdmissionAttributes) (*policyPass, error) {
	pass := &policyPass{}
	if !d.opts.MutatingAdmissionPolicy || a.Object == nil || (a.Operation != registry.OperationCreate && a.Operation != registry.OperationUpdate) {
		return pass, nil
	}
	ms, ok := d.opts.Source.(MutatingPolicySource)
	if !ok {
		return pass, nil
	}
	bindings, err := ms.MutatingAdmissionPolicyBindings(ctx)
	if err != nil || len(bindings) == 0 {
		return pass, err
	}
	policies, err := ms.MutatingAdmissionPolicies(ctx)
	if err != nil {
		return pass, err
	}
	byName := map[string]*admissionregistration.MutatingAdmissionPolicy{}
	for _, p := range policies {
		byName[p.Name] = p
	}
	slices.SortFunc(bindings, func(x, y *admissionregistration.MutatingAdmissionPolicyBinding) int {
		return strings.Compare(x.Name, y.Name)
	})
	var bound []boundPolicy
	for _, b := range bindings {
		if p := byName[b.Spec.PolicyName]; p != nil {
			bound = append(bound, boundPolicy{p, b})
		}
	}
	var failures []policyFailure
	for _, bp := range bound {
		changed, ran, fs := d.applyPolicy(ctx, ms, pass, bp, a)
		failures = append(failures, fs...)
		if changed && len(pass.ifNeeded) > 0 {
			pass.changedAfter = true
		}
		if ran && bp.p.Spec.ReinvocationPolicy == "IfNeeded" {
			pass.ifNeeded = append(pass.ifNeeded, bp)
		}
	}
	return pass, d.policyRefusal(ctx, a, failures)
}

// reinvoke runs once more the IfNeeded policies that ran, when the object
// changed after they ran (by a later policy, or webhooksChanged).
func (pass *policyPass) reinvoke(ctx context.Context, d *Dispatcher, a *registry.AdmissionAttributes, webhooksChanged bool) error {
	if pass == nil || len(pass.ifNeeded) == 0 || !(pass.changedAfter || webhooksChanged) {
		return nil
	}
	ms := d.opts.Source.(MutatingPolicySource)
	var failures []policyFailure
	for _, bp := range pass.ifNeeded {
		_, _, fs := d.applyPolicy(ctx, ms, pass, bp, a)
		failures = append(failures, fs...)
	}
	pass.ifNeeded = nil
	return d.policyRefusal(ctx, a, failures)
}

// policyFailure is one error of a policy under failurePolicy Fail.
type policyFailure struct {
	bp     boundPolicy
	msg    string
	reason string
}

// policyRefusal is the answer to failures (nil when none), recorded as
// the refusal of the first failing policy.
func (d *Dispatcher) policyRefusal(ctx context.Context, a *registry.AdmissionAttributes, failures []policyFailure) error {
	if len(failures) == 0 {
		return nil
	}
	gr := meta.GroupResource{Group: a.Info.Group, Resource: a.Info.Resource}
	name := a.Name
	if name == "" && a.Object != nil {
		if name = a.Object.GetObjectMeta().Name; name == "" {
			name = a.Object.GetObjectMeta().GenerateName
		}
	}
	first := failures[0]
	e := meta.NewStatusError(http.StatusForbidden, first.reason, first.msg)
	e.Status.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	for _, f := range failures {
		e.Status.Details.Causes = append(e.Status.Details.Causes, meta.StatusCause{Message: f.msg})
	}
	return d.refuse(ctx, a, Refusal{By: "policy", Mutating: true, Policy: first.bp.p.Name, Binding: first.bp.b.Name}, e)
}

// applyPolicy evaluates one bound policy against a and applies its
// mutations to a.Object: whether the object changed, whether the policy
// matched and ran, and its errors under failurePolicy Fail.
func (d *Dispatcher) applyPolicy(ctx context.Context, ms MutatingPolicySource, pass *policyPass, bp boundPolicy, a *registry.AdmissionAttributes) (changed, ran bool, failures []policyFailure) {
	p, b := bp.p, bp.b
	failClosed := p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != "Ignore"
	fail := func(reason string, err string) {
		if failClosed {
			failures = append(failures, policyFailure{bp, fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", p.Name, b.Name, err), reason})
		}
	}
	if ok, err := d.matchResources(ctx, p.Spec.MatchConstraints, a, true); err != nil || !ok {
		if err != nil {
			fail(meta.StatusReasonForbidden, err.Error())
		}
		return false, false, failures
	}
	if b.Spec.MatchResources != nil {
		if ok, err := d.matchResources(ctx, b.Spec.MatchResources, a, false); err != nil || !ok {
			if err != nil {
				fail(meta.StatusReasonForbidden, err.Error())
			}
			return false, false, failures
		}
	}
	paramSets := []any{nil}
	if pk := p.Spec.ParamKind; pk != nil {
		objs, err := d.params(ctx, ms, pk, b.Spec.ParamRef, a)
		if err != nil {
			fail(meta.StatusReasonForbidden, "failed to configure binding: "+err.Error())
			return false, false, failures
		}
		if objs == nil {
			return false, false, failures // parameterNotFoundAction Allow
		}
		paramSets = objs
	}
	nsObj, err := pass.namespaceObject(ctx, d, a)
	if err != nil {
		fail(meta.StatusReasonInternalError, err.Error())
		return changed, ran, failures
	}
	for _, params := range paramSets {
		vars, err := pass.vars.of(ctx, a)
		if err != nil {
			fail(meta.StatusReasonInternalError, err.Error())
			return changed, ran, failures
		}
		v := map[string]any{"object": vars["object"], "oldObject": vars["oldObject"], "request": vars["request"],
			"params": params, "namespaceObject": nsObj}
		d.addAuthorizer(ctx, a, v)
		ok, errs := evalMatchConditions(ctx, envMutation, p.Spec.MatchConditions, v)
		if len(errs) > 0 {
			fail(meta.StatusReasonInvalid, errs[0].Error())
			continue
		}
		if !ok {
			continue
		}
		ran = true
		evalVariables(envMutation, p.Spec.Variables, v, nil)
		for _, m := range p.Spec.Mutations {
			c, err := d.applyMutation(ms, m, v, a)
			if err != nil {
				fail(meta.StatusReasonInvalid, err.Error())
				continue
			}
			if c {
				changed = true
				// later mutations see the changed object
				if nv, err := pass.vars.of(ctx, a); err == nil {
					v["object"] = nv["object"]
				}
			}
		}
	}
	return changed, ran, failures
}

// evalMutationExpr evaluates expr in the mutation environment and
// returns its result as JSON-shaped Go values.
func evalMutationExpr(expr string, vars map[string]any) (any, error) {
	p, err := program(envMutation, expr)
	if err != nil {
		return nil, err
	}
	out, _, err := p.Eval(vars)
	if err != nil {
		return nil, err
	}
	return admissionregistration.MutationValueToNative(out.(ref.Val))
}

// applyMutation evaluates one mutation and applies it to a.Object; it
// reports whether the object changed. Errors read `expression '<expr>'
// resulted in error: <err>` for a failed evaluation.
func (d *Dispatcher) applyMutation(ms MutatingPolicySource, m admissionregistration.Mutation, vars map[string]any, a *registry.AdmissionAttributes) (bool, error) {
	var expr string
	switch {
	case m.PatchType == "ApplyConfiguration" && m.ApplyConfiguration != nil:
		expr = m.ApplyConfiguration.Expression
	case m.PatchType == "JSONPatch" && m.JSONPatch != nil:
		expr = m.JSONPatch.Expression
	default:
		return false, fmt.Errorf("unsupported patch type %q", m.PatchType)
	}
	out, err := evalMutationExpr(expr, vars)
	if err != nil {
		return false, fmt.Errorf("expression '%s' resulted in error: %v", expr, err)
	}
	orig, err := objectJSON(a.Info, a.Object)
	if err != nil {
		return false, err
	}
	var patched []byte
	if m.PatchType == "ApplyConfiguration" {
		cfg, err := json.Marshal(out)
		if err != nil {
			return false, err
		}
		st := ms.ApplyStore(a.Info.APIVersion(), a.Info.Kind)
		if st == nil {
			return false, fmt.Errorf("no merge rules known for %s", a.Info.Kind)
		}
		if patched, err = rest.MergeApplyConfiguration(st, orig, cfg); err != nil {
			return false, err
		}
	} else {
		ops, ok := out.([]any)
		if !ok {
			return false, fmt.Errorf("expression '%s' resulted in error: expected list of JSONPatch", expr)
		}
		b, err := json.Marshal(ops)
		if err != nil {
			return false, err
		}
		patch, err := decodeJSONPatch(b) // v4, as upstream's policy patcher (jsonpatch.go)
		if err != nil {
			return false, err
		}
		if patched, err = patch.Apply(orig); err != nil {
			return false, fmt.Errorf("JSON Patch: %w", err) // upstream's prefix
		}
	}
	obj, err := a.Decode(patched)
	if err != nil {
		return false, err
	}
	after, err := objectJSON(a.Info, obj)
	if err != nil {
		return false, err
	}
	if string(after) == string(orig) {
		return false, nil
	}
	a.Object = obj
	return true, nil
}
