package admission

import (
	"context"
	"encoding/json"

	"github.com/aggsim/aggsim/registry"
)

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
	vars := map[string]any{"request": req, "object": req["object"], "oldObject": req["oldObject"]}
	delete(req, "object")
	delete(req, "oldObject")
	return vars, nil
}
