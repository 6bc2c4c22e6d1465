package celrules

import (
	"regexp"
	"sort"

	"github.com/google/cel-go/common/types"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
)

// Size limits of apiserver/pkg/cel/limits.go and apis/cel/config.go, used
// for the estimated sizes of unbounded strings, lists and maps.
const (
	maxRequestSizeBytes = 3 * 1024 * 1024
	maxDurationSizeJSON = 32
	maxDatetimeSizeJSON = 32
	minDurationSizeJSON = 3
	jsonDateSize        = 12
	minDatetimeSizeJSON = 21
	minStringSize       = 2
	minBoolSize         = 4
	minNumberSize       = 1
)

type kind int

const (
	kindScalar kind = iota
	kindObject
	kindMap
	kindList
	kindDyn // x-kubernetes-int-or-string
)

// declType is the CEL view of one schema node, as SchemaDeclType in
// apiserver/pkg/cel/common/schemas.go builds it.
type declType struct {
	kind    kind
	cel     *types.Type
	schema  structural.Node
	format  string // string formats converted to CEL types: byte, date, date-time, duration
	fields  map[string]*declField
	elem    *declType // list items or map values
	maxElem int64     // estimated maximum size (chars, items or properties)
	minSize int64     // minimum serialized size in bytes
	// listType and mapKeys give list equality its set/map semantics.
	listType string
	mapKeys  []string
}

type declField struct {
	name string // the JSON property name
	typ  *declType
}

// declTypeOf mirrors SchemaDeclType: nil when the node is not exposed to CEL.
func declTypeOf(s structural.Node, isResourceRoot bool) *declType {
	if !s.Exists() {
		return nil
	}
	if s.XIntOrString() {
		return &declType{kind: kindDyn, cel: types.DynType, schema: s, minSize: 1, maxElem: maxRequestSizeBytes - 2}
	}
	switch s.Type() {
	case "array":
		it := declTypeOf(s.Items(), s.Items().Exists() && s.Items().XEmbeddedResource())
		if it == nil {
			return nil
		}
		var max int64
		if m := s.MaxItems(); m != nil {
			max = zeroIfNegative(*m)
		} else {
			max = (maxRequestSizeBytes - 2) / (it.minSize + 1)
		}
		return &declType{kind: kindList, cel: types.NewListType(it.cel), schema: s, elem: it, maxElem: max, minSize: 2,
			listType: s.XListType(), mapKeys: s.XListMapKeys()}
	case "object":
		if ap := s.AdditionalProperties(); ap.Exists() {
			vt := declTypeOf(ap, ap.XEmbeddedResource())
			if vt == nil {
				return nil
			}
			var max int64
			if m := s.MaxProperties(); m != nil {
				max = zeroIfNegative(*m)
			} else {
				max = (maxRequestSizeBytes - 2) / (vt.minSize + 6)
			}
			return &declType{kind: kindMap, cel: types.NewMapType(types.StringType, vt.cel), schema: s, elem: vt, maxElem: max, minSize: 2}
		}
		d := &declType{kind: kindObject, schema: s, fields: map[string]*declField{}}
		required := map[string]bool{}
		for _, r := range s.Required() {
			required[r] = true
		}
		names := s.PropertyNames()
		var meta structural.Node
		if isResourceRoot {
			names = withTypeAndObjectMeta(names)
		}
		d.minSize = 2
		for _, name := range names {
			prop := s.Property(name)
			var ft *declType
			switch {
			case isResourceRoot && (name == "apiVersion" || name == "kind") && !(prop.Exists() && prop.Type() == "string"):
				ft = stringType(structural.Node{})
			case isResourceRoot && name == "metadata":
				ft = objectMetaType(prop)
			default:
				ft = declTypeOf(prop, prop.Exists() && prop.XEmbeddedResource())
			}
			_ = meta
			if ft == nil {
				continue
			}
			if esc, ok := escape(name); ok {
				d.fields[esc] = &declField{name: name, typ: ft}
			}
			if required[name] && !prop.HasDefault() {
				d.minSize += int64(len(name)) + ft.minSize + 4
			}
		}
		return d
	case "string":
		return stringType(s)
	case "boolean":
		return &declType{cel: types.BoolType, schema: s, minSize: minBoolSize}
	case "number":
		return &declType{cel: types.DoubleType, schema: s, minSize: minNumberSize}
	case "integer":
		return &declType{cel: types.IntType, schema: s, minSize: minNumberSize}
	}
	return nil
}

