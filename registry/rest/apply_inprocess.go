package rest

import (
	"bytes"
	"context"

	"github.com/aggsim/aggsim/registry/negotiation"
)

// jsonApplyBodyKey marks a context whose apply requests carry a body
// encoding/json wrote (WithJSONApplyBody).
type jsonApplyBodyKey struct{}

// WithJSONApplyBody returns ctx marked for in-process server-side apply
// requests (application/apply-patch+yaml sent to the API's handler by the
// server's own controllers: ClusterRole aggregation, the APF consumer)
// whose body is a JSON object that encoding/json produced: no duplicate
// keys, no comments, numbers as encoding/json writes them. Such a body's
// JSON form is the body itself, so the apply skips the YAML-to-JSON
// conversion (yaml.YAMLToJSON: a YAML parse and a JSON re-encoding, about
// a quarter of the CPU of applying the aggregated admin ClusterRole). What
// the apply decodes from it, and so what it stores, is the same: the
// conversion only reorders keys and re-encodes the same values. Requests
// from the network never carry the mark (a context value is not
// something a client can send).
func WithJSONApplyBody(ctx context.Context) context.Context {
	return context.WithValue(ctx, jsonApplyBodyKey{}, true)
}

// applyBodyToJSON is the JSON form of an apply request's body: the body
// itself when ctx carries WithJSONApplyBody's mark and it is a JSON
// object, else BodyToJSON's YAML conversion (errors are its).
func applyBodyToJSON(ctx context.Context, body []byte) ([]byte, error) {
	if marked, _ := ctx.Value(jsonApplyBodyKey{}).(bool); marked {
		if t := bytes.TrimSpace(body); len(t) > 1 && t[0] == '{' && t[len(t)-1] == '}' {
			return t, nil
		}
	}
	return BodyToJSON(negotiation.MediaYAML, body)
}
