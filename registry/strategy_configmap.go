package registry

import (
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ConfigMapStrategy is the Strategy of core/v1 configmaps
// (kubernetes/pkg/registry/core/configmap/strategy.go). ConfigMaps have no
// spec or status: nothing is cleared or defaulted. The zero value is ready
// to use.
type ConfigMapStrategy struct {
	// Now is the clock for AGE cells; nil means time.Now.
	Now func() time.Time
}

var _ Strategy = ConfigMapStrategy{}

// Info describes configmaps as /api/v1 discovery does (short name cm).
func (ConfigMapStrategy) Info() ResourceInfo {
	return ResourceInfo{
		Group: GroupCore, Version: VersionV1,
		Kind: "ConfigMap", ListKind: "ConfigMapList",
		Resource: "configmaps", Singular: "configmap",
		ShortNames: []string{"cm"},
		Namespaced: true,
		Verbs:      []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	}
}

// New returns an empty *ConfigMap.
func (ConfigMapStrategy) New() meta.Object { return &core.ConfigMap{} }

// PrepareForCreate does nothing: a ConfigMap is stored as sent.
func (ConfigMapStrategy) PrepareForCreate(meta.Object) {}

// PrepareForUpdate does nothing: the store keeps generation (ConfigMaps
// have no spec).
func (ConfigMapStrategy) PrepareForUpdate(obj, old meta.Object) {}

// PrepareForStatusUpdate is never called: ConfigMaps have no /status.
func (ConfigMapStrategy) PrepareForStatusUpdate(obj, old meta.Object) {}

// Validate runs ValidateConfigMap.
func (ConfigMapStrategy) Validate(obj meta.Object) meta.FieldErrors {
	return core.ValidateConfigMap(obj.(*core.ConfigMap))
}

// ValidateUpdate runs ValidateConfigMapUpdate.
func (ConfigMapStrategy) ValidateUpdate(obj, old meta.Object) meta.FieldErrors {
	return core.ValidateConfigMapUpdate(obj.(*core.ConfigMap), old.(*core.ConfigMap))
}

// Canonicalize does nothing for ConfigMaps.
func (ConfigMapStrategy) Canonicalize(meta.Object) {}

// TableColumns are NAME, DATA (an integer), AGE.
func (ConfigMapStrategy) TableColumns() []meta.TableColumnDefinition {
	return []meta.TableColumnDefinition{
		nameColumn(),
		{Name: "Data", Type: "string", Description: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."},
		ageColumn(),
	}
}

// TableRow returns name, the number of data plus binaryData keys, and age.
func (s ConfigMapStrategy) TableRow(obj meta.Object) []any {
	c := obj.(*core.ConfigMap)
	return []any{c.Name, int64(len(c.Data) + len(c.BinaryData)), meta.TableAge(c.CreationTimestamp, nowOr(s.Now))}
}

// AllowCreateOnUpdate is false for ConfigMaps.
func (ConfigMapStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true for ConfigMaps.
func (ConfigMapStrategy) AllowUnconditionalUpdate() bool { return true }
