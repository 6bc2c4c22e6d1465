package apiregistration

import (
	"fmt"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Validation of apiregistration.k8s.io/v1 APIService, rule for rule and
// message for message as kube-aggregator/pkg/apis/apiregistration/validation/validation.go
// (checked against ../testdata/kube-1.33/d-validation).

// Upper bounds of the priorities. Both are inclusive although upstream's
// message says "less than".
const (
	MaxGroupPriorityMinimum = 20000
	MaxVersionPriority      = 1000
)

// ValidateAPIService checks a new APIService. The result is ordered as
// upstream reports it: metadata, group, version, priorities, then the
// service/caBundle/insecureSkipTLSVerify rules.
func ValidateAPIService(a *APIService) meta.FieldErrors {
	wantName := a.Spec.Version + "." + a.Spec.Group
	nameRule := func(name string, prefix bool) []string {
		if errs := meta.ValidatePathSegmentName(name, prefix); len(errs) > 0 {
			return errs
		}
		if name != wantName {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", wantName)}
		}
		return nil
	}
	errs := meta.ValidateObjectMeta(&a.ObjectMeta, false, nameRule)

	if a.Spec.Group == "" && a.Spec.Version != "v1" {
		errs = append(errs, meta.Required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
	}
	if a.Spec.Group != "" {
		for _, msg := range meta.IsDNS1123Subdomain(a.Spec.Group) {
			errs = append(errs, meta.Invalid("spec.group", a.Spec.Group, msg))
		}
	}
	for _, msg := range meta.IsDNS1035Label(a.Spec.Version) {
		errs = append(errs, meta.Invalid("spec.version", a.Spec.Version, msg))
	}
	if a.Spec.GroupPriorityMinimum <= 0 || a.Spec.GroupPriorityMinimum > MaxGroupPriorityMinimum {
		errs = append(errs, meta.Invalid("spec.groupPriorityMinimum", a.Spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if a.Spec.VersionPriority <= 0 || a.Spec.VersionPriority > MaxVersionPriority {
		errs = append(errs, meta.Invalid("spec.versionPriority", a.Spec.VersionPriority, "must be positive and less than 1000"))
	}

	svc := a.Spec.Service
	if svc == nil {
		if len(a.Spec.CABundle) != 0 {
			errs = append(errs, meta.Invalid("spec.caBundle", fmt.Sprintf("%d bytes", len(a.Spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if a.Spec.InsecureSkipTLSVerify {
			errs = append(errs, meta.Invalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	if svc.Namespace == "" {
		errs = append(errs, meta.Required("spec.service.namespace", ""))
	}
	if svc.Name == "" {
		errs = append(errs, meta.Required("spec.service.name", ""))
	}
	if svc.Port != nil {
		if msgs := meta.IsValidPortNum(int(*svc.Port)); len(msgs) > 0 {
			errs = append(errs, meta.Invalid("spec.service.port", *svc.Port, "port is not valid: "+strings.Join(msgs, ", ")))
		}
	}
	if a.Spec.InsecureSkipTLSVerify && len(a.Spec.CABundle) > 0 {
		errs = append(errs, meta.Invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"))
	}
	return errs
}

// ValidateAPIServiceUpdate checks an update of the main resource or of
// /status: the immutable metadata, every rule of ValidateAPIService, and
// that each condition status is True, False or Unknown (upstream's status
// rule, harmless on the main resource whose status is reset to the old one).
func ValidateAPIServiceUpdate(a, old *APIService) meta.FieldErrors {
	errs := meta.ValidateObjectMetaUpdate(&a.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, ValidateAPIService(a)...)
	errs = append(errs, validateAPIServiceConditions(a)...)
	return errs
}

func validateAPIServiceConditions(a *APIService) meta.FieldErrors {
	var errs meta.FieldErrors
	for i, c := range a.Status.Conditions {
		switch c.Status {
		case ConditionTrue, ConditionFalse, ConditionUnknown:
		default:
			errs = append(errs, meta.NotSupported(fmt.Sprintf("status.conditions[%d].status", i), string(c.Status),
				[]string{string(ConditionTrue), string(ConditionFalse), string(ConditionUnknown)}))
		}
	}
	return errs
}
