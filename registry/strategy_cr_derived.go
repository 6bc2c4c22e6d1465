package registry

import (
	"maps"
	"slices"
	"sync"
)

// crDerived holds what a CustomResourceStrategy derives from its
// version's schema, computed on first use: every create, update and patch
// asked for the list map keys and atomic maps (for managedFields), each a
// walk of the whole schema (for ServiceMonitor's 75 KB schema about 350 KB
// of allocations per request). The CEL rules are compiled once per
// strategy too (CustomResourceStrategy.rules).
// The schema does not change for the life of a strategy (a changed CRD
// gets a new one).
type crDerived struct {
	keysOnce sync.Once
	keys     map[string][]string

	atomicOnce sync.Once
	atomic     []string
}

// listMapKeys returns a copy of s's list map keys (callers may change it).
func (d *crDerived) listMapKeys(s *CustomResourceStrategy) map[string][]string {
	d.keysOnce.Do(func() { d.keys = s.listMapKeysOfSchema() })
	out := maps.Clone(d.keys)
	for k, v := range out {
		out[k] = slices.Clone(v)
	}
	return out
}

// atomicMaps returns a copy of s's atomic map paths.
func (d *crDerived) atomicMaps(s *CustomResourceStrategy) []string {
	d.atomicOnce.Do(func() { d.atomic = s.atomicMapsOfSchema() })
	return slices.Clone(d.atomic)
}
