package registry

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/aggsim/aggsim/registry/apis/apiextensions"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupAPIExtensions is the apiextensions.k8s.io group.
const GroupAPIExtensions = apiextensions.GroupAPIExtensions

// CRSchema is what aggsim asks of the structural-schema engine for one
// version of a CustomResourceDefinition (package
// registry/apis/apiextensions/structural): value validation with
// upstream's paths and texts, pruning of unknown fields (returning their
// paths, for fieldValidation Strict/Warn), the pruning of nulls upstream
// does after it on write, and defaulting, all on objects decoded by
// encoding/json with UseNumber.
type CRSchema interface {
	Validate(obj map[string]any) meta.FieldErrors
	Prune(obj map[string]any) []string
	PruneNulls(obj map[string]any)
	Default(obj map[string]any)
}

// NewCRSchema parses one openAPIV3Schema (its JSON) and checks it as
// upstream's CRD validation does (structural.New), fldPath prefixing the
// error fields. It returns a nil CRSchema only when the bytes do not
// parse; a schema with errors must not serve objects.
func NewCRSchema(openAPIV3Schema []byte, fldPath string) (CRSchema, meta.FieldErrors) {
	s, errs := structural.New(openAPIV3Schema, fldPath)
	if s == nil { // a nil *Schema must not become a non-nil interface
		return nil, errs
	}
	return s, errs
}

// acceptAllSchema is the CRSchema of a version without a schema (only
// possible for CRDs stored before v1 made schemas required): it accepts
// every object and prunes and defaults nothing.
type acceptAllSchema struct{}

func (acceptAllSchema) Validate(map[string]any) meta.FieldErrors { return nil }
func (acceptAllSchema) Prune(map[string]any) []string            { return nil }
func (acceptAllSchema) PruneNulls(map[string]any)                {}
func (acceptAllSchema) Default(map[string]any)                   {}

// checkCRDSchema is the apiextensions.SchemaChecker: the root-schema
// restrictions of the status subresource, the structural checks
// (structural.New), then the compilation and cost of the
// x-kubernetes-validations rules (celrules.Compile).
func checkCRDSchema(raw []byte, fldPath string, statusSubresource bool) meta.FieldErrors {
	s, errs := structural.New(raw, fldPath)
	if s != nil && statusSubresource {
		// upstream reports the root-schema restrictions of the status
		// subresource before the structural checks
		errs = append(s.StatusSubresourceErrors(fldPath), errs...)
	}
	if s == nil || len(errs) > 0 {
		// upstream compiles the rules only of a structural schema with
		// valid defaults
		return errs
	}
	_, cerrs := celrules.Compile(s, fldPath)
	return cerrs
}

// CRDStrategy is the Strategy of apiextensions.k8s.io/v1
// customresourcedefinitions (upstream
// apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go
// and etcd.go): create resets status to the storage version in
// storedVersions; updates keep status, bump generation on spec changes and
// add a new storage version to storedVersions; the first DELETE marks the
// CRD Terminating and adds the customresourcecleanup finalizer, which the
// CRD controller removes once the custom resources are gone.
type CRDStrategy struct {
	// Now is the clock for CREATED AT cells and the Terminating
	// condition; nil means time.Now.
	Now func() time.Time
}

var (
	_ Strategy            = CRDStrategy{}
	_ Defaulter           = CRDStrategy{}
	_ TerminatingDeleter  = CRDStrategy{}
	_ FieldSchemaProvider = CRDStrategy{}
	_ StatusValidator     = CRDStrategy{}
)

// Info describes customresourcedefinitions as kube-apiserver 1.33's
// discovery does: short names crd and crds, category api-extensions, and
// /status; its storageVersionHash names v1beta1.
func (CRDStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupAPIExtensions, Version: VersionV1, StorageVersion: "v1beta1",
		Kind: "CustomResourceDefinition", ListKind: "CustomResourceDefinitionList",
		Resource: "customresourcedefinitions", Singular: "customresourcedefinition",
		ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
		Verbs: crudVerbs, HasStatus: true, StatusVerbs: statusVerbs,
	}
}

// New returns an empty CustomResourceDefinition.
func (CRDStrategy) New() meta.Object { return &apiextensions.CustomResourceDefinition{} }

// Default applies apiextensions/v1's defaults.
func (CRDStrategy) Default(obj meta.Object) {
	apiextensions.SetDefaults(obj.(*apiextensions.CustomResourceDefinition))
}

// ListMapKeys declares status.conditions a map keyed by type.
func (CRDStrategy) ListMapKeys() map[string][]string {
	return map[string][]string{"status.conditions": {"type"}}
}

// AtomicMaps returns none.
func (CRDStrategy) AtomicMaps() []string { return nil }

