package admission

import (
	"context"
	"encoding/json"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// celVars memoises celVariables over one admission pass (Validate, or
// Mutate's webhooks): built on first use instead of once per webhook or
// policy with match conditions, and again when a mutating webhook has
// replaced a.Object. The zero value is ready; a nil *celVars builds the
// variables on every call.
type celVars struct {
	obj  meta.Object
	vars map[string]any
}

// of returns the variables of a.
func (m *celVars) of(ctx context.Context, a *registry.AdmissionAttributes) (map[string]any, error) {
	if m == nil {
		return celVariables(ctx, a)
	}
	if m.vars == nil || m.obj != a.Object {
		vars, err := celVariables(ctx, a)
		if err != nil {
			return nil, err
		}
		m.obj, m.vars = a.Object, vars
	}
	return m.vars, nil
}

// celVariables returns the match-condition variables of a: object and
// oldObject (null when absent) and request, the AdmissionRequest as a
// webhook would receive it (upstream's admission CEL activation).
func celVariables(ctx context.Context, a *registry.AdmissionAttributes) (map[string]any, error) {
	rev, err := buildReview(ctx, reviewV1, a)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(rev.Request)
	if err != nil {
		return nil, err
	}
	var req map[string]any
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	// upstream's request variable is typed: absent strings read as "".
	for _, k := range []string{"name", "namespace", "subResource", "requestSubResource"} {
		if _, ok := req[k]; !ok {
			req[k] = ""
		}
	}
	ui, _ := req["userInfo"].(map[string]any)
	if ui == nil {
		ui = map[string]any{}
		req["userInfo"] = ui
	}
	for k, v := range map[string]any{"username": "", "uid": "", "groups": []any{}, "extra": map[string]any{}} {
		if _, ok := ui[k]; !ok {
			ui[k] = v
		}
	}
	// namespaceObject is declared for webhook matchConditions too and
	// null there (upstream passes no namespace); policies set their own.
	vars := map[string]any{"request": req, "object": req["object"], "oldObject": req["oldObject"], "namespaceObject": nil}
	delete(req, "object")
	delete(req, "oldObject")
	return vars, nil
}
