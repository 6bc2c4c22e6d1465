package registry

import (
	"slices"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GarbageCollectionPolicy is a resource's default garbage-collection
// policy for a DELETE that names none (upstream's
// rest.GarbageCollectionPolicy, apiserver pkg/registry/rest/delete.go).
type GarbageCollectionPolicy string

// The policies a strategy can default to.
const (
	// DeleteDependents: dependents are deleted in the background (no
	// finalizer is added); the default of every resource that names none.
	DeleteDependents GarbageCollectionPolicy = "DeleteDependents"
	// OrphanDependents: the orphan finalizer is added unless the request
	// says otherwise (upstream: replicationcontrollers in core/v1 and the
	// workloads of apps/v1beta1, v1beta2 and extensions/v1beta1).
	OrphanDependents GarbageCollectionPolicy = "OrphanDependents"
	// Unsupported: the resource takes part in no garbage collection;
	// propagationPolicy and orphanDependents are ignored (upstream: events).
	Unsupported GarbageCollectionPolicy = "Unsupported"
)

// GarbageCollectionDeleteStrategy is an optional Strategy extension naming
// the resource's default garbage-collection policy (upstream's
// rest.GarbageCollectionDeleteStrategy). A strategy without it defaults to
// DeleteDependents.
type GarbageCollectionDeleteStrategy interface {
	DefaultGarbageCollectionPolicy() GarbageCollectionPolicy
}

// gcPolicy returns the strategy's default garbage-collection policy.
func (s *Store) gcPolicy() GarbageCollectionPolicy {
	if g, ok := s.strategy.(GarbageCollectionDeleteStrategy); ok {
		return g.DefaultGarbageCollectionPolicy()
	}
	return DeleteDependents
}

// shouldOrphanDependents reports whether a DELETE with opts leaves the
// object with the orphan finalizer, as upstream's shouldOrphanDependents
// (apiserver pkg/registry/generic/registry/store.go): an explicit
// orphanDependents, then propagationPolicy, then a GC finalizer already on
// the object, then the resource's default.
func shouldOrphanDependents(policy GarbageCollectionPolicy, finalizers []string, opts *meta.DeleteOptions) bool {
	if policy == Unsupported {
		return false
	}
	if opts != nil && opts.OrphanDependents != nil {
		return *opts.OrphanDependents
	}
	if opts != nil && opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case meta.DeletePropagationOrphan:
			return true
		case meta.DeletePropagationBackground, meta.DeletePropagationForeground:
			return false
		}
	}
	for _, f := range finalizers {
		switch f {
		case meta.FinalizerOrphanDependents:
			return true
		case meta.FinalizerDeleteDependents:
			return false
		}
	}
	return policy == OrphanDependents
}

// shouldDeleteDependents reports whether a DELETE with opts leaves the
// object with the foregroundDeletion finalizer, as upstream's
// shouldDeleteDependents: orphanDependents set (either way) says no,
// propagationPolicy Foreground says yes, else the finalizer already there.
func shouldDeleteDependents(policy GarbageCollectionPolicy, finalizers []string, opts *meta.DeleteOptions) bool {
	if policy == Unsupported {
		return false
	}
	if opts != nil && opts.OrphanDependents != nil {
		return false
	}
	if opts != nil && opts.PropagationPolicy != nil {
		switch *opts.PropagationPolicy {
		case meta.DeletePropagationForeground:
			return true
		case meta.DeletePropagationBackground, meta.DeletePropagationOrphan:
			return false
		}
	}
	return slices.Contains(finalizers, meta.FinalizerDeleteDependents)
}

// deletionFinalizers returns the finalizers the object has after a DELETE
// with opts, and whether they differ from finalizers as a set (upstream's
// deletionFinalizersForGarbageCollection): orphan and foregroundDeletion
// are removed, then appended again, in that order, when the options, the
// object or the resource's default ask for them.
func deletionFinalizers(policy GarbageCollectionPolicy, finalizers []string, opts *meta.DeleteOptions) ([]string, bool) {
	orphan := shouldOrphanDependents(policy, finalizers, opts)
	foreground := shouldDeleteDependents(policy, finalizers, opts)
	out := []string{}
	for _, f := range finalizers {
		if f != meta.FinalizerOrphanDependents && f != meta.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, meta.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, meta.FinalizerDeleteDependents)
	}
	if sameSet(out, finalizers) {
		return finalizers, false
	}
	return out, true
}

// namespaceDeletionFinalizers returns a namespace's metadata.finalizers
// after its first DELETE with opts, as upstream's namespace REST Delete
// (pkg/registry/core/namespace/storage/storage.go
// shouldHaveOrphanFinalizer, shouldHaveDeleteDependentsFinalizer):
// orphanDependents decides both (false means foregroundDeletion), else
// propagationPolicy, else the finalizers already there stay. Finalizers
// that stay keep their order; an added one is appended.
func namespaceDeletionFinalizers(finalizers []string, opts *meta.DeleteOptions) []string {
	has := func(f string) bool { return slices.Contains(finalizers, f) }
	orphan, foreground := has(meta.FinalizerOrphanDependents), has(meta.FinalizerDeleteDependents)
	switch {
	case opts != nil && opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, !*opts.OrphanDependents
	case opts != nil && opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == meta.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == meta.DeletePropagationForeground
	}
	if orphan == has(meta.FinalizerOrphanDependents) && foreground == has(meta.FinalizerDeleteDependents) {
		return finalizers
	}
	out := []string{}
	for _, f := range finalizers {
		if (f == meta.FinalizerOrphanDependents && !orphan) || (f == meta.FinalizerDeleteDependents && !foreground) {
			continue
		}
		out = append(out, f)
	}
	if orphan && !has(meta.FinalizerOrphanDependents) {
		out = append(out, meta.FinalizerOrphanDependents)
	}
	if foreground && !has(meta.FinalizerDeleteDependents) {
		out = append(out, meta.FinalizerDeleteDependents)
	}
	return out
}

// sameSet reports whether a and b hold the same strings, ignoring order
// and repeats.
func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}
