package demo

import (
	"reflect"
	"strconv"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// allVerbs are the discovery verbs of a resource served by the generic
// store, in upstream's order.
var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// FlunderStrategy is the registry.Strategy of flunders in one version
// (upstream sample-apiserver pkg/registry/wardle/flunder/strategy.go):
// create clears status, updates keep status and bump generation on a spec
// change, /status keeps everything but status. The zero value is not
// valid: set Version.
type FlunderStrategy struct {
	// Version is V1alpha1 or V1beta1.
	Version string
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var _ registry.Strategy = FlunderStrategy{}

// Info describes flunders as the sample's discovery does.
func (s FlunderStrategy) Info() registry.ResourceInfo {
	return registry.ResourceInfo{
		Group: Group, Version: s.Version, Kind: "Flunder", ListKind: "FlunderList",
		Resource: "flunders", Singular: "flunder", ShortNames: []string{"fl"}, Categories: []string{"all"},
		Namespaced: true, Verbs: allVerbs, HasStatus: true, StatusVerbs: []string{"get", "patch", "update"},
	}
}

// New returns an empty *Flunder.
func (FlunderStrategy) New() meta.Object { return &Flunder{} }

// PrepareForCreate clears status and starts generation at 1.
func (FlunderStrategy) PrepareForCreate(obj meta.Object) {
	f := obj.(*Flunder)
	f.Status, f.Generation = FlunderStatus{}, 1
}

// PrepareForUpdate keeps the old status and bumps generation when the spec
// changed.
func (FlunderStrategy) PrepareForUpdate(obj, old meta.Object) {
	n, o := obj.(*Flunder), old.(*Flunder)
	n.Status = o.Status
	registry.BumpGeneration(&n.ObjectMeta, &o.ObjectMeta, !reflect.DeepEqual(n.Spec, o.Spec))
}

// PrepareForStatusUpdate keeps spec, labels and annotations from old.
func (FlunderStrategy) PrepareForStatusUpdate(obj, old meta.Object) {
	n, o := obj.(*Flunder), old.(*Flunder)
	n.Spec = o.Spec
	n.Labels, n.Annotations = o.Labels, o.Annotations
	n.Generation = o.Generation
}

// Validate runs ValidateFlunder.
func (FlunderStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return ValidateFlunder(obj.(*Flunder))
}

// ValidateUpdate runs ValidateFlunder on the new object.
func (FlunderStrategy) ValidateUpdate(obj, _ meta.Object) meta.FieldErrors {
	return ValidateFlunder(obj.(*Flunder))
}

// Canonicalize does nothing for flunders.
func (FlunderStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME and AGE.
func (FlunderStrategy) TableColumns() []meta.TableColumnDefinition { return nameAgeColumns() }

// TableRow returns name and age.
func (s FlunderStrategy) TableRow(obj meta.Object) []any {
	f := obj.(*Flunder)
	return []any{f.Name, meta.TableAge(f.CreationTimestamp, nowOr(s.Now))}
}

// AllowCreateOnUpdate is false, as for the sample's generic store.
func (FlunderStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true, as for the sample's generic store.
func (FlunderStrategy) AllowUnconditionalUpdate() bool { return true }

// FischerStrategy is the registry.Strategy of fischers (upstream
// pkg/registry/wardle/fischer/strategy.go): no status, generation bumped on
// any change of disallowedFlunders. The zero value is not valid: set
// Version.
type FischerStrategy struct {
	// Version is V1alpha1 (the sample serves fischers only there).
	Version string
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var _ registry.Strategy = FischerStrategy{}

// Info describes fischers as the sample's discovery does.
func (s FischerStrategy) Info() registry.ResourceInfo {
	return registry.ResourceInfo{
		Group: Group, Version: s.Version, Kind: "Fischer", ListKind: "FischerList",
		Resource: "fischers", Singular: "fischer", Verbs: allVerbs,
	}
}

// New returns an empty *Fischer.
func (FischerStrategy) New() meta.Object { return &Fischer{} }

// PrepareForCreate does nothing: a Fischer has no status.
func (FischerStrategy) PrepareForCreate(meta.Object) {}

// PrepareForUpdate bumps generation when disallowedFlunders changed.
func (FischerStrategy) PrepareForUpdate(obj, old meta.Object) {
	n, o := obj.(*Fischer), old.(*Fischer)
	registry.BumpGeneration(&n.ObjectMeta, &o.ObjectMeta, !reflect.DeepEqual(n.DisallowedFlunders, o.DisallowedFlunders))
}

// PrepareForStatusUpdate is never called: fischers have no /status.
func (FischerStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Validate runs ValidateFischer.
func (FischerStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return ValidateFischer(obj.(*Fischer))
}

// ValidateUpdate runs ValidateFischer on the new object.
func (FischerStrategy) ValidateUpdate(obj, _ meta.Object) meta.FieldErrors {
	return ValidateFischer(obj.(*Fischer))
}

// Canonicalize does nothing for fischers.
func (FischerStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME and AGE.
func (FischerStrategy) TableColumns() []meta.TableColumnDefinition { return nameAgeColumns() }

// TableRow returns name and age.
func (s FischerStrategy) TableRow(obj meta.Object) []any {
	f := obj.(*Fischer)
	return []any{f.Name, meta.TableAge(f.CreationTimestamp, nowOr(s.Now))}
}

// AllowCreateOnUpdate is false, as for the sample's generic store.
func (FischerStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true, as for the sample's generic store.
func (FischerStrategy) AllowUnconditionalUpdate() bool { return true }

// Strategies returns the strategies of every resource the demo serves:
// flunders in each of Versions, fischers in v1alpha1. now is the clock for
// AGE cells (nil: time.Now).
func Strategies(now func() time.Time) []registry.Strategy {
	return []registry.Strategy{
		FlunderStrategy{Version: V1alpha1, Now: now},
		FischerStrategy{Version: V1alpha1, Now: now},
		FlunderStrategy{Version: V1beta1, Now: now},
	}
}

// ValidateFlunder checks a flunder: a DNS-1123 subdomain name, a
// referenceType of "", Flunder or Fischer, and a reference whenever a
// referenceType is set (upstream wardle/validation ValidateFlunderSpec).
func ValidateFlunder(f *Flunder) meta.FieldErrors {
	errs := validateName(f.Name)
	switch f.Spec.ReferenceType {
	case "":
		if f.Spec.Reference != "" {
			errs = append(errs, meta.Invalid("spec.reference", f.Spec.Reference, "cannot be set if referenceType is empty"))
		}
	case FlunderReferenceType, FischerReferenceType:
		if f.Spec.Reference == "" {
			errs = append(errs, meta.Required("spec.reference", "must be set if referenceType is "+string(f.Spec.ReferenceType)))
		}
	default:
		errs = append(errs, meta.NotSupported("spec.referenceType", string(f.Spec.ReferenceType), []string{string(FischerReferenceType), string(FlunderReferenceType)}))
	}
	return errs
}

// ValidateFischer checks a fischer: a DNS-1123 subdomain name and
// disallowedFlunders entries that are DNS-1123 subdomains.
func ValidateFischer(f *Fischer) meta.FieldErrors {
	errs := validateName(f.Name)
	for i, n := range f.DisallowedFlunders {
		for _, msg := range meta.IsDNS1123Subdomain(n) {
			errs = append(errs, meta.Invalid(indexPath("disallowedFlunders", i), n, msg))
		}
	}
	return errs
}

func validateName(name string) meta.FieldErrors {
	var errs meta.FieldErrors
	if name == "" {
		return nil // the store reports a missing name
	}
	for _, msg := range meta.IsDNS1123Subdomain(name) {
		errs = append(errs, meta.Invalid("metadata.name", name, msg))
	}
	return errs
}

func indexPath(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// nameAgeColumns are the NAME and AGE columns of the demo's tables.
func nameAgeColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: nameColumnDescription},
		{Name: "Age", Type: "string", Description: ageColumnDescription},
	}
}

// Column descriptions, from the ObjectMeta field docs as upstream's
// default table convertor takes them.
const (
	nameColumnDescription = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	ageColumnDescription  = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

func nowOr(f func() time.Time) time.Time {
	if f == nil {
		return time.Now()
	}
	return f()
}
