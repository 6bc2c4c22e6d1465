package rest

import "github.com/aggsim/aggsim/registry"

// MergeApplyConfiguration merges cfg, a partial object (JSON), into live
// (JSON) as a server-side apply of cfg merges it for s's resource: maps
// recursively, lists by their merge keys and list-map keys (new elements
// after the live ones), atomic structs and lists replaced whole. It is
// what a MutatingAdmissionPolicy's ApplyConfiguration mutation does to
// the object (upstream's mutating policy patcher applies it with
// structured-merge-diff); no managedFields are involved. Errors are the
// decoding errors of either document.
func MergeApplyConfiguration(s *registry.Store, live, cfg []byte) ([]byte, error) {
	return applyMerge(live, cfg, scopeOf(s, "").mergeKeys)
}
