package structural

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// props is one JSONSchemaProps node as a CRD carries it (apiextensions.k8s.io/v1
// JSONSchemaProps); raw keywords keep whether they were present.
type props struct {
	ID                   string                     `json:"id,omitempty"`
	Schema               string                     `json:"$schema,omitempty"`
	Ref                  *string                    `json:"$ref,omitempty"`
	Description          string                     `json:"description,omitempty"`
	Type                 string                     `json:"type,omitempty"`
	Format               string                     `json:"format,omitempty"`
	Title                string                     `json:"title,omitempty"`
	Default              json.RawMessage            `json:"default,omitempty"`
	Maximum              *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum     bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum              *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum     bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength            *int64                     `json:"maxLength,omitempty"`
	MinLength            *int64                     `json:"minLength,omitempty"`
	Pattern              string                     `json:"pattern,omitempty"`
	MaxItems             *int64                     `json:"maxItems,omitempty"`
	MinItems             *int64                     `json:"minItems,omitempty"`
	UniqueItems          bool                       `json:"uniqueItems,omitempty"`
	MultipleOf           *float64                   `json:"multipleOf,omitempty"`
	Enum                 []json.RawMessage          `json:"enum,omitempty"`
	MaxProperties        *int64                     `json:"maxProperties,omitempty"`
	MinProperties        *int64                     `json:"minProperties,omitempty"`
	Required             []string                   `json:"required,omitempty"`
	Items                *schemaOrArray             `json:"items,omitempty"`
	AllOf                []props                    `json:"allOf,omitempty"`
	OneOf                []props                    `json:"oneOf,omitempty"`
	AnyOf                []props                    `json:"anyOf,omitempty"`
	Not                  *props                     `json:"not,omitempty"`
	Properties           map[string]props           `json:"properties,omitempty"`
	AdditionalProperties *schemaOrBool              `json:"additionalProperties,omitempty"`
	PatternProperties    map[string]props           `json:"patternProperties,omitempty"`
	Dependencies         map[string]json.RawMessage `json:"dependencies,omitempty"`
	AdditionalItems      *schemaOrBool              `json:"additionalItems,omitempty"`
	Definitions          map[string]props           `json:"definitions,omitempty"`
	ExternalDocs         json.RawMessage            `json:"externalDocs,omitempty"`
	Example              json.RawMessage            `json:"example,omitempty"`
	Nullable             bool                       `json:"nullable,omitempty"`

	XPreserveUnknownFields *bool            `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	XEmbeddedResource      bool             `json:"x-kubernetes-embedded-resource,omitempty"`
	XIntOrString           bool             `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys           []string         `json:"x-kubernetes-list-map-keys,omitempty"`
	XListType              *string          `json:"x-kubernetes-list-type,omitempty"`
	XMapType               *string          `json:"x-kubernetes-map-type,omitempty"`
	XValidations           []ValidationRule `json:"x-kubernetes-validations,omitempty"`

	// parsed after decoding
	defaultValue any  // the default, decoded with UseNumber; nil when absent or null
	hasDefault   bool // a non-null default is set
	enumValues   []any
	patternRE    *regexp.Regexp // Pattern compiled; nil when absent or when it does not compile

	// lookup tables built by finish for the per-object walks
	prop      map[string]*props // Properties by name, shared pointers
	defaulted []string          // sorted names of properties with a default
}

// property returns the schema of property k, or nil.
func (p *props) property(k string) *props {
	if p == nil {
		return nil
	}
	return p.prop[k]
}

// ValidationRule is one x-kubernetes-validations entry
// (apiextensions.k8s.io/v1 ValidationRule), kept for the caller that
// evaluates CEL rules.
type ValidationRule struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

// schemaOrArray is JSONSchemaPropsOrArray: a schema, or a list of schemas.
type schemaOrArray struct {
	Schema  *props
	Schemas []props
}

func (s *schemaOrArray) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		return json.Unmarshal(b, &s.Schemas)
	}
	if string(b) == "null" {
		return nil
	}
	s.Schema = &props{}
	return json.Unmarshal(b, s.Schema)
}

// schemaOrBool is JSONSchemaPropsOrBool: true/false, or a schema (Allows true).
type schemaOrBool struct {
	Allows bool
	Schema *props
}

func (s *schemaOrBool) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "true":
		s.Allows = true
		return nil
	case "false", "null":
		return nil
	}
	s.Allows = true
	s.Schema = &props{}
	return json.Unmarshal(b, s.Schema)
}

// Schema is one parsed, checked openAPIV3Schema of a CRD version. It is
// read-only after New and safe for concurrent use.
type Schema struct {
	root *props
}

