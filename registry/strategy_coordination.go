package registry

import (
	"reflect"
	"time"

	"github.com/aggsim/aggsim/registry/apis/coordination"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupCoordination is the group of Leases.
const GroupCoordination = "coordination.k8s.io"

// CoordinationStrategies returns the strategy of coordination.k8s.io/v1
// leases (upstream pkg/registry/coordination/lease/strategy.go):
// namespaced, spec only, no status and no generation, the
// CoordinatedLeaderElection fields dropped (the gate is off in 1.33),
// table columns Name, Holder, Age (upstream's printers.go; compared with
// the reference's Table answer for kube-system's leases). now is the
// clock for AGE cells.
func CoordinationStrategies(now func() time.Time) []Strategy {
	return []Strategy{GenericStrategy{
		Resource: ResourceInfo{
			Group: GroupCoordination, Version: VersionV1,
			Kind: "Lease", ListKind: "LeaseList",
			Resource: "leases", Singular: "lease",
			Namespaced: true,
			Verbs:      crudVerbs,
		},
		WireType: reflect.TypeFor[coordination.Lease](),
		Shape:    ShapeSpec,
		Columns: []meta.TableColumnDefinition{
			{Name: "Holder", Type: "string", Description: "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field."},
		},
		Row: func(o *GenericObject) []any {
			h, _ := rawField(o.Spec, "holderIdentity").(string)
			return []any{h}
		},
		DefaultFn: func(o *GenericObject) {
			recode(&o.Spec, coordination.DropDisabledFields)
		},
		ValidateFn: func(o *GenericObject) meta.FieldErrors {
			var spec coordination.LeaseSpec
			if err := decodeBody(o.Spec, &spec); err != nil {
				return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
			}
			return coordination.ValidateLeaseSpec(&spec)
		},
		Now:          now,
		NoGeneration: true,
	}}
}
