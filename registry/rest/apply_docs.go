package rest

import "github.com/aggsim/aggsim/registry/apis/meta"

// applyMergeDocs is applyMerge on the live object's and the applied
// configuration's decoded documents (docOf's and unmarshalNumber's form),
// which it leaves unchanged: it merges copies of them. The merge is the
// same as applyMerge(json.Marshal(live), json.Marshal(cfg)), whose
// decoding only rebuilt those documents (no error can come from it:
// both are JSON objects that encoding/json decoded), without the two
// encodings and two decodings: the ClusterRole aggregation's applies
// right after a fresh start carry the rules of view, edit and admin.
func applyMergeDocs(live, cfg map[string]any, mergeKeys map[string]string) ([]byte, error) {
	return strategicMergeDecoded(meta.DeepCopyJSONValue(live).(map[string]any), meta.DeepCopyJSONValue(cfg).(map[string]any), mergeKeys, false)
}
