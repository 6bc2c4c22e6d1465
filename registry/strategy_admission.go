package registry

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// GroupAdmissionRegistration is the group of admission webhook and policy
// configuration.
const GroupAdmissionRegistration = "admissionregistration.k8s.io"

// crudVerbs are the discovery verbs of an ordinary stored resource.
var crudVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// statusVerbs are the discovery verbs of a /status subresource.
var statusVerbs = []string{"get", "patch", "update"}

// admissionInfo is the ResourceInfo of an admissionregistration.k8s.io/v1
// kind: cluster-scoped, category api-extensions, no short names (capture
// a-discovery/apis.aggregated.v2.json).
func admissionInfo(kind, resource string, status bool) ResourceInfo {
	i := ResourceInfo{
		Group: GroupAdmissionRegistration, Version: VersionV1,
		Kind: kind, ListKind: kind + "List",
		Resource: resource, Singular: lowerKind(kind),
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
// GenericObjects: stored, listed and watched as sent, with minimal
// validation and no defaulting. now is the clock for AGE cells.
func AdmissionStrategies(now func() time.Time) []Strategy {
	webhooks := []meta.TableColumnDefinition{{Name: "Webhooks", Type: "integer", Description: "Webhooks is a list of webhooks and the affected resources and operations."}}
	webhookRow := func(o *GenericObject) []any {
		var l []json.RawMessage
		_ = json.Unmarshal(o.Webhooks, &l)
		return []any{int64(len(l))}
	}
	return []Strategy{
		GenericStrategy{
			Resource: admissionInfo("MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false),
			Shape:    ShapeWebhooks, Columns: webhooks, Row: webhookRow,
			ValidateFn: validateWebhooks, MergeKeysMap: map[string]string{"webhooks": "name"}, Now: now,
		},
		GenericStrategy{
			Resource: admissionInfo("ValidatingAdmissionPolicy", "validatingadmissionpolicies", true),
			Shape:    ShapeSpecStatus,
			Columns: []meta.TableColumnDefinition{
				{Name: "Validations", Type: "integer", Description: "Validations contain CEL expressions which is used to apply the validation."},
				{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
			},
			Row:        validatingAdmissionPolicyRow,
			ValidateFn: validateValidatingAdmissionPolicy, Now: now,
		},
		GenericStrategy{
			Resource: admissionInfo("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", false),
			Shape:    ShapeSpec,
			Columns: []meta.TableColumnDefinition{
				{Name: "PolicyName", Type: "string", Description: "PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to."},
				{Name: "ParamRef", Type: "string", Description: "paramRef specifies the parameter resource used to configure the admission control policy."},
			},
			Row:        validatingAdmissionPolicyBindingRow,
			ValidateFn: validateValidatingAdmissionPolicyBinding, Now: now,
		},
		GenericStrategy{
			Resource: admissionInfo("ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false),
			Shape:    ShapeWebhooks, Columns: webhooks, Row: webhookRow,
			ValidateFn: validateWebhooks, MergeKeysMap: map[string]string{"webhooks": "name"}, Now: now,
		},
	}
}

// validateWebhooks requires a name on every webhook, the first check of
// upstream's validateMutatingWebhook/validateValidatingWebhook.
func validateWebhooks(o *GenericObject) meta.FieldErrors {
	var l []map[string]any
	if len(o.Webhooks) == 0 {
		return nil
	}
	if err := json.Unmarshal(o.Webhooks, &l); err != nil {
		return meta.FieldErrors{meta.Invalid("webhooks", string(o.Webhooks), "must be a list of objects")}
	}
	var errs meta.FieldErrors
	for i, w := range l {
		if n, _ := w["name"].(string); n == "" {
			errs = append(errs, meta.Required(fmt.Sprintf("webhooks[%d].name", i), ""))
		}
	}
	return errs
}

// validateValidatingAdmissionPolicy mirrors the Required checks of
// upstream's validateValidatingAdmissionPolicySpec.
func validateValidatingAdmissionPolicy(o *GenericObject) meta.FieldErrors {
	v, _ := rawField(o.Spec, "validations").([]any)
	a, _ := rawField(o.Spec, "auditAnnotations").([]any)
	if len(v) == 0 && len(a) == 0 {
		return meta.FieldErrors{meta.Required("spec.validations", "validations or auditAnnotations must contain at least one item")}
	}
	return nil
}

// validateValidatingAdmissionPolicyBinding mirrors the Required checks of
// upstream's validateValidatingAdmissionPolicyBindingSpec.
func validateValidatingAdmissionPolicyBinding(o *GenericObject) meta.FieldErrors {
	var errs meta.FieldErrors
	if n, _ := rawField(o.Spec, "policyName").(string); n == "" {
		errs = append(errs, meta.Required("spec.policyName", ""))
	}
	if a, _ := rawField(o.Spec, "validationActions").([]any); len(a) == 0 {
		errs = append(errs, meta.Required("spec.validationActions", "at least one validation action is required"))
	}
	return errs
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
