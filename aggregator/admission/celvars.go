package admission

import (
	"bytes"
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
	if err := unmarshalCELJSON(b, &req); err != nil {
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

// unmarshalCELJSON decodes b as CEL reads JSON objects: integers (numbers
// without fraction or exponent that fit) as int64, other numbers as
// float64, as upstream's unstructured objects hold them, so that
// `object.spec.size * 2` is int arithmetic (float64 would fail with "no
// such overload").
func unmarshalCELJSON(b []byte, out *map[string]any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return err
	}
	for k, v := range *out {
		(*out)[k] = celNumbers(v)
	}
	return nil
}

// celNumbers replaces the json.Numbers in v (decoded with UseNumber).
func celNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = celNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = celNumbers(e)
		}
	}
	return v
}
