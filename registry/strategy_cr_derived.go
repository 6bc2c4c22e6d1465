package registry

import "sync"

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

// listMapKeys returns s's list map keys, shared: callers must not change
// them (the one caller, the field manager's scope, reads them).
func (d *crDerived) listMapKeys(s *CustomResourceStrategy) map[string][]string {
	d.keysOnce.Do(func() { d.keys = s.listMapKeysOfSchema() })
	return d.keys
}

// atomicMaps returns s's atomic map paths, shared as listMapKeys.
func (d *crDerived) atomicMaps(s *CustomResourceStrategy) []string {
	d.atomicOnce.Do(func() { d.atomic = s.atomicMapsOfSchema() })
	return d.atomic
}
