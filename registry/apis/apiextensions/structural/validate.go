package structural

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// errCode classifies a value-validation failure as kube-openapi's error
// codes do; the code decides which field error upstream turns it into
// (kubeOpenAPIResultToFieldErrors in pkg/apiserver/validation/validation.go).
type errCode int

const (
	codeOther errCode = iota
	codeRequired
	codeEnum
	codeTooLong
	codeMaxItems
	codeTooManyProperties
	codeInvalidType
	codeComposite // not a *errors.Validation upstream: reported at the base path with value ""
)

// verr is one kube-openapi validation error.
type verr struct {
	code   errCode
	name   string // kube-openapi path, "" at the root, "spec.replicas", "spec.items[0]"
	value  any
	valid  int64
	values []any
	msg    string
}

// result mirrors kube-openapi's validate.Result: errors deduplicated by
// text, and a match count that picks the best anyOf/oneOf failure.
type result struct {
	errs  []verr
	match int
}

func (r *result) add(es ...verr) {
	for _, e := range es {
		dup := false
		for _, x := range r.errs {
			if x.msg == e.msg {
				dup = true
				break
			}
		}
		if !dup {
			r.errs = append(r.errs, e)
		}
	}
}

func (r *result) merge(others ...*result) {
	for _, o := range others {
		if o != nil {
			r.add(o.errs...)
			r.match += o.match
		}
	}
}

func (r *result) valid() bool { return r == nil || len(r.errs) == 0 }

func errResult(e verr) *result { return &result{errs: []verr{e}} }

// in is where kube-openapi says the value is: every CR field is "in body".
const in = "body"

// normalize turns decoded JSON numbers into int64 (when integral text) or
// float64, as upstream's unstructured decoding does before validation.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return f
		}
		return string(x)
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	}
	return v
}

// normalizeDeep is normalize over a whole value (for enum comparisons and
// printing compound values).
func normalizeDeep(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeDeep(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeDeep(e)
		}
		return out
	}
	return normalize(v)
}

func (s *props) types() []string {
	if s.XIntOrString {
		return []string{"integer", "string"}
	}
	if s.Type != "" {
		return []string{s.Type}
	}
	return nil
}

// format is the format the value validator sees: upstream strips formats
// it does not support for CRDs.
func (s *props) validatedFormat() string {
	if supportedFormats[strings.ReplaceAll(s.Format, "-", "")] {
		return s.Format
	}
	return ""
}

