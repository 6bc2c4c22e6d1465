package rbac

import (
	"fmt"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ValidateName is the name rule of every RBAC kind: a valid path segment
// (not "." or "..", no '/' or '%'), as upstream's ValidateRBACName.
func ValidateName(name string, prefix bool) []string {
	return meta.ValidatePathSegmentName(name, prefix)
}

// ValidatePolicyRule mirrors upstream's ValidatePolicyRule: verbs are
// required; a rule with nonResourceURLs may not be namespaced nor name
// resources; a resource rule needs apiGroups and resources. p is the
// rule's path ("rules[0]").
func ValidatePolicyRule(r *PolicyRule, namespaced bool, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if len(r.Verbs) == 0 {
		errs = append(errs, meta.Required(p+".verbs", "verbs must contain at least one value"))
	}
	if len(r.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, meta.Invalid(p+".nonResourceURLs", r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
			errs = append(errs, meta.Invalid(p+".nonResourceURLs", r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, meta.Required(p+".apiGroups", "resource rules must supply at least one api group"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, meta.Required(p+".resources", "resource rules must supply at least one resource"))
	}
	return errs
}

func validateRules(rules []PolicyRule, namespaced bool) meta.FieldErrors {
	var errs meta.FieldErrors
	for i := range rules {
		errs = append(errs, ValidatePolicyRule(&rules[i], namespaced, meta.Index("rules", i))...)
	}
	return errs
}

// ValidateRole mirrors upstream's ValidateRole: metadata (namespaced,
// ValidateName) and every rule.
func ValidateRole(r *Role) meta.FieldErrors {
	errs := meta.ValidateObjectMeta(&r.ObjectMeta, true, ValidateName)
	return append(errs, validateRules(r.Rules, true)...)
}

// ValidateRoleUpdate mirrors ValidateRoleUpdate: ValidateRole plus the
// metadata update rules.
func ValidateRoleUpdate(r, old *Role) meta.FieldErrors {
	return append(ValidateRole(r), meta.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta)...)
}

// ValidateClusterRole mirrors upstream's ValidateClusterRole: metadata
// (cluster-scoped), every rule, and an aggregationRule with at least one
// valid selector (an invalid one also gets upstream's trailing
// `Invalid value: "null": invalid label selector.`).
func ValidateClusterRole(r *ClusterRole) meta.FieldErrors {
	errs := meta.ValidateObjectMeta(&r.ObjectMeta, false, ValidateName)
	errs = append(errs, validateRules(r.Rules, false)...)
	if r.AggregationRule != nil {
		p := "aggregationRule.clusterRoleSelectors"
		if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, meta.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range r.AggregationRule.ClusterRoleSelectors {
			// upstream then converts the selector, which fails exactly
			// when validation found something, and reports the nil
			// selector it got as the value
			serrs := meta.ValidateLabelSelector(&r.AggregationRule.ClusterRoleSelectors[i], meta.Index(p, i))
			if len(serrs) > 0 {
				serrs = append(serrs, meta.Invalid(meta.Index(p, i), nil, "invalid label selector."))
			}
			errs = append(errs, serrs...)
		}
	}
	return errs
}

// ValidateClusterRoleUpdate mirrors ValidateClusterRoleUpdate.
func ValidateClusterRoleUpdate(r, old *ClusterRole) meta.FieldErrors {
	return append(ValidateClusterRole(r), meta.ValidateObjectMetaUpdate(&r.ObjectMeta, &old.ObjectMeta)...)
}

// validateRoleRef checks roleRef: the RBAC group, a kind of kinds, a
// name that is a valid path segment.
func validateRoleRef(r *RoleRef, kinds []string) meta.FieldErrors {
	var errs meta.FieldErrors
	if r.APIGroup != GroupRBAC {
		errs = append(errs, meta.NotSupported("roleRef.apiGroup", r.APIGroup, []string{GroupRBAC}))
	}
	ok := false
	for _, k := range kinds {
		ok = ok || r.Kind == k
	}
	if !ok {
		errs = append(errs, meta.NotSupported("roleRef.kind", r.Kind, kinds))
	}
	if r.Name == "" {
		errs = append(errs, meta.Required("roleRef.name", ""))
	} else {
		for _, msg := range ValidateName(r.Name, false) {
			errs = append(errs, meta.Invalid("roleRef.name", r.Name, msg))
		}
	}
	return errs
}

// ValidateSubject mirrors upstream's ValidateRoleBindingSubject: a name
// is required; a ServiceAccount's is a DNS subdomain, its apiGroup empty
// and, in a ClusterRoleBinding, its namespace required; Users and Groups
// carry the RBAC group; no other kind. p is the subject's path.
func ValidateSubject(s *Subject, namespaced bool, p string) meta.FieldErrors {
	var errs meta.FieldErrors
	if s.Name == "" {
		errs = append(errs, meta.Required(p+".name", ""))
	}
	switch s.Kind {
	case KindServiceAccount:
		if s.Name != "" {
			for _, msg := range meta.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, meta.Invalid(p+".name", s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, meta.NotSupported(p+".apiGroup", s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, meta.Required(p+".namespace", ""))
		}
	case KindUser, KindGroup:
		if s.APIGroup != GroupRBAC {
			errs = append(errs, meta.NotSupported(p+".apiGroup", s.APIGroup, []string{GroupRBAC}))
		}
	default:
		errs = append(errs, meta.NotSupported(p+".kind", s.Kind, []string{KindServiceAccount, KindUser, KindGroup}))
	}
	return errs
}

// ValidateRoleBinding mirrors upstream's ValidateRoleBinding.
func ValidateRoleBinding(b *RoleBinding) meta.FieldErrors {
	return validateBinding(&b.ObjectMeta, &b.RoleRef, b.Subjects, true)
}

// ValidateRoleBindingUpdate mirrors ValidateRoleBindingUpdate: roleRef is
// immutable ("cannot change roleRef").
func ValidateRoleBindingUpdate(b, old *RoleBinding) meta.FieldErrors {
	return append(ValidateRoleBinding(b), validateBindingUpdate(&b.ObjectMeta, &old.ObjectMeta, b.RoleRef, old.RoleRef)...)
}

// ValidateClusterRoleBinding mirrors upstream's ValidateClusterRoleBinding.
func ValidateClusterRoleBinding(b *ClusterRoleBinding) meta.FieldErrors {
	return validateBinding(&b.ObjectMeta, &b.RoleRef, b.Subjects, false)
}

// ValidateClusterRoleBindingUpdate mirrors
// ValidateClusterRoleBindingUpdate: roleRef is immutable.
func ValidateClusterRoleBindingUpdate(b, old *ClusterRoleBinding) meta.FieldErrors {
	return append(ValidateClusterRoleBinding(b), validateBindingUpdate(&b.ObjectMeta, &old.ObjectMeta, b.RoleRef, old.RoleRef)...)
}

// validateBinding checks a RoleBinding (namespaced: its roleRef may name
// a Role or a ClusterRole) or a ClusterRoleBinding (a ClusterRole only).
func validateBinding(m *meta.ObjectMeta, ref *RoleRef, subjects []Subject, namespaced bool) meta.FieldErrors {
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	errs := meta.ValidateObjectMeta(m, namespaced, ValidateName)
	errs = append(errs, validateRoleRef(ref, kinds)...)
	for i := range subjects {
		errs = append(errs, ValidateSubject(&subjects[i], namespaced, meta.Index("subjects", i))...)
	}
	return errs
}

// validateBindingUpdate adds the update checks of a binding: metadata, and
// an immutable roleRef.
func validateBindingUpdate(m, oldm *meta.ObjectMeta, ref, oldRef RoleRef) meta.FieldErrors {
	errs := meta.ValidateObjectMetaUpdate(m, oldm)
	if ref != oldRef {
		errs = append(errs, meta.Invalid("roleRef", meta.GoSyntax(fmt.Sprintf("%#v", ref)), "cannot change roleRef"))
	}
	return errs
}
