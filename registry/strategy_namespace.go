package registry

import (
	"errors"
	"slices"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// NamespaceStrategy is the Strategy of core/v1 namespaces, as
// kubernetes/pkg/registry/core/namespace/strategy.go: phase Active, the
// "kubernetes" finalizer and the kubernetes.io/metadata.name label are set
// on create. DELETE marks the namespace Terminating (deletionTimestamp,
// status.phase); it is removed once spec.finalizers is empty (the
// namespace controller removes "kubernetes" through /finalize after it
// deleted the content).
// The zero value is ready to use.
type NamespaceStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var (
	_ Strategy              = NamespaceStrategy{}
	_ DeletedObjectReturner = NamespaceStrategy{}
	_ meta.FieldsProvider   = NamespaceStrategy{}
	_ DeleteAdmitter        = NamespaceStrategy{}
	_ StatusValidator       = NamespaceStrategy{}
	_ TerminatingDeleter    = NamespaceStrategy{}
)

// immortalNamespaces may not be deleted, as the NamespaceLifecycle
// admission plugin's immortal namespaces upstream
// (plugin/pkg/admission/namespace/lifecycle): default, kube-system and
// kube-public (kube-node-lease may be deleted).
var immortalNamespaces = []string{"default", "kube-system", "kube-public"}

// AdmitDelete refuses deleting an immortal namespace with upstream's 403
// Forbidden `namespaces "default" is forbidden: this namespace may not be
// deleted`.
func (NamespaceStrategy) AdmitDelete(_, name string) error {
	if slices.Contains(immortalNamespaces, name) {
		return meta.NewForbidden(meta.GroupResource{Resource: "namespaces"}, name, errors.New("this namespace may not be deleted"))
	}
	return nil
}

// BeginTerminating sets status.phase Terminating, as the first DELETE of
// a namespace does upstream.
func (NamespaceStrategy) BeginTerminating(obj meta.Object) {
	obj.(*core.Namespace).Status.Phase = core.NamespaceTerminating
}

// Finalized reports whether spec.finalizers is empty.
func (NamespaceStrategy) Finalized(obj meta.Object) bool {
	return len(obj.(*core.Namespace).Spec.Finalizers) == 0
}

// Info describes namespaces as /api/v1 discovery does (short name ns, no
// deletecollection, the finalize and status subresources).
func (NamespaceStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "Namespace", ListKind: "NamespaceList",
		Resource: "namespaces", Singular: "namespace",
		ShortNames:   []string{"ns"},
		Namespaced:   false,
		Verbs:        []string{"create", "delete", "get", "list", "patch", "update", "watch"},
		HasStatus:    true,
		StatusVerbs:  []string{"get", "patch", "update"},
		Subresources: []SubresourceInfo{{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}}},
	}
}

// New returns an empty *Namespace.
func (NamespaceStrategy) New() meta.Object { return &core.Namespace{} }

// PrepareForCreate sets status.phase Active and adds the "kubernetes"
// finalizer and the metadata.name label.
func (NamespaceStrategy) PrepareForCreate(obj meta.Object) {
	ns := obj.(*core.Namespace)
	ns.Status = core.NamespaceStatus{Phase: core.NamespaceActive}
	has := false
	for _, f := range ns.Spec.Finalizers {
		if f == core.FinalizerKubernetes {
			has = true
		}
	}
	if !has {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, core.FinalizerKubernetes)
	}
	setNamespaceNameLabel(ns)
}

func setNamespaceNameLabel(ns *core.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[core.LabelMetadataName] = ns.Name
}

// PrepareForUpdate keeps the old status and finalizers (spec.finalizers
// only change through /finalize upstream) and the name label.
func (NamespaceStrategy) PrepareForUpdate(obj, old meta.Object) {
	ns, o := obj.(*core.Namespace), old.(*core.Namespace)
	ns.Status = o.Status
	ns.Spec.Finalizers = o.Spec.Finalizers
	setNamespaceNameLabel(ns)
}

// PrepareForStatusUpdate keeps the old spec and metadata.
func (NamespaceStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	ns, o := obj.(*core.Namespace), old.(*core.Namespace)
	ns.Spec = o.Spec
	keepMetadataForStatus(&ns.ObjectMeta, &o.ObjectMeta)
}

// Default sets the kubernetes.io/metadata.name label, as core/v1's
// SetDefaults_Namespace (Defaulter), so the writer owns it, and an empty
// status.phase to Active, as SetDefaults_NamespaceStatus.
func (NamespaceStrategy) Default(obj meta.Object) {
	ns := obj.(*core.Namespace)
	setNamespaceNameLabel(ns)
	if ns.Status.Phase == "" {
		ns.Status.Phase = core.NamespaceActive
	}
}

// PrepareForSubresourceUpdate prepares a namespaces/finalize write as
// upstream's finalizeStrategy does: the old status is kept, everything
// else (spec.finalizers included) is the request's.
func (NamespaceStrategy) PrepareForSubresourceUpdate(_ string, obj, old meta.Object) {
	ns, o := obj.(*core.Namespace), old.(*core.Namespace)
	ns.Status = o.Status
	setNamespaceNameLabel(ns)
}

// ValidateSubresourceUpdate runs ValidateNamespaceFinalizeUpdate.
func (NamespaceStrategy) ValidateSubresourceUpdate(_ string, obj, old meta.Object) meta.FieldErrors {
	return core.ValidateNamespaceFinalizeUpdate(obj.(*core.Namespace), old.(*core.Namespace))
}

// Validate runs ValidateNamespace.
func (NamespaceStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateNamespace(obj.(*core.Namespace))
}

// ValidateStatusUpdate runs ValidateNamespaceStatusUpdate (upstream's
// namespaceStatusStrategy).
func (NamespaceStrategy) ValidateStatusUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateNamespaceStatusUpdate(obj.(*core.Namespace), old.(*core.Namespace))
}

// ValidateUpdate runs ValidateNamespaceUpdate.
func (NamespaceStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateNamespaceUpdate(obj.(*core.Namespace), old.(*core.Namespace))
}

// Canonicalize keeps the kubernetes.io/metadata.name label in place.
func (NamespaceStrategy) Canonicalize(obj meta.Object) { setNamespaceNameLabel(obj.(*core.Namespace)) }

// TableColumns are NAME, STATUS, AGE.
func (NamespaceStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		stringColumn("Status", "The status of the namespace"),
		ageColumn(),
	}
}

// TableRow returns name, phase and age.
func (s NamespaceStrategy) TableRow(obj meta.Object) []any {
	ns := obj.(*core.Namespace)
	return []any{ns.Name, ns.Status.Phase, meta.TableAge(ns.CreationTimestamp, nowOr(s.Now))}
}

// AllowCreateOnUpdate is false for namespaces.
func (NamespaceStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true for namespaces.
func (NamespaceStrategy) AllowUnconditionalUpdate() bool { return true }

// ReturnDeletedObject is true: DELETE answers with the namespace.
func (NamespaceStrategy) ReturnDeletedObject() bool { return true }

// SelectableFields adds status.phase to the name, the field selectors
// namespaces support upstream (core/v1 conversion.go).
func (NamespaceStrategy) SelectableFields(obj meta.Object) map[string]string {
	return map[string]string{"status.phase": obj.(*core.Namespace).Status.Phase}
}
