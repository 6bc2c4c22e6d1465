package celrules

import (
	"fmt"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/structural"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Size limits of the format library (apiserver/pkg/cel/limits.go).
const (
	maxFormatSize          = 64
	maxNameFormatRegexSize = 128
)

// formatVal is a named format of format.named(name) (library/format.go).
type formatVal struct {
	name         string
	validate     func(string) []string
	maxRegexSize int
}

func (v *formatVal) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", t)
}
func (v *formatVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case formatType:
		return v
	case types.TypeType:
		return formatType
	}
	return convertErr(formatTypeName, t)
}
func (v *formatVal) Equal(o ref.Val) ref.Val {
	of, ok := o.(*formatVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(o)
	}
	return types.Bool(v.name == of.name)
}
func (v *formatVal) Type() ref.Type { return formatType }
func (v *formatVal) Value() any     { return v }

func strfmtCheck(format, msg string) func(string) []string {
	return func(s string) []string {
		if ok, _ := structural.FormatValid(format, s); !ok {
			return []string{msg}
		}
		return nil
	}
}

// namedFormats are the formats of format.named (ConstantFormats upstream).
var namedFormats = map[string]*formatVal{
	"dns1123Label":           {"DNS1123Label", func(s string) []string { return meta.NameIsDNSLabel(s, false) }, 30},
	"dns1123Subdomain":       {"DNS1123Subdomain", func(s string) []string { return meta.NameIsDNSSubdomain(s, false) }, 60},
	"dns1035Label":           {"DNS1035Label", func(s string) []string { return meta.NameIsDNS1035Label(s, false) }, 30},
	"qualifiedName":          {"QualifiedName", meta.IsQualifiedName, 60},
	"dns1123LabelPrefix":     {"DNS1123LabelPrefix", func(s string) []string { return meta.NameIsDNSLabel(s, true) }, 30},
	"dns1123SubdomainPrefix": {"DNS1123SubdomainPrefix", func(s string) []string { return meta.NameIsDNSSubdomain(s, true) }, 60},
	"dns1035LabelPrefix":     {"DNS1035LabelPrefix", func(s string) []string { return meta.NameIsDNS1035Label(s, true) }, 30},
	"labelValue":             {"LabelValue", meta.IsValidLabelValue, 40},
	"uri": {"URI", func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}, 1103},
	"uuid":     {"uuid", strfmtCheck("uuid", "does not match the UUID format"), len(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)},
	"byte":     {"byte", strfmtCheck("byte", "invalid base64"), 84},
	"date":     {"date", strfmtCheck("date", "invalid date"), len(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)},
	"datetime": {"datetime", strfmtCheck("datetime", "invalid datetime"), len(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)},
}

func formatLibrary() []cel.EnvOption {
	opts := []cel.EnvOption{
		cel.Function("validate", cel.MemberOverload("format-validate", []*cel.Type{formatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)),
			cel.BinaryBinding(func(f, s ref.Val) ref.Val {
				fv, ok := f.(*formatVal)
				if !ok {
					return types.MaybeNoSuchOverloadErr(f)
				}
				str, ok := s.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(s)
				}
				if res := fv.validate(str); len(res) > 0 {
					return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, res))
				}
				return types.OptionalNone
			}))),
		cel.Function("format.named", cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(formatType),
			cel.UnaryBinding(func(n ref.Val) ref.Val {
				name, ok := n.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(n)
				}
				f, ok := namedFormats[name]
				if !ok {
					return types.OptionalNone
				}
				return types.OptionalOf(f)
			}))),
	}
	for name, f := range namedFormats {
		f := f
		fn := "format." + name
		opts = append(opts, cel.Function(fn, cel.Overload(fn, []*cel.Type{}, formatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return f }))))
	}
	return opts
}
