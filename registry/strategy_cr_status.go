package registry

import (
	"github.com/aggsim/aggsim/registry/apis/meta"
)

var _ StatusValidator = (*CustomResourceStrategy)(nil)

// statusSchema is a CRSchema that validates /status writes as upstream's
// status strategy does (structural.Schema.ValidateStatusUpdate).
type statusSchema interface {
	ValidateStatusUpdate(obj, old map[string]any) meta.FieldErrors
}

// updateSchema is a CRSchema that validates updates with upstream's
// ratcheting (structural.Schema.ValidateUpdate).
type updateSchema interface {
	ValidateUpdate(obj, old map[string]any) meta.FieldErrors
}

// validateSchema validates a create (old nil) or an update, ratcheting
// the update's errors when the schema supports it.
func (s *CustomResourceStrategy) validateSchema(obj, old map[string]any) meta.FieldErrors {
	if us, ok := s.schema.(updateSchema); ok && old != nil {
		return us.ValidateUpdate(obj, old)
	}
	return s.schema.Validate(obj)
}

// ValidateStatusUpdate checks a write through /status as upstream's
// custom-resource statusStrategy.ValidateUpdate does: metadata update
// rules, the status against the status sub-schema (messages relative to
// status: kube-apiserver 1.33.13 answered `status.revision: Invalid value:
// "string": revision in body must be of type integer: "string"`), list
// duplicates when old had none, embedded resources, then the
// x-kubernetes-validations rules unless a schema error blocks them.
// Without a schema that validates status alone it checks the whole object
// as ValidateUpdate does.
func (s *CustomResourceStrategy) ValidateStatusUpdate(obj, old meta.Object) meta.FieldErrors {
	errs, _ := s.ValidateStatusUpdateWithWarnings(obj, old)
	return errs
}

// ValidateStatusUpdateWithWarnings is ValidateStatusUpdate that also
// returns the rules' ratcheting warnings (UpdateWarningValidator): as
// upstream's CEL validator they cover the whole object, so a /status
// write warns of unchanged spec values too (kube-apiserver 1.33.13: a
// status patch answered `Warning: 299 - "spec.c: Invalid value:
// \"object\": x is bad"`).
func (s *CustomResourceStrategy) ValidateStatusUpdateWithWarnings(obj, old meta.Object) (meta.FieldErrors, []string) {
	ss, ok := s.schema.(statusSchema)
	if !ok {
		return s.ValidateUpdateWithWarnings(obj, old)
	}
	u, o := obj.(*Unstructured), old.(*Unstructured)
	errs := meta.ValidateObjectMetaUpdate(&u.ObjectMeta, &o.ObjectMeta)
	m, err := u.Object()
	if err != nil {
		return append(errs, meta.Invalid("metadata", "", err.Error())), nil
	}
	om, err := oldObject(o)
	if err != nil {
		return append(errs, meta.Invalid("metadata", "", err.Error())), nil
	}
	return s.withRules(append(errs, ss.ValidateStatusUpdate(m, om)...), m, om)
}
