package meta

// DeepCopyJSONValue returns a deep copy of a decoded JSON value (what
// encoding/json decodes into an any: map[string]any, []any, string,
// float64 or json.Number, bool, nil): maps and lists are new, scalars are
// shared. It mirrors k8s.io/apimachinery's runtime.DeepCopyJSONValue
// (pkg/runtime/converter.go), without its panic on other types: a value
// of any other type is returned as it is.
func DeepCopyJSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopyJSONValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopyJSONValue(e)
		}
		return out
	}
	return v
}