// New parses one openAPIV3Schema (its JSON bytes as in the CRD) and checks
// it as upstream's CRD validation does (validateCustomResourceDefinitionValidation
// in apiextensions-apiserver's pkg/apis/apiextensions/validation/validation.go,
// with ValidateStructural and ValidateDefaults of pkg/apiserver/schema):
// structural-schema errors first (sorted by text, as upstream sorts them),
// then default-value errors, then the OpenAPI keyword checks. fldPath
// prefixes error fields (e.g. "spec.versions[0].schema.openAPIV3Schema").
// Bytes that are not a JSON object give one Invalid error at fldPath. A
// non-nil *Schema is returned whenever the bytes parse, even with errors,
// so that a caller may still inspect it; callers must not serve objects
// with a schema that had errors.
func New(openAPIV3Schema []byte, fldPath string) (*Schema, meta.FieldErrors) {
	root := &props{}
	dec := json.NewDecoder(bytes.NewReader(openAPIV3Schema))
	if err := dec.Decode(root); err != nil {
		return nil, meta.FieldErrors{meta.Invalid(fldPath, "", err.Error())}
	}
	if err := root.finish(); err != nil {
		return nil, meta.FieldErrors{meta.Invalid(fldPath, "", err.Error())}
	}
	s := &Schema{root: root}
	return s, checkCRDSchema(root, fldPath)
}

// finish decodes defaults and enum values (numbers as json.Number),
// compiles the pattern and
// strips formats upstream does not support for CRDs
// (StripUnsupportedFormatsPostProcessor in pkg/apiserver/validation/formats.go)
// into the value validator's view, recursively.
func (p *props) finish() error {
	if len(p.Default) > 0 && string(bytes.TrimSpace(p.Default)) != "null" {
		v, err := decodeValue(p.Default)
		if err != nil {
			return err
		}
		p.defaultValue, p.hasDefault = v, true
	}
	for _, raw := range p.Enum {
		v, err := decodeValue(raw)
		if err != nil {
			return err
		}
		p.enumValues = append(p.enumValues, v)
	}
	if p.Pattern != "" {
		p.patternRE, _ = regexp.Compile(p.Pattern) // a bad one fails every value, as upstream
	}
	var err error
	visit := func(c *props) {
		if c != nil && err == nil {
			err = c.finish()
		}
	}
	if p.Items != nil {
		visit(p.Items.Schema)
		for i := range p.Items.Schemas {
			visit(&p.Items.Schemas[i])
		}
	}
	for i := range p.AllOf {
		visit(&p.AllOf[i])
	}
	for i := range p.OneOf {
		visit(&p.OneOf[i])
	}
	for i := range p.AnyOf {
		visit(&p.AnyOf[i])
	}
	visit(p.Not)
	for k, c := range p.Properties {
		visit(&c)
		p.Properties[k] = c
	}
	if p.AdditionalProperties != nil {
		visit(p.AdditionalProperties.Schema)
	}
	if len(p.Properties) > 0 {
		p.prop = make(map[string]*props, len(p.Properties))
		for _, k := range sortedKeys(p.Properties) {
			c := p.Properties[k]
			p.prop[k] = &c
			if c.hasDefault {
				p.defaulted = append(p.defaulted, k)
			}
		}
	}
	return err
}

func decodeValue(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// sortedKeys returns the keys of m in sorted order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// child appends a field name to a path as field.Path.Child prints it.
func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// key appends a map key as field.Path.Key prints it: "properties[spec]".
func key(path, k string) string { return path + "[" + k + "]" }

// index appends a list index: "allOf[0]".
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// Rule is one x-kubernetes-validations rule with the schema path it is
// declared at, for a caller that evaluates CEL.
type Rule struct {
	// SchemaPath is the path of the schema node inside openAPIV3Schema in
	// field.Path form ("properties[spec].properties[crust]"); "" at the root.
	SchemaPath string
	// Index is the rule's position in that node's x-kubernetes-validations.
	Index int
	ValidationRule
}

// Rules lists every x-kubernetes-validations rule of the schema (root,
// properties, additionalProperties and items, in sorted property order).
func (s *Schema) Rules() []Rule {
	var out []Rule
	var walk func(p *props, path string)
	walk = func(p *props, path string) {
		if p == nil {
			return
		}
		for i, r := range p.XValidations {
			out = append(out, Rule{SchemaPath: path, Index: i, ValidationRule: r})
		}
		for _, k := range sortedKeys(p.Properties) {
			c := p.Properties[k]
			walk(&c, child(path, key("properties", k)))
		}
		if p.AdditionalProperties != nil {
			walk(p.AdditionalProperties.Schema, child(path, "additionalProperties"))
		}
		if p.Items != nil {
			walk(p.Items.Schema, child(path, "items"))
		}
	}
	walk(s.root, "")
	return out
}

// trimDot removes a leading "." as upstream does on kube-openapi names.
func trimDot(s string) string { return strings.TrimPrefix(s, ".") }
