package flowcontrol

import (
	"fmt"
	"reflect"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// ValidateMandatoryFlowSchema refuses a FlowSchema named exempt or
// catch-all whose (defaulted) spec is not its bootstrap spec, as
// upstream's ValidateFlowSchema does on create and update: one Invalid
// "spec" error whose value is the spec in Go syntax, `spec of '<name>'
// must equal the fixed value`.
func ValidateMandatoryFlowSchema(name string, s *FlowSchemaSpec) meta.FieldErrors {
	if !IsMandatory(name) {
		return nil
	}
	want, _ := BootstrapFlowSchema(name)
	if semanticEqual(reflect.ValueOf(want), reflect.ValueOf(*s)) {
		return nil
	}
	return meta.FieldErrors{meta.Invalid("spec", meta.GoSyntax(fmt.Sprintf("%#v", *s)), fmt.Sprintf("spec of '%s' must equal the fixed value", name))}
}

// ValidateMandatoryPriorityLevel refuses a PriorityLevelConfiguration
// named exempt or catch-all whose (defaulted) spec is not its bootstrap
// spec; the exempt level's spec.exempt may change
// (upstream ValidateIfMandatoryPriorityLevelConfigurationObject).
func ValidateMandatoryPriorityLevel(name string, s *PriorityLevelConfigurationSpec) meta.FieldErrors {
	if !IsMandatory(name) {
		return nil
	}
	want, _ := BootstrapPriorityLevel(name)
	have := *s
	detail := fmt.Sprintf("spec of '%s' must equal the fixed value", name)
	if name == NameExempt {
		have.Exempt = want.Exempt
		detail = fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", name)
	}
	if semanticEqual(reflect.ValueOf(want), reflect.ValueOf(have)) {
		return nil
	}
	return meta.FieldErrors{meta.Invalid("spec", meta.GoSyntax(fmt.Sprintf("%#v", *s)), detail)}
}

// SemanticEqual reports whether two specs of the same type are equal as
// upstream's apiequality.Semantic.DeepEqual compares them (see
// semanticEqual).
func SemanticEqual[T FlowSchemaSpec | PriorityLevelConfigurationSpec](a, b T) bool {
	return semanticEqual(reflect.ValueOf(a), reflect.ValueOf(b))
}

// semanticEqual is reflect.DeepEqual for the spec types, except that a
// nil and an empty slice are equal, as upstream's
// apiequality.Semantic.DeepEqual treats them.
func semanticEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return semanticEqual(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !semanticEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !semanticEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	default:
		return a.Interface() == b.Interface()
	}
}
