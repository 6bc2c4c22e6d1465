package structural

import "github.com/aggsim/aggsim/registry/apis/meta"

// ValidateStatusUpdate checks a write through the /status subresource as
// upstream's custom-resource status strategy does (status_strategy.go
// ValidateUpdate, without ObjectMeta and CEL): the status value alone
// against the status sub-schema, its fields under "status" but its
// messages relative to it (`status.conditions[0].reason: Invalid value:
// "": conditions[0].reason in body should be at least 1 chars long`);
// then the x-kubernetes-list-type set/map duplicates of the whole object,
// reported only when old has none (upstream ratchets them); then the
// embedded-resource checks of the whole object. Without a status nothing
// is value-checked; errors of status values equal to the old ones are
// dropped (ratcheting, as in ValidateUpdate).
func (s *Schema) ValidateStatusUpdate(obj, old map[string]any) meta.FieldErrors {
	if s == nil {
		return nil
	}
	var errs meta.FieldErrors
	if st, ok := obj["status"]; ok {
		if p, ok := s.root.Properties["status"]; ok {
			var o *oldValue
			if ost, ok := old["status"]; ok {
				o = &oldValue{v: ost} // ratcheting, as ValidateUpdate
			}
			errs = append(errs, toFieldErrors("status", validateRatcheting(&p, "", st, o))...)
		}
	}
	if le := listErrors("", s.root, obj); len(le) > 0 && len(listErrors("", s.root, old)) == 0 {
		errs = append(errs, le...)
	}
	return append(errs, embeddedErrors("", obj, s.root)...)
}
