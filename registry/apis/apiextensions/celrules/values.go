package celrules

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// provider resolves the object types of one schema for the checker and
// delegates everything else to cel-go's registry (DeclTypeProvider in
// apiserver/pkg/cel/types.go).
type provider struct {
	*types.Registry
	objs map[string]*declType
}

func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if d, ok := p.objs[name]; ok {
		return types.NewTypeTypeWithParam(d.cel), true
	}
	return p.Registry.FindStructType(name)
}

func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	if d, ok := p.objs[name]; ok {
		return sortedFieldNames(d.fields), true
	}
	return p.Registry.FindStructFieldNames(name)
}

func (p *provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if d, ok := p.objs[name]; ok {
		f, ok := d.fields[field]
		if !ok && celReservedSymbols[field] {
			// since compatibility version 1.31 a keyword names its field
			// unescaped too (SetRecognizeKeywordAsFieldName upstream)
			f, ok = d.fields["__"+field+"__"]
		}
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: f.typ.cel}, true
	}
	return p.Registry.FindStructFieldType(name, field)
}

// toVal converts a value decoded by encoding/json (UseNumber) into the CEL
// value its schema gives it, as UnstructuredToVal in
// apiserver/pkg/cel/common/values.go: declared properties under their
// escaped names (unknown fields are not exposed), integers as int, numbers
// as double, formatted strings as bytes/timestamp/duration, lists with
// their list-type equality.
func toVal(a types.Adapter, v any, d *declType) ref.Val {
	if v == nil {
		return types.NullValue
	}
	switch d.kind {
	case kindObject:
		m, ok := v.(map[string]any)
		if !ok {
			return scalar(a, v, d)
		}
		out := make(map[ref.Val]ref.Val, len(d.fields))
		for esc, f := range d.fields {
			fv, ok := m[f.name]
			if !ok || fv == nil {
				// a null property reads as absent (unstructuredMap.Find)
				continue
			}
			v := toVal(a, fv, f.typ)
			out[types.String(esc)] = v
			if esc != f.name && celReservedSymbols[f.name] {
				out[types.String(f.name)] = v
			}
		}
		return types.NewRefValMap(a, out)
	case kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return scalar(a, v, d)
		}
		out := make(map[ref.Val]ref.Val, len(m))
		for k, fv := range m {
			out[types.String(k)] = toVal(a, fv, d.elem)
		}
		return types.NewRefValMap(a, out)
	case kindList:
		l, ok := v.([]any)
		if !ok {
			return scalar(a, v, d)
		}
		out := make([]ref.Val, len(l))
		for i, e := range l {
			out[i] = toVal(a, e, d.elem)
		}
		lst := types.NewRefValList(a, out)
		switch d.listType {
		case "set":
			return setList{Lister: lst.(traits.Lister)}
		case "map":
			return mapList{Lister: lst.(traits.Lister), keys: escapedKeys(d)}
		}
		return lst
	}
	return scalar(a, v, d)
}

func escapedKeys(d *declType) []ref.Val {
	var out []ref.Val
	for _, k := range d.mapKeys {
		if esc, ok := escape(k); ok {
			out = append(out, types.String(esc))
		}
	}
	return out
}

func scalar(a types.Adapter, v any, d *declType) ref.Val {
	switch x := v.(type) {
	case json.Number:
		if d.cel == types.DoubleType {
			f, err := x.Float64()
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Double(f)
		}
		if i, err := x.Int64(); err == nil {
			return types.Int(i)
		}
		f, err := x.Float64()
		if err != nil {
			return types.NewErr("%v", err)
		}
		return types.Double(f)
	case string:
		switch d.format {
		case "byte":
			b, err := base64.StdEncoding.DecodeString(x)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Bytes(b)
		case "duration":
			dur, err := parseDuration(x)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Duration{Duration: dur}
		case "date":
			t, err := time.Parse("2006-01-02", x)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Timestamp{Time: t}
		case "date-time":
			t, err := parseDateTime(x)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Timestamp{Time: t}
		}
		return types.String(x)
	case map[string]any:
		// a value of another JSON type than declared (schema validation
		// reports it first): expose it without a schema.
		out := make(map[ref.Val]ref.Val, len(x))
		for k, e := range x {
			out[types.String(k)] = scalar(a, e, &declType{kind: kindDyn})
		}
		return types.NewRefValMap(a, out)
	case []any:
		out := make([]ref.Val, len(x))
		for i, e := range x {
			out[i] = scalar(a, e, &declType{kind: kindDyn})
		}
		return types.NewRefValList(a, out)
	}
	return a.NativeToValue(v)
}

