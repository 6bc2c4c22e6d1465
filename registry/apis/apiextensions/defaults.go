package apiextensions

import "strings"

// SetDefaults applies apiextensions/v1's defaults (upstream
// pkg/apis/apiextensions/v1/defaults.go): conversion strategy None when
// unset, port 443 on a webhook service reference, singular = lower-case
// kind and listKind = kind+"List" when unset (with a kind), and the
// storage version as status.storedVersions when that is empty (so a
// /status write emptying it keeps the storage version, as kube-apiserver
// 1.33.13 answered).
func SetDefaults(crd *CustomResourceDefinition) {
	if len(crd.Status.StoredVersions) == 0 {
		if v := StorageVersion(crd); v != "" {
			crd.Status.StoredVersions = []string{v}
		}
	}
	spec := &crd.Spec
	if spec.Conversion == nil {
		spec.Conversion = &CustomResourceConversion{Strategy: NoneConverter}
	}
	if w := spec.Conversion.Webhook; w != nil && w.ClientConfig != nil && w.ClientConfig.Service != nil && w.ClientConfig.Service.Port == nil {
		port := int32(443)
		w.ClientConfig.Service.Port = &port
	}
	if spec.Names.Singular == "" {
		spec.Names.Singular = strings.ToLower(spec.Names.Kind)
	}
	if spec.Names.ListKind == "" && spec.Names.Kind != "" {
		spec.Names.ListKind = spec.Names.Kind + "List"
	}
}

// StorageVersion returns the name of the first version marked as
// storage, or "" when none is.
func StorageVersion(crd *CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// FindCondition returns the condition of type t, or nil.
func FindCondition(conds []CustomResourceDefinitionCondition, t CustomResourceDefinitionConditionType) *CustomResourceDefinitionCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// IsEstablished reports whether the Established condition is True.
func IsEstablished(crd *CustomResourceDefinition) bool {
	c := FindCondition(crd.Status.Conditions, Established)
	return c != nil && c.Status == ConditionTrue
}
