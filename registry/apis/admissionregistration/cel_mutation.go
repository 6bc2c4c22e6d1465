package admissionregistration

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Type names of a MutatingAdmissionPolicy's CEL expressions: Object (and
// Object.<field>... for nested parts) builds an apply configuration,
// JSONPatch one RFC 6902 operation (upstream's
// k8s.io/apiserver/pkg/cel/mutation: ObjectType and JSONPatchType).
const (
	MutationObjectType    = "Object"
	MutationJSONPatchType = "JSONPatch"
)

// mutationProvider is the CEL type provider of mutation expressions: any
// name that is "Object" or starts with "Object." is a struct whose fields
// are all dynamically typed; JSONPatch has op, path and from (strings)
// and value (dyn). Other names go to the standard registry.
type mutationProvider struct {
	*types.Registry
}

func isObjectTypeName(name string) bool {
	return name == MutationObjectType || strings.HasPrefix(name, MutationObjectType+".")
}

func (p mutationProvider) FindStructType(name string) (*types.Type, bool) {
	if isObjectTypeName(name) || name == MutationJSONPatchType {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Registry.FindStructType(name)
}

func (p mutationProvider) FindStructFieldNames(name string) ([]string, bool) {
	switch {
	case isObjectTypeName(name):
		return nil, true
	case name == MutationJSONPatchType:
		return []string{"op", "path", "from", "value"}, true
	}
	return p.Registry.FindStructFieldNames(name)
}

// unknownFieldType is the type of a field JSONPatch does not have: one no
// value is assignable to, printed as ” (upstream's error reads "expected
// type of field 'bogus' is ” but provided type is 'int'").
var unknownFieldType = types.NewOpaqueType("")

func (p mutationProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	switch {
	case isObjectTypeName(name):
		return &types.FieldType{Type: types.DynType}, true
	case name == MutationJSONPatchType:
		switch field {
		case "op", "path", "from":
			return &types.FieldType{Type: types.StringType}, true
		case "value":
			return &types.FieldType{Type: types.DynType}, true
		}
		return &types.FieldType{Type: unknownFieldType}, true
	}
	return p.Registry.FindStructFieldType(name, field)
}

func (p mutationProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if !isObjectTypeName(name) && name != MutationJSONPatchType {
		return p.Registry.NewValue(name, fields)
	}
	m := make(map[string]any, len(fields))
	for k, v := range fields {
		n, err := MutationValueToNative(v)
		if err != nil {
			return types.NewErr("%v", err)
		}
		m[k] = n
	}
	return &mutationValue{typ: types.NewObjectType(name), fields: m}
}

// mutationValue is an Object or JSONPatch value: its fields as Go
// values (JSON-shaped: map[string]any, []any, string, int64, float64,
// bool, nil).
type mutationValue struct {
	typ    *types.Type
	fields map[string]any
}

func (v *mutationValue) ConvertToNative(reflect.Type) (any, error) { return v.fields, nil }

func (v *mutationValue) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return v.typ
	}
	return types.NewErr("type conversion error from '%s' to '%s'", v.typ, t)
}

func (v *mutationValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(*mutationValue)
	return types.Bool(ok && o.typ.TypeName() == v.typ.TypeName() && reflect.DeepEqual(o.fields, v.fields))
}

func (v *mutationValue) Type() ref.Type { return v.typ }
func (v *mutationValue) Value() any     { return v.fields }

// jsonPatchEscapeKey is upstream's jsonpatch.escapeKey(string): a key
// escaped for a JSON pointer path ("~" as "~0", "/" as "~1"), e.g.
// '/metadata/labels/' + jsonpatch.escapeKey('example.com/team').
var jsonPatchEscapeKey = cel.Function("jsonpatch.escapeKey",
	cel.Overload("string_jsonpatch_escapeKey_string", []*cel.Type{cel.StringType}, cel.StringType,
		cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.String(strings.NewReplacer("~", "~0", "/", "~1").Replace(string(s)))
		})))

// MutationValueToNative turns the result of a mutation expression (or a
// part of one) into JSON-shaped Go values: an Object into its fields as a
// map, a list into []any, a map into map[string]any (keys must be
// strings), scalars as they are, null into nil. An error names what
// cannot be represented in JSON.
func MutationValueToNative(v ref.Val) (any, error) {
	switch x := v.(type) {
	case *mutationValue:
		return x.fields, nil
	case types.Null:
		return nil, nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return int64(x), nil
	case types.Double:
		return float64(x), nil
	case types.String:
		return string(x), nil
	case types.Bool:
		return bool(x), nil
	case *types.Err:
		return nil, x
	case traits.Mapper:
		out := map[string]any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("map keys must be strings, got %s", k.Type().TypeName())
			}
			n, err := MutationValueToNative(x.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = n
		}
		return out, nil
	case traits.Lister:
		out := []any{}
		it := x.Iterator()
		for it.HasNext() == types.True {
			n, err := MutationValueToNative(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	return v.Value(), nil
}