// withTypeAndObjectMeta adds kind, apiVersion and metadata to the property
// names of a resource root (WithTypeAndObjectMeta upstream).
func withTypeAndObjectMeta(names []string) []string {
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, n := range []string{"apiVersion", "kind", "metadata"} {
		if !have[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// objectMetaType is metadata of a resource root as CEL sees it: the
// schema's metadata when it declares name and generateName as strings,
// otherwise an object with only name and generateName.
func objectMetaType(prop structural.Node) *declType {
	if prop.Exists() && prop.Type() == "object" && prop.Property("name").Exists() && prop.Property("name").Type() == "string" &&
		prop.Property("generateName").Exists() && prop.Property("generateName").Type() == "string" {
		return declTypeOf(prop, false)
	}
	return &declType{kind: kindObject, minSize: 2, fields: map[string]*declField{
		"name":         {name: "name", typ: stringType(structural.Node{})},
		"generateName": {name: "generateName", typ: stringType(structural.Node{})},
	}}
}

func stringType(s structural.Node) *declType {
	format := ""
	if s.Exists() {
		format = s.Format()
	}
	switch format {
	case "byte":
		d := &declType{cel: types.BytesType, schema: s, format: format, minSize: minStringSize}
		if m := s.MaxLength(); m != nil {
			d.maxElem = zeroIfNegative(*m)
		} else {
			d.maxElem = maxRequestSizeBytes - 2
		}
		return d
	case "duration":
		return &declType{cel: types.DurationType, schema: s, format: format, minSize: minDurationSizeJSON, maxElem: maxDurationSizeJSON}
	case "date":
		return &declType{cel: types.TimestampType, schema: s, format: format, minSize: jsonDateSize, maxElem: jsonDateSize}
	case "date-time":
		return &declType{cel: types.TimestampType, schema: s, format: format, minSize: minDatetimeSizeJSON, maxElem: maxDatetimeSizeJSON}
	}
	d := &declType{cel: types.StringType, schema: s, minSize: minStringSize}
	switch {
	case s.Exists() && s.MaxLength() != nil:
		d.maxElem = zeroIfNegative(*s.MaxLength()) * 4
	case s.Exists() && len(s.Enum()) > 0:
		for _, v := range s.Enum() {
			if str, ok := v.(string); ok && int64(len(str)) > d.maxElem {
				d.maxElem = int64(len(str))
			}
		}
	default:
		d.maxElem = maxRequestSizeBytes - 2
	}
	return d
}

func zeroIfNegative(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// assignNames gives every object type its CEL type name (root name, then
// "<parent>.<field>" as MaybeAssignTypeName does upstream; items and
// values add "@idx" and "@elem") and registers it in reg.
func (d *declType) assignNames(name string, reg map[string]*declType) {
	switch d.kind {
	case kindObject:
		d.cel = types.NewObjectType(name)
		reg[name] = d
		for _, k := range sortedFieldNames(d.fields) {
			d.fields[k].typ.assignNames(name+"."+k, reg)
		}
	case kindList:
		d.elem.assignNames(name+".@idx", reg)
		d.cel = types.NewListType(d.elem.cel)
	case kindMap:
		d.elem.assignNames(name+".@elem", reg)
		d.cel = types.NewMapType(types.StringType, d.elem.cel)
	}
}

func sortedFieldNames(m map[string]*declField) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var celReservedSymbols = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

var expandMatcher = regexp.MustCompile(`(__|[-./]|[^a-zA-Z0-9-./_])`)

// escape maps a property name to its CEL identifier as Escape in
// apiserver/pkg/cel/escaping.go does: reserved words become __word__,
// "__" __underscores__, "." __dot__, "-" __dash__, "/" __slash__; names
// starting with a digit or with other characters are not accessible.
func escape(ident string) (string, bool) {
	if len(ident) == 0 || ('0' <= ident[0] && ident[0] <= '9') {
		return "", false
	}
	if celReservedSymbols[ident] {
		return "__" + ident + "__", true
	}
	ok := true
	ident = expandMatcher.ReplaceAllStringFunc(ident, func(s string) string {
		switch s {
		case "__":
			return "__underscores__"
		case ".":
			return "__dot__"
		case "-":
			return "__dash__"
		case "/":
			return "__slash__"
		default:
			ok = false
			return ""
		}
	})
	return ident, ok
}
