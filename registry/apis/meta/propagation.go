package meta

// The values of DeleteOptions.propagationPolicy (metav1.DeletionPropagation).
const (
	// DeletePropagationOrphan orphans the dependents: the garbage
	// collector removes their ownerReferences to the object.
	DeletePropagationOrphan = "Orphan"
	// DeletePropagationBackground deletes the object at once and its
	// dependents afterwards.
	DeletePropagationBackground = "Background"
	// DeletePropagationForeground keeps the object (with the
	// foregroundDeletion finalizer) until its blocking dependents are gone.
	DeletePropagationForeground = "Foreground"
)
