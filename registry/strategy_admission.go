package registry

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupAdmissionRegistration is the group of admission webhook and policy
// configuration.
const GroupAdmissionRegistration = "admissionregistration.k8s.io"

// admissionInfo is the ResourceInfo of an admissionregistration.k8s.io/v1
// kind: cluster-scoped, category api-extensions, no short names (capture
// a-discovery/apis.aggregated.v2.json).
func admissionInfo(kind, resource string, status bool) ResourceInfo {
	i := ResourceInfo{
		Group: GroupAdmissionRegistration, Version: VersionV1,
		Kind: kind, ListKind: kind + "List",
		Resource: resource, Singular: strings.ToLower(kind),
		Categories: []string{"api-extensions"},
		Verbs:      crudVerbs,
	}
	if status {
		i.HasStatus, i.StatusVerbs = true, statusVerbs
	}
	return i
}

// AdmissionStrategies returns the strategies of the
// admissionregistration.k8s.io/v1 resources kube-apiserver 1.33 serves:
// mutatingwebhookconfigurations, validatingadmissionpolicies (+/status),
// validatingadmissionpolicybindings and validatingwebhookconfigurations
// (upstream pkg/registry/admissionregistration/*/strategy.go). Objects are
// GenericObjects whose bodies are defaulted and validated as upstream's
// (typed by registry/apis/admissionregistration) and stored in upstream's
// field order. now is the clock for AGE cells.
func AdmissionStrategies(now func() time.Time) []Strategy {
	webhooks := []meta.TableColumnDefinition{{Name: "Webhooks", Type: "integer", Description: "Webhooks is a list of webhooks and the affected resources and operations."}}
	webhookRow := func(o *GenericObject) []any {
		var l []json.RawMessage
		_ = json.Unmarshal(o.Webhooks, &l)
		return []any{int64(len(l))}
	}
	mutDefault, mutValidate := webhookStrategyFns(true)
	valDefault, valValidate := webhookStrategyFns(false)
	return []Strategy{
		GenericStrategy{
			Resource: admissionInfo("MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false),
			WireType: reflect.TypeFor[admissionregistration.MutatingWebhookConfiguration](),
			Shape:    ShapeWebhooks, Columns: webhooks, Row: webhookRow,
			DefaultFn: mutDefault, ValidateFn: mutValidate, MergeKeysMap: map[string]string{"webhooks": "name", "webhooks.matchConditions": "name"},
			AtomicPaths: webhookAtomicPaths, Now: now,
		},
		GenericStrategy{
			Resource: admissionInfo("ValidatingAdmissionPolicy", "validatingadmissionpolicies", true),
			WireType: reflect.TypeFor[admissionregistration.ValidatingAdmissionPolicy](),
			Shape:    ShapeSpecStatus,
			Columns: []meta.TableColumnDefinition{
				{Name: "Validations", Type: "integer", Description: "Validations contain CEL expressions which is used to apply the validation."},
				{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
			},
			Row:        validatingAdmissionPolicyRow,
			DefaultFn:  defaultValidatingAdmissionPolicy,
			ValidateFn: validateValidatingAdmissionPolicy, ZeroSpec: json.RawMessage("{}"), Now: now,
			MergeKeysMap: map[string]string{"spec.matchConditions": "name", "spec.variables": "name", "status.conditions": "type"},
			AtomicPaths:  []string{"spec.matchConstraints", "spec.paramKind"},
		},
		GenericStrategy{
			Resource: admissionInfo("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", false),
			WireType: reflect.TypeFor[admissionregistration.ValidatingAdmissionPolicyBinding](),
			Shape:    ShapeSpec,
			Columns: []meta.TableColumnDefinition{
				{Name: "PolicyName", Type: "string", Description: "PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to."},
				{Name: "ParamRef", Type: "string", Description: "paramRef specifies the parameter resource used to configure the admission control policy."},
			},
			Row:        validatingAdmissionPolicyBindingRow,
			DefaultFn:  defaultValidatingAdmissionPolicyBinding,
			ValidateFn: validateValidatingAdmissionPolicyBinding, ZeroSpec: json.RawMessage("{}"), Now: now,
			SetPaths:    []string{"spec.validationActions"},
			AtomicPaths: []string{"spec.matchResources", "spec.paramRef"},
		},
		GenericStrategy{
			Resource: admissionInfo("ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false),
			WireType: reflect.TypeFor[admissionregistration.ValidatingWebhookConfiguration](),
			Shape:    ShapeWebhooks, Columns: webhooks, Row: webhookRow,
			DefaultFn: valDefault, ValidateFn: valValidate, MergeKeysMap: map[string]string{"webhooks": "name", "webhooks.matchConditions": "name"},
			AtomicPaths: webhookAtomicPaths, Now: now,
		},
	}
}

// webhookAtomicPaths are the atomic structs of a webhook configuration:
// the label selectors (+structType=atomic upstream, capture
// /openapi/v3/apis/admissionregistration.k8s.io/v1).
var webhookAtomicPaths = []string{"webhooks.namespaceSelector", "webhooks.objectSelector"}

// webhookStrategyFns returns the defaulting and validation of a webhook
// configuration's webhooks list (typed as admissionregistration's
// MutatingWebhook or ValidatingWebhook; both are defaulted and validated
// in their MutatingWebhook form).
func webhookStrategyFns(mutating bool) (func(*GenericObject), func(*GenericObject) meta.FieldErrors) {
	decode := func(o *GenericObject) ([]admissionregistration.MutatingWebhook, error) {
		if !mutating {
			var l []admissionregistration.ValidatingWebhook
			if err := decodeBody(o.Webhooks, &l); err != nil {
				return nil, err
			}
			out := make([]admissionregistration.MutatingWebhook, len(l))
			for i := range l {
				out[i] = l[i].Mutating()
			}
			return out, nil
		}
		var l []admissionregistration.MutatingWebhook
		err := decodeBody(o.Webhooks, &l)
		return l, err
	}
	def := func(o *GenericObject) {
		if len(o.Webhooks) == 0 {
			return
		}
		if mutating {
			recode(&o.Webhooks, func(l *[]admissionregistration.MutatingWebhook) {
				for i := range *l {
					admissionregistration.DefaultWebhook(&(*l)[i], true)
				}
			})
			return
		}
		recode(&o.Webhooks, func(l *[]admissionregistration.ValidatingWebhook) {
			for i := range *l {
				m := (*l)[i].Mutating()
				admissionregistration.DefaultWebhook(&m, false)
				(*l)[i] = m.Validating()
			}
		})
	}
	validate := func(o *GenericObject) meta.FieldErrors {
		l, err := decode(o)
		if err != nil {
			return meta.FieldErrors{meta.Invalid("webhooks", string(o.Webhooks), err.Error())}
		}
		return admissionregistration.ValidateWebhooks(l, mutating)
	}
	return def, validate
}

// defaultValidatingAdmissionPolicy applies upstream's defaults to a
// ValidatingAdmissionPolicy's spec.
func defaultValidatingAdmissionPolicy(o *GenericObject) {
	recode(&o.Spec, admissionregistration.DefaultValidatingAdmissionPolicySpec)
}

// validateValidatingAdmissionPolicy mirrors upstream's
// validateValidatingAdmissionPolicySpec (CEL expressions compile-checked).
func validateValidatingAdmissionPolicy(o *GenericObject) meta.FieldErrors {
	var spec admissionregistration.ValidatingAdmissionPolicySpec
	if err := decodeBody(o.Spec, &spec); err != nil {
		return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
	}
	return admissionregistration.ValidateValidatingAdmissionPolicySpec(o.Name, &spec)
}

// defaultValidatingAdmissionPolicyBinding applies upstream's defaults to
// a binding's spec.matchResources.
func defaultValidatingAdmissionPolicyBinding(o *GenericObject) {
	recode(&o.Spec, admissionregistration.DefaultValidatingAdmissionPolicyBindingSpec)
}

// validateValidatingAdmissionPolicyBinding mirrors upstream's
// validateValidatingAdmissionPolicyBindingSpec.
func validateValidatingAdmissionPolicyBinding(o *GenericObject) meta.FieldErrors {
	var spec admissionregistration.ValidatingAdmissionPolicyBindingSpec
	if err := decodeBody(o.Spec, &spec); err != nil {
		return meta.FieldErrors{meta.Invalid("spec", string(o.Spec), err.Error())}
	}
	return admissionregistration.ValidateValidatingAdmissionPolicyBindingSpec(&spec)
}

// validatingAdmissionPolicyRow: number of validations and
// "<apiVersion>/<kind>" of spec.paramKind or "<unset>".
func validatingAdmissionPolicyRow(o *GenericObject) []any {
	v, _ := rawField(o.Spec, "validations").([]any)
	paramKind := "<unset>"
	if pk, ok := rawField(o.Spec, "paramKind").(map[string]any); ok {
		av, _ := pk["apiVersion"].(string)
		k, _ := pk["kind"].(string)
		paramKind = av + "/" + k
	}
	return []any{int64(len(v)), paramKind}
}

// validatingAdmissionPolicyBindingRow: spec.policyName and the paramRef as
// "<namespace>/<name>" ("*/" for no namespace, "*" for a selector) or
// "<unset>".
func validatingAdmissionPolicyBindingRow(o *GenericObject) []any {
	name, _ := rawField(o.Spec, "policyName").(string)
	ref := "<unset>"
	if pr, ok := rawField(o.Spec, "paramRef").(map[string]any); ok {
		ns, _ := pr["namespace"].(string)
		n, _ := pr["name"].(string)
		if ns == "" {
			ns = "*"
		}
		if n == "" {
			n = "*"
		}
		ref = ns + "/" + n
	}
	return []any{name, ref}
}
