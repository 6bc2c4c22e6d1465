package structural

import (
	"reflect"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// oldValue is the value an update replaces at the node being validated
// (upstream's CorrelatedObject.OldValue); a nil *oldValue means none
// (a create, or a node upstream cannot correlate).
type oldValue struct{ v any }

// key correlates an object's property by name.
func (o *oldValue) key(k string) *oldValue {
	if o == nil {
		return nil
	}
	m, ok := o.v.(map[string]any)
	if !ok {
		return nil
	}
	v, ok := m[k]
	if !ok {
		return nil
	}
	return &oldValue{v: v}
}

// item correlates a list item as upstream does: only in an
// x-kubernetes-list-type map, with the old item of the same key values;
// items of sets and atomic lists are not correlated (only the list as a
// whole ratchets).
func (o *oldValue) item(s *props, v any) *oldValue {
	if o == nil || s.XListType == nil || *s.XListType != "map" || len(s.XListMapKeys) == 0 {
		return nil
	}
	l, ok := o.v.([]any)
	nm, isMap := v.(map[string]any)
	if !ok || !isMap {
		return nil
	}
	for _, e := range l {
		om, ok := e.(map[string]any)
		if !ok {
			continue
		}
		same := true
		for _, k := range s.XListMapKeys {
			if !unchanged(nm[k], om[k]) {
				same = false
				break
			}
		}
		if same {
			return &oldValue{v: e}
		}
	}
	return nil
}

// unchanged compares two decoded values as upstream's ratcheting does
// (reflect.DeepEqual of unstructured values), numbers by value.
func unchanged(a, b any) bool {
	return reflect.DeepEqual(normalizeDeep(a), normalizeDeep(b))
}

// ValidateUpdate checks an updated custom object as upstream's
// custom-resource strategy ValidateUpdate does with CRD validation
// ratcheting (on by default in 1.33), without ObjectMeta and CEL: the
// OpenAPI value validation drops the errors of every value deep-equal to
// the value it replaces (an object's properties correlated by name, a
// list-type map's items by key; other list items only as a whole list);
// then the embedded-resource checks; then list-type set/map duplicates,
// only when old has none. kube-apiserver 1.33.13 accepted a merge patch
// of spec.b to an object whose unchanged spec.a broke a maxLength added
// to the schema after it was stored.
func (s *Schema) ValidateUpdate(obj, old map[string]any) meta.FieldErrors {
	if s == nil {
		return nil
	}
	errs := toFieldErrors("", validateRatcheting(s.root, "", obj, &oldValue{v: old}))
	errs = append(errs, embeddedErrors("", obj, s.root)...)
	if len(listErrors("", s.root, old)) == 0 {
		errs = append(errs, listErrors("", s.root, obj)...)
	}
	return errs
}