// parseDateTime accepts the date-time forms of kube-openapi's strfmt.
func parseDateTime(s string) (time.Time, error) {
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// parseDuration accepts Go durations plus the "d" and "w" units of
// kube-openapi's strfmt.ParseDuration.
func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	r := strings.NewReplacer("d", "h", "w", "h")
	if strings.HasSuffix(s, "d") || strings.HasSuffix(s, "w") {
		n := strings.TrimRight(s, "dw")
		mult := time.Duration(24)
		if strings.HasSuffix(s, "w") {
			mult = 24 * 7
		}
		d, err := time.ParseDuration(n + "h")
		if err == nil {
			return d * mult, nil
		}
	}
	return time.ParseDuration(r.Replace(s))
}

// setList is a list with x-kubernetes-list-type: set, equal to another
// list with the same elements in any order (unstructuredSetList upstream).
type setList struct{ traits.Lister }

func (l setList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != o.Size() {
		return types.False
	}
	n := int(l.Size().(types.Int))
	for i := 0; i < n; i++ {
		if o.Contains(l.Get(types.Int(i))) != types.True {
			return types.False
		}
	}
	return types.True
}

// mapList is a list with x-kubernetes-list-type: map, equal to another
// list with the same entries by key in any order (unstructuredMapList).
type mapList struct {
	traits.Lister
	keys []ref.Val
}

func (l mapList) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != o.Size() {
		return types.False
	}
	n := int(l.Size().(types.Int))
	for i := 0; i < n; i++ {
		e := l.Get(types.Int(i))
		found := false
		for j := 0; j < n && !found; j++ {
			f := o.Get(types.Int(j))
			if l.sameKey(e, f) {
				if e.Equal(f) != types.True {
					return types.False
				}
				found = true
			}
		}
		if !found {
			return types.False
		}
	}
	return types.True
}

func (l mapList) sameKey(a, b ref.Val) bool {
	am, ok1 := a.(traits.Mapper)
	bm, ok2 := b.(traits.Mapper)
	if !ok1 || !ok2 {
		return false
	}
	for _, k := range l.keys {
		av, aok := am.Find(k)
		bv, bok := bm.Find(k)
		if aok != bok || (aok && av.Equal(bv) != types.True) {
			return false
		}
	}
	return true
}

func listElems(l traits.Lister) []ref.Val {
	n := int(l.Size().(types.Int))
	out := make([]ref.Val, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, l.Get(types.Int(i)))
	}
	return out
}

// Add of a set list is the union: elements of other not yet present are
// appended (unstructuredSetList.Add upstream).
func (l setList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elems := listElems(l.Lister)
	for _, e := range listElems(o) {
		dup := false
		for _, x := range elems {
			if x.Equal(e) == types.True {
				dup = true
				break
			}
		}
		if !dup {
			elems = append(elems, e)
		}
	}
	return setList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elems).(traits.Lister)}
}

// Add of a map list merges by key: an entry of other replaces the entry
// with the same keys in place, others are appended
// (unstructuredMapList.Add upstream).
func (l mapList) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	elems := listElems(l.Lister)
	n := len(elems)
	for _, e := range listElems(o) {
		replaced := false
		for i := 0; i < n; i++ {
			if l.sameKey(elems[i], e) {
				elems[i] = e
				replaced = true
				break
			}
		}
		if !replaced {
			elems = append(elems, e)
		}
	}
	return mapList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elems).(traits.Lister), keys: l.keys}
}