// PrepareForCreate resets status: no conditions, empty accepted names and
// the storage version as the only stored version; generation 1.
func (CRDStrategy) PrepareForCreate(obj meta.Object) {
	crd := obj.(*apiextensions.CustomResourceDefinition)
	crd.Status = apiextensions.CustomResourceDefinitionStatus{}
	if v := apiextensions.StorageVersion(crd); v != "" {
		crd.Status.StoredVersions = []string{v}
	}
	crd.Generation = 1
}

// PrepareForUpdate keeps the old status (plus a new storage version in
// storedVersions) and bumps generation when the spec changed.
func (CRDStrategy) PrepareForUpdate(obj, old meta.Object) {
	crd, o := obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition)
	crd.Status = o.Status
	crd.Status.StoredVersions = slices.Clone(o.Status.StoredVersions)
	a, _ := json.Marshal(crd.Spec)
	b, _ := json.Marshal(o.Spec)
	BumpGeneration(&crd.ObjectMeta, &o.ObjectMeta, string(a) != string(b))
	if v := apiextensions.StorageVersion(crd); v != "" && !slices.Contains(crd.Status.StoredVersions, v) {
		crd.Status.StoredVersions = append(crd.Status.StoredVersions, v)
	}
}

// PrepareForStatusUpdate keeps spec, labels, annotations,
// ownerReferences and generation from old, and takes status and
// metadata.finalizers from obj: upstream's CRD status strategy does not
// reset finalizers, so the cleanup controller removes its finalizer
// through /status.
func (CRDStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	crd, o := obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition)
	crd.Spec = o.Spec
	crd.Labels, crd.Annotations, crd.OwnerReferences = o.Labels, o.Annotations, o.OwnerReferences
	crd.Generation = o.Generation
}

// Validate runs upstream's CRD validation, schemas through NewCRSchema.
func (CRDStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return apiextensions.ValidateCustomResourceDefinition(obj.(*apiextensions.CustomResourceDefinition), checkCRDSchema)
}

// ValidateUpdate runs upstream's CRD update validation.
func (CRDStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return apiextensions.ValidateCustomResourceDefinitionUpdate(obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition), checkCRDSchema)
}

// ValidateStatusUpdate checks a /status write: metadata update rules and
// the accepted names (apiextensions.ValidateCustomResourceDefinitionStatusUpdate),
// without building the schemas and compiling the rules of every version
// again as ValidateUpdate does.
func (CRDStrategy) ValidateStatusUpdate(obj, old meta.Object) meta.FieldErrors {
	return apiextensions.ValidateCustomResourceDefinitionStatusUpdate(obj.(*apiextensions.CustomResourceDefinition), old.(*apiextensions.CustomResourceDefinition))
}

// Canonicalize does nothing.
func (CRDStrategy) Canonicalize(meta.Object) {}

// TableColumns are upstream's default table columns: NAME, CREATED AT.
func (CRDStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{nameColumn(), createdAtColumn()}
}

// TableRow returns the name and the creation time.
func (CRDStrategy) TableRow(obj meta.Object) []any {
	m := obj.GetObjectMeta()
	return []any{m.Name, createdAtCell(m)}
}

// BeginTerminating adds the customresourcecleanup finalizer and the
// Terminating condition upstream's CRD REST Delete sets.
func (s CRDStrategy) BeginTerminating(obj meta.Object) {
	crd := obj.(*apiextensions.CustomResourceDefinition)
	if !slices.Contains(crd.Finalizers, apiextensions.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, apiextensions.CustomResourceCleanupFinalizer)
	}
	SetCRDCondition(crd, apiextensions.CustomResourceDefinitionCondition{
		Type: apiextensions.Terminating, Status: apiextensions.ConditionTrue,
		Reason:  "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	}, nowOr(s.Now))
}

// Finalized reports whether the customresourcecleanup finalizer is gone.
func (CRDStrategy) Finalized(obj meta.Object) bool {
	return !slices.Contains(obj.GetObjectMeta().Finalizers, apiextensions.CustomResourceCleanupFinalizer)
}

// SetCRDCondition sets cond in crd's conditions as upstream's
// apihelpers.SetCRDCondition: a new condition is appended with
// lastTransitionTime now; an existing one keeps its time unless its status
// changes.
func SetCRDCondition(crd *apiextensions.CustomResourceDefinition, cond apiextensions.CustomResourceDefinitionCondition, now time.Time) {
	cond.LastTransitionTime = meta.NewTime(now)
	old := apiextensions.FindCondition(crd.Status.Conditions, cond.Type)
	if old == nil {
		crd.Status.Conditions = append(crd.Status.Conditions, cond)
		return
	}
	if old.Status == cond.Status {
		cond.LastTransitionTime = old.LastTransitionTime
	}
	*old = cond
}
