package rest

// applyMergeDocs is applyMerge on the live object's and the applied
// configuration's decoded documents (docOf's and unmarshalNumber's form),
// which it leaves unchanged: it merges copies of them. The merge is the
// same as applyMerge(json.Marshal(live), json.Marshal(cfg)), whose
// decoding only rebuilt those documents (no error can come from it:
// both are JSON objects that encoding/json decoded), without the two
// encodings and two decodings: the ClusterRole aggregation's applies
// right after a fresh start carry the rules of view, edit and admin.
func applyMergeDocs(live, cfg map[string]any, mergeKeys map[string]string) ([]byte, error) {
	return strategicMergeDecoded(copyDoc(live), copyDoc(cfg), mergeKeys, false)
}

// copyDoc is a deep copy of a decoded JSON document: maps and lists are
// new, scalars (string, json.Number, bool, nil) are shared.
func copyDoc(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyDoc(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyDoc(e)
		}
		return out
	}
	return v
}
