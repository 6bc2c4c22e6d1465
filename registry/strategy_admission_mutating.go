package registry

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// VersionV1Alpha1 is the version of the alpha admissionregistration.k8s.io
// resources (MutatingAdmissionPolicy and its binding).
const VersionV1Alpha1 = "v1alpha1"

// MutatingAdmissionPolicyStrategies returns the strategies of the
// admissionregistration.k8s.io/v1alpha1 resources kube-apiserver 1.33
// serves with --runtime-config=admissionregistration.k8s.io/v1alpha1=true:
// mutatingadmissionpolicies and mutatingadmissionpolicybindings (no
// status subresource; upstream
// pkg/registry/admissionregistration/mutatingadmissionpolicy*). They are
// not among Strategies: the server adds them when that group/version is
// enabled. now is the clock for AGE cells.
func MutatingAdmissionPolicyStrategies(now func() time.Time) []Strategy {
	info := func(kind, resource string) ResourceInfo {
		i := admissionInfo(kind, resource, false)
		i.Version = VersionV1Alpha1
		return i
	}
	return []Strategy{
		GenericStrategy{
			Resource: info("MutatingAdmissionPolicy", "mutatingadmissionpolicies"),
			WireType: reflect.TypeFor[admissionregistration.MutatingAdmissionPolicy](),
			Shape:    ShapeSpec,
			// capture: GET .../v1alpha1/mutatingadmissionpolicies as Table
			Columns: []meta.TableColumnDefinition{
				{Name: "Mutations", Type: "integer", Description: "Mutation indicates the number of mutations rules defined in this configuration"},
				{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
			},
			Row:        mutatingAdmissionPolicyRow,
			DefaultFn:  func(o *GenericObject) { recode(&o.Spec, admissionregistration.DefaultMutatingAdmissionPolicySpec) },
			ValidateFn: validateMutatingAdmissionPolicy, ZeroSpec: json.RawMessage("{}"), Now: now,
			MergeKeysMap: map[string]string{"spec.matchConditions": "name"},
			AtomicPaths:  []string{"spec.matchConstraints", "spec.paramKind"},
		},
		GenericStrategy{
			Resource: info("MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings"),
			WireType: reflect.TypeFor[admissionregistration.MutatingAdmissionPolicyBinding](),
			Shape:    ShapeSpec,
			Columns: []meta.TableColumnDefinition{
				{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
				{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configration param"},
			},
			Row: validatingAdmissionPolicyBindingRow, // same cells
			DefaultFn: func(o *GenericObject) {
				recode(&o.Spec, admissionregistration.DefaultMutatingAdmissionPolicyBindingSpec)
			},
			ValidateFn: validateMutatingAdmissionPolicyBinding, ZeroSpec: json.RawMessage("{}"), Now: now,
			AtomicPaths: []string{"spec.matchResources", "spec.paramRef"},
		},
	}
}

// validateMutatingAdmissionPolicy mirrors upstream's
// validateMutatingAdmissionPolicySpec.
func validateMutatingAdmissionPolicy(o *GenericObject) meta.FieldErrors {
	var spec admissionregistration.MutatingAdmissionPolicySpec
	if err := decodeBody(o.Spec, &spec); err != nil {
		return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
	}
	return admissionregistration.ValidateMutatingAdmissionPolicySpec(&spec)
}

// validateMutatingAdmissionPolicyBinding mirrors upstream's
// validateMutatingAdmissionPolicyBindingSpec.
func validateMutatingAdmissionPolicyBinding(o *GenericObject) meta.FieldErrors {
	var spec admissionregistration.MutatingAdmissionPolicyBindingSpec
	if err := decodeBody(o.Spec, &spec); err != nil {
		return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
	}
	return admissionregistration.ValidateMutatingAdmissionPolicyBindingSpec(&spec)
}

// mutatingAdmissionPolicyRow: number of mutations and
// "<apiVersion>/<kind>" of spec.paramKind or "<unset>".
func mutatingAdmissionPolicyRow(o *GenericObject) []any {
	m, _ := rawField(o.Spec, "mutations").([]any)
	return []any{int64(len(m)), validatingAdmissionPolicyRow(o)[1]}
}