func childName(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// validateValue mirrors kube-openapi's SchemaValidator.Validate: the type,
// allOf/anyOf/oneOf/not, string, format, number, array, enum and object
// validators, in that order.
func validateValue(s *props, path string, data any) *result {
	return validateRatcheting(s, path, data, nil)
}

// validateRatcheting is validateValue with upstream's CRD validation
// ratcheting (ratcheting.go, on by default in 1.33) when old is not nil:
// the errors of a value deep-equal to its correlated old value are
// dropped (ratchet.go).
func validateRatcheting(s *props, path string, data any, old *oldValue) *result {
	res := validateOnce(s, path, data, old)
	if !res.valid() && old != nil && unchanged(data, old.v) {
		return &result{match: res.match}
	}
	return res
}

func validateOnce(s *props, path string, data any, old *oldValue) *result {
	res := &result{}
	if s == nil {
		return res
	}
	data = normalize(data)
	types := s.types()
	format := s.validatedFormat()
	if data == nil {
		if len(types) > 0 || format != "" {
			res.merge(typeCheck(s, types, format, path, nil))
		}
		res.merge(enumCheck(s, path, nil))
		return res
	}
	apply := func(r *result) {
		res.merge(r)
		res.match++
	}
	if len(types) > 0 || format != "" {
		apply(typeCheck(s, types, format, path, data))
	}
	apply(schemaProps(s, path, data, old))
	switch d := data.(type) {
	case string:
		apply(stringCheck(s, path, d))
		if format != "" {
			apply(formatCheck(path, format, d))
		}
	case int64, float64:
		apply(numberCheck(s, path, d))
	case []any:
		apply(sliceCheck(s, path, d, old))
	}
	apply(enumCheck(s, path, data))
	if m, ok := data.(map[string]any); ok {
		apply(objectCheck(s, path, m, old))
	}
	res.match++
	return res
}

func jsonType(data any) (string, string) {
	switch data.(type) {
	case bool:
		return "boolean", ""
	case string:
		return "string", ""
	case int64:
		return "integer", "int64"
	case float64:
		return "number", "double"
	case []any:
		return "array", ""
	case map[string]any:
		return "object", ""
	}
	return "", ""
}

func isJSONInteger(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -(1<<53) || f > 1<<53 {
		return false
	}
	return f == math.Trunc(f)
}

func invalidType(path, typeName string, value any) verr {
	var msg string
	if s, ok := value.(string); ok {
		msg = fmt.Sprintf("%s in %s must be of type %s: %q", path, in, typeName, s)
	} else {
		msg = fmt.Sprintf("%s in %s must be of type %s", path, in, typeName)
	}
	return verr{code: codeInvalidType, name: path, value: value, msg: msg}
}

// typeCheck mirrors kube-openapi's typeValidator.
func typeCheck(s *props, types []string, format, path string, data any) *result {
	has := func(t string) bool { return contains(types, t) }
	if data == nil {
		if len(types) > 0 && !has("null") && !s.Nullable {
			return errResult(invalidType(path, strings.Join(types, ","), "null"))
		}
		return &result{match: 1}
	}
	schType, valFormat := jsonType(data)
	isFloatInt := false
	if f, ok := data.(float64); ok {
		isFloatInt = isJSONInteger(f) && has("integer")
	}
	isIntFloat := schType == "integer" && has("number")
	_, isString := data.(string)
	_, isSlice := data.([]any)
	if !isString && !isSlice && format != "" && !(has(schType) || valFormat == format || isFloatInt || isIntFloat) {
		return errResult(invalidType(path, format, valFormat))
	}
	if !(has("number") || has("integer")) && format != "" && (isString || isSlice) {
		return &result{match: 1}
	}
	if !(has(schType) || isFloatInt || isIntFloat) {
		return errResult(invalidType(path, strings.Join(types, ","), schType))
	}
	return &result{match: 1}
}

// schemaProps mirrors kube-openapi's schemaPropsValidator (anyOf, oneOf,
// allOf, not).
func schemaProps(s *props, path string, data any, old *oldValue) *result {
	main := &result{}
	if len(s.AnyOf) > 0 {
		var best, firstSuccess *result
		succeeded := false
		for i := range s.AnyOf {
			r := validateRatcheting(&s.AnyOf[i], path, data, old)
			if r.valid() {
				best, succeeded = nil, true
				firstSuccess = r
				break
			}
			if best == nil || r.match > best.match {
				best = r
			}
		}
		if !succeeded {
			main.add(verr{code: codeComposite, msg: fmt.Sprintf("%q must validate at least one schema (anyOf)", path)})
		}
		if best != nil {
			main.merge(best)
		} else if firstSuccess != nil {
			main.merge(firstSuccess)
		}
	}
	if len(s.OneOf) > 0 {
		var best, firstSuccess *result
		validated := 0
		for i := range s.OneOf {
			r := validateRatcheting(&s.OneOf[i], path, data, old)
			if r.valid() {
				validated++
				best = nil
				if firstSuccess == nil {
					firstSuccess = r
				}
				continue
			}
			if validated == 0 && (best == nil || r.match > best.match) {
				best = r
			}
		}
		if validated != 1 {
			extra := "Found none valid"
			if validated > 1 {
				extra = fmt.Sprintf("Found %d valid alternatives", validated)
			}
			main.add(verr{code: codeComposite, msg: fmt.Sprintf("%q must validate one and only one schema (oneOf). %s", path, extra)})
			if best != nil {
				main.merge(best)
			}
		} else if firstSuccess != nil {
			main.merge(firstSuccess)
		}
	}
	if len(s.AllOf) > 0 {
		validated := 0
		for i := range s.AllOf {
			r := validateRatcheting(&s.AllOf[i], path, data, old)
			if r.valid() {
				validated++
			}
			main.merge(r)
		}
		if validated != len(s.AllOf) {
			extra := ""
			if validated == 0 {
				extra = ". None validated"
			}
			main.add(verr{code: codeComposite, msg: fmt.Sprintf("%q must validate all the schemas (allOf)%s", path, extra)})
		}
	}
	if s.Not != nil {
		if validateValue(s.Not, path, data).valid() {
			main.add(verr{code: codeComposite, msg: fmt.Sprintf("%q must not validate the schema (not)", path)})
		}
	}
	main.match++
	return main
}

// stringCheck mirrors kube-openapi's stringValidator: the first failing of
// maxLength, minLength, pattern.
func stringCheck(s *props, path, data string) *result {
	if s.MaxLength != nil && int64(utf8.RuneCountInString(data)) > *s.MaxLength {
		return errResult(verr{code: codeTooLong, name: path, value: data, valid: *s.MaxLength,
			msg: fmt.Sprintf("%s in %s should be at most %d chars long", path, in, *s.MaxLength)})
	}
	if s.MinLength != nil && int64(utf8.RuneCountInString(data)) < *s.MinLength {
		return errResult(verr{name: path, value: data,
			msg: fmt.Sprintf("%s in %s should be at least %d chars long", path, in, *s.MinLength)})
	}
	if s.Pattern != "" {
		if s.patternRE == nil || !s.patternRE.MatchString(data) {
			return errResult(verr{name: path, value: data,
				msg: fmt.Sprintf("%s in %s should match '%s'", path, in, s.Pattern)})
		}
	}
	return nil
}

func formatCheck(path, format, data string) *result {
	if check := formatCheckers[strings.ReplaceAll(format, "-", "")]; check != nil && !check(data) {
		return errResult(invalidType(path, format, data))
	}
	return nil
}

// numberCheck mirrors kube-openapi's numberValidator: multipleOf, minimum,
// maximum (in that order of reporting).
func numberCheck(s *props, path string, data any) *result {
	res := &result{}
	i, isInt := data.(int64)
	f := 0.0
	if isInt {
		f = float64(i)
	} else {
		f = data.(float64)
	}
	if s.MultipleOf != nil {
		m := *s.MultipleOf
		if isInt && isJSONInteger(m) && m != 0 {
			if i%int64(m) != 0 {
				res.add(verr{name: path, value: data, msg: fmt.Sprintf("%s in %s should be a multiple of %v", path, in, int64(m))})
			}
		} else if m <= 0 {
			res.add(verr{code: codeComposite, msg: fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", path, m)})
		} else if !isJSONInteger(f / m) {
			res.add(verr{name: path, value: data, msg: fmt.Sprintf("%s in %s should be a multiple of %v", path, in, m)})
		}
	}
	if s.Minimum != nil {
		min := *s.Minimum
		word := "greater than or equal to"
		if s.ExclusiveMinimum {
			word = "greater than"
		}
		if isInt {
			mi := int64(min)
			if (!s.ExclusiveMinimum && i < mi) || (s.ExclusiveMinimum && i <= mi) {
				res.add(verr{name: path, value: data, msg: fmt.Sprintf("%s in %s should be %s %d", path, in, word, mi)})
			}
		} else if (!s.ExclusiveMinimum && f < min) || (s.ExclusiveMinimum && f <= min) {
			res.add(verr{name: path, value: data, msg: fmt.Sprintf("%s in %s should be %s %v", path, in, word, min)})
		}
	}
	if s.Maximum != nil {
		max := *s.Maximum
		word := "less than or equal to"
		if s.ExclusiveMaximum {
			word = "less than"
		}
		if isInt {
			mi := int64(max)
			if (!s.ExclusiveMaximum && i > mi) || (s.ExclusiveMaximum && i >= mi) {
				res.add(verr{name: path, value: data, msg: fmt.Sprintf("%s in %s should be %s %d", path, in, word, mi)})
			}
		} else if (!s.ExclusiveMaximum && f > max) || (s.ExclusiveMaximum && f >= max) {
			res.add(verr{name: path, value: data, msg: fmt.Sprintf("%s in %s should be %s %v", path, in, word, max)})
		}
	}
	res.match++
	return res
}

// sliceCheck mirrors kube-openapi's schemaSliceValidator: items, then
// minItems, maxItems.
func sliceCheck(s *props, path string, data []any, old *oldValue) *result {
	res := &result{}
	if s.Items != nil && s.Items.Schema != nil {
		for i, v := range data {
			res.merge(validateRatcheting(s.Items.Schema, fmt.Sprintf("%s[%d]", path, i), v, old.item(s, v)))
		}
	}
	size := int64(len(data))
	if s.MinItems != nil && size < *s.MinItems {
		res.add(verr{name: path, value: size, msg: fmt.Sprintf("%s in %s should have at least %d items", path, in, *s.MinItems)})
	}
	if s.MaxItems != nil && size > *s.MaxItems {
		res.add(verr{code: codeMaxItems, name: path, value: size, valid: *s.MaxItems, msg: fmt.Sprintf("%s in %s should have at most %d items", path, in, *s.MaxItems)})
	}
	res.match++
	return res
}

// enumEqual mirrors basicCommonValidator's comparison: the value converted
// to the enum value's Go type, then deep-equal.
func enumEqual(data, enum any) bool {
	switch e := enum.(type) {
	case int64:
		switch d := data.(type) {
		case int64:
			return d == e
		case float64:
			return int64(d) == e
		}
		return false
	case float64:
		switch d := data.(type) {
		case int64:
			return float64(d) == e
		case float64:
			return d == e
		}
		return false
	}
	return reflect.DeepEqual(data, enum)
}

func enumCheck(s *props, path string, data any) *result {
	if len(s.enumValues) == 0 {
		return nil
	}
	nd := normalizeDeep(data)
	values := make([]any, len(s.enumValues))
	for i, e := range s.enumValues {
		values[i] = normalizeDeep(e)
		if enumEqual(nd, values[i]) {
			return nil
		}
	}
	return errResult(verr{code: codeEnum, name: path, value: data, values: values,
		msg: fmt.Sprintf("%s in %s should be one of %v", path, in, values)})
}

// objectCheck mirrors kube-openapi's objectValidator: property counts,
// additionalProperties, declared properties, then required ones.
func objectCheck(s *props, path string, val map[string]any, old *oldValue) *result {
	res := &result{}
	n := int64(len(val))
	if s.MinProperties != nil && n < *s.MinProperties {
		res.add(verr{name: path, value: n, msg: fmt.Sprintf("%s in %s should have at least %d properties", path, in, *s.MinProperties)})
	}
	if s.MaxProperties != nil && n > *s.MaxProperties {
		res.add(verr{code: codeTooManyProperties, name: path, value: n, valid: *s.MaxProperties, msg: fmt.Sprintf("%s in %s should have at most %d properties", path, in, *s.MaxProperties)})
	}
	keys := sortedKeys(val)
	if s.AdditionalProperties != nil && !s.AdditionalProperties.Allows {
		for _, k := range keys {
			if s.property(k) == nil {
				res.add(verr{name: path, value: k, msg: fmt.Sprintf("%s.%s in %s is a forbidden property", path, k, in)})
			}
		}
	} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		for _, k := range keys {
			if s.property(k) == nil {
				res.merge(validateRatcheting(s.AdditionalProperties.Schema, path+"."+k, val[k], old.key(k)))
			}
		}
	}
	for _, k := range keys { // the declared properties present, in sorted order
		if p := s.property(k); p != nil {
			res.merge(validateRatcheting(p, childName(path, k), val[k], old.key(k)))
		}
	}
	for _, k := range s.Required {
		if _, ok := val[k]; !ok {
			res.add(verr{code: codeRequired, name: path + "." + k, msg: fmt.Sprintf("%s.%s in %s is required", path, k, in)})
		}
	}
	return res
}

// toFieldErrors mirrors kubeOpenAPIResultToFieldErrors: base is the path
// the value sits at ("" for a whole object, printed "<nil>" for errors
// without a name).
func toFieldErrors(base string, r *result) meta.FieldErrors {
	var out meta.FieldErrors
	for _, e := range r.errs {
		p := base
		if e.code != codeComposite && e.name != "" && e.name != "." {
			p = child(base, trimDot(e.name))
		}
		if p == "" {
			p = "<nil>"
		}
		value := e.value
		if value == nil {
			value = ""
		}
		switch e.code {
		case codeComposite:
			out = append(out, meta.Invalid(p, "", e.msg))
		case codeRequired:
			out = append(out, meta.Required(p, ""))
		case codeEnum:
			vals := make([]string, len(e.values))
			for i, v := range e.values {
				if s, ok := v.(string); ok {
					vals[i] = s
				} else {
					b, _ := json.Marshal(v)
					vals[i] = string(b)
				}
			}
			fe := meta.NotSupported(p, badValue(e.value), vals)
			out = append(out, fe)
		case codeTooLong:
			out = append(out, &meta.FieldError{Type: meta.FieldValueTooLong, Field: p, BadValue: "<value omitted>", Detail: fmt.Sprintf("may not be more than %d bytes", e.valid)})
		case codeMaxItems, codeTooManyProperties:
			out = append(out, &meta.FieldError{Type: meta.FieldValueTooMany, Field: p, BadValue: e.value, Detail: fmt.Sprintf("must have at most %d items", e.valid)})
		case codeInvalidType:
			out = append(out, &meta.FieldError{Type: meta.FieldValueTypeInvalid, Field: p, BadValue: badValue(value), Detail: e.msg})
		default:
			out = append(out, meta.Invalid(p, badValue(value), e.msg))
		}
	}
	return out
}

// badValue is a value as upstream prints it in a field error: scalars as
// they are, maps and lists in Go syntax (%#v of the decoded value).
func badValue(v any) any {
	v = normalize(v)
	switch v.(type) {
	case map[string]any, []any:
		return meta.GoSyntax(goSyntax(normalizeDeep(v)))
	case nil:
		return nil
	}
	return v
}

// goSyntax prints a decoded JSON value as Go's %#v prints it
// (map[string]interface {}{"a":1}, []interface {}{"x"}).
func goSyntax(v any) string {
	switch x := v.(type) {
	case nil:
		return "interface {}(nil)"
	case map[string]any:
		var b strings.Builder
		b.WriteString("map[string]interface {}{")
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k))
			b.WriteString(":")
			b.WriteString(goSyntax(x[k]))
		}
		b.WriteString("}")
		return b.String()
	case []any:
		var b strings.Builder
		b.WriteString("[]interface {}{")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(goSyntax(e))
		}
		b.WriteString("}")
		return b.String()
	}
	return fmt.Sprintf("%#v", v)
}
