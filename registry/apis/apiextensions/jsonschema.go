package apiextensions

import (
	"bytes"
	"encoding/json"
	"errors"
)

// FieldValueErrorReason is a machine-readable value providing more detail
// about why a field failed the validation.
type FieldValueErrorReason string

// JSONSchemaProps is a JSON-Schema following Specification Draft 4
// (http://json-schema.org/).
// ---
// JSONSchemaProps mirrors apiextensions/v1.JSONSchemaProps: encoded in
// upstream's field order, unknown keywords dropped on decode, values
// (default, enum, example) kept as the JSON they were written as.
type JSONSchemaProps struct {
	// ---
	// ID is the schema's "id".
	ID string `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	// ---
	// Schema is "$schema".
	Schema JSONSchemaURL `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	// ---
	// Ref is "$ref" (refused by validation).
	Ref *string `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	// ---
	// Description documents the value.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// ---
	// Type is the JSON type: object, array, string, integer, number, boolean.
	Type string `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	// format is an OpenAPI v3 format string. Unknown formats are ignored.
	Format string `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	// ---
	// Title names the value.
	Title string `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	// default is a default value for undefined object fields. Defaulting is
	// a beta feature under the CustomResourceDefaulting feature gate.
	// Defaulting requires spec.preserveUnknownFields to be false.
	Default *JSON `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	// ---
	// Maximum is the largest number allowed.
	Maximum *float64 `json:"maximum,omitempty" protobuf:"bytes,9,opt,name=maximum"`
	// ---
	// ExclusiveMaximum makes Maximum exclusive.
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty" protobuf:"bytes,10,opt,name=exclusiveMaximum"`
	// ---
	// Minimum is the smallest number allowed.
	Minimum *float64 `json:"minimum,omitempty" protobuf:"bytes,11,opt,name=minimum"`
	// ---
	// ExclusiveMinimum makes Minimum exclusive.
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty" protobuf:"bytes,12,opt,name=exclusiveMinimum"`
	// ---
	// MaxLength is the longest string allowed.
	MaxLength *int64 `json:"maxLength,omitempty" protobuf:"bytes,13,opt,name=maxLength"`
	// ---
	// MinLength is the shortest string allowed.
	MinLength *int64 `json:"minLength,omitempty" protobuf:"bytes,14,opt,name=minLength"`
	// ---
	// Pattern is an ECMA 262 regular expression strings must match.
	Pattern string `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	// ---
	// MaxItems is the longest array allowed.
	MaxItems *int64 `json:"maxItems,omitempty" protobuf:"bytes,16,opt,name=maxItems"`
	// ---
	// MinItems is the shortest array allowed.
	MinItems *int64 `json:"minItems,omitempty" protobuf:"bytes,17,opt,name=minItems"`
	// ---
	// UniqueItems asks for distinct array items (refused when true).
	UniqueItems bool `json:"uniqueItems,omitempty" protobuf:"bytes,18,opt,name=uniqueItems"`
	// ---
	// MultipleOf is the number values must be a multiple of.
	MultipleOf *float64 `json:"multipleOf,omitempty" protobuf:"bytes,19,opt,name=multipleOf"`
	// ---
	// Enum lists the allowed values.
	// +listType=atomic
	Enum []JSON `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	// ---
	// MaxProperties is the most keys an object may have.
	MaxProperties *int64 `json:"maxProperties,omitempty" protobuf:"bytes,21,opt,name=maxProperties"`
	// ---
	// MinProperties is the fewest keys an object may have.
	MinProperties *int64 `json:"minProperties,omitempty" protobuf:"bytes,22,opt,name=minProperties"`
	// ---
	// Required lists the properties an object must have.
	// +listType=atomic
	Required []string `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`
	// ---
	// Items is the schema of array items.
	Items *JSONSchemaPropsOrArray `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	// ---
	// AllOf: the value must match every schema.
	// +listType=atomic
	AllOf []JSONSchemaProps `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	// ---
	// OneOf: the value must match exactly one schema.
	// +listType=atomic
	OneOf []JSONSchemaProps `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	// ---
	// AnyOf: the value must match at least one schema.
	// +listType=atomic
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	// ---
	// Not: the value must not match the schema.
	Not *JSONSchemaProps `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	// ---
	// Properties are the schemas of an object's known keys.
	Properties map[string]JSONSchemaProps `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties"`
	// ---
	// AdditionalProperties is the schema of other keys (or whether they are allowed).
	AdditionalProperties *JSONSchemaPropsOrBool `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	// ---
	// PatternProperties are schemas of keys matching a pattern (refused).
	PatternProperties map[string]JSONSchemaProps `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties"`
	// ---
	// Dependencies are property dependencies (refused).
	Dependencies JSONSchemaDependencies `json:"dependencies,omitempty" protobuf:"bytes,32,opt,name=dependencies"`
	// ---
	// AdditionalItems (refused).
	AdditionalItems *JSONSchemaPropsOrBool `json:"additionalItems,omitempty" protobuf:"bytes,33,opt,name=additionalItems"`
	// ---
	// Definitions (refused).
	Definitions JSONSchemaDefinitions `json:"definitions,omitempty" protobuf:"bytes,34,opt,name=definitions"`
	// ---
	// ExternalDocs points to more documentation.
	ExternalDocs *ExternalDocumentation `json:"externalDocs,omitempty" protobuf:"bytes,35,opt,name=externalDocs"`
	// ---
	// Example is an example value.
	Example *JSON `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	// ---
	// Nullable allows null.
	Nullable bool `json:"nullable,omitempty" protobuf:"bytes,37,opt,name=nullable"`
	// x-kubernetes-preserve-unknown-fields stops the API server decoding
	// step from pruning fields which are not specified in the validation
	// schema.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"bytes,38,opt,name=xKubernetesPreserveUnknownFields"`
	// x-kubernetes-embedded-resource defines that the value is an embedded
	// Kubernetes runtime.Object, with TypeMeta and ObjectMeta.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"bytes,39,opt,name=xKubernetesEmbeddedResource"`
	// x-kubernetes-int-or-string specifies that this value is either an
	// integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty" protobuf:"bytes,40,opt,name=xKubernetesIntOrString"`
	// x-kubernetes-list-map-keys annotates an array with the
	// x-kubernetes-list-type `map` by specifying the keys used as the index
	// of the map.
	// +listType=atomic
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	// x-kubernetes-list-type annotates an array to further describe its
	// topology: atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	// x-kubernetes-map-type annotates an object to further describe its
	// topology: granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	// x-kubernetes-validations describes a list of validation rules written
	// in the CEL expression language.
	// +listType=map
	// +listMapKey=rule
	XValidations ValidationRules `json:"x-kubernetes-validations,omitempty" patchStrategy:"merge" patchMergeKey:"rule" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
}

// JSONSchemaURL represents a schema url.
type JSONSchemaURL string

// ValidationRules describes a list of validation rules written in the CEL
// expression language.
type ValidationRules []ValidationRule

// ValidationRule describes a validation rule written in the CEL
// expression language.
// ---
// ValidationRule mirrors apiextensions/v1.ValidationRule.
type ValidationRule struct {
	// rule represents the expression which will be evaluated by CEL.
	Rule string `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	// message represents the message displayed when validation fails.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// messageExpression declares a CEL expression that evaluates to the
	// validation failure message that is returned when this rule fails.
	// +optional
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	// reason provides a machine-readable validation failure reason that is
	// returned to the caller when a request fails this validation rule.
	// +optional
	// +openapi:enum=FieldValueDuplicate
	// +openapi:enum=FieldValueForbidden
	// +openapi:enum=FieldValueInvalid
	// +openapi:enum=FieldValueRequired
	Reason *FieldValueErrorReason `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// fieldPath represents the field path returned when the validation
	// fails.
	// +optional
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	// optionalOldSelf is used to opt a transition rule into evaluation even
	// when the object is first created, or if the old object is missing the
	// value.
	// +optional
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty" protobuf:"bytes,6,opt,name=optionalOldSelf"`
}

// ExternalDocumentation allows referencing an external resource for
// extended documentation.
// ---
// ExternalDocumentation mirrors apiextensions/v1.ExternalDocumentation.
type ExternalDocumentation struct {
	// ---
	// Description of the documentation.
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`
	// ---
	// URL of the documentation.
	URL string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
}

// JSONSchemaDefinitions contains the models explicitly defined in this
// spec.
type JSONSchemaDefinitions map[string]JSONSchemaProps

// JSONSchemaDependencies represent a dependencies property.
type JSONSchemaDependencies map[string]JSONSchemaPropsOrStringArray

// JSON represents any valid JSON value. These types are supported: bool,
// int64, float64, string, []interface{}, map[string]interface{} and nil.
// ---
// JSON keeps the value as written (compacted).
// +openapi:type=
type JSON struct {
	// Raw is the value's JSON.
	Raw []byte `json:"-"`
}

// MarshalJSON returns the value's JSON, or null when empty.
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) == 0 {
		return []byte("null"), nil
	}
	return j.Raw, nil
}

// UnmarshalJSON keeps a compacted copy of b (null is kept as null).
func (j *JSON) UnmarshalJSON(b []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	j.Raw = buf.Bytes()
	return nil
}

// JSONSchemaPropsOrArray represents a value that can either be a
// JSONSchemaProps or an array of JSONSchemaProps. Mainly here for
// serialization purposes.
// ---
// +openapi:type=
type JSONSchemaPropsOrArray struct {
	// Schema is the single schema, when not an array.
	Schema *JSONSchemaProps `json:"-"`
	// JSONSchemas are the schemas of an array form.
	JSONSchemas []JSONSchemaProps `json:"-"`
}

// MarshalJSON encodes the array form when JSONSchemas is set, else Schema.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON accepts an object, an array of objects or null.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(b []byte) error {
	*s = JSONSchemaPropsOrArray{}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		s.Schema = &JSONSchemaProps{}
		return json.Unmarshal(b, s.Schema)
	case len(b) > 0 && b[0] == '[':
		return json.Unmarshal(b, &s.JSONSchemas)
	case bytes.Equal(b, []byte("null")):
		return nil
	}
	return errors.New("JSONSchemaPropsOrArray: expected an object or an array")
}

// JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value.
// Defaults to true for the boolean property.
// ---
// +openapi:type=
type JSONSchemaPropsOrBool struct {
	// Allows is the boolean form (true when Schema is set).
	Allows bool `json:"-"`
	// Schema is the schema form.
	Schema *JSONSchemaProps `json:"-"`
}

// MarshalJSON encodes Schema when set, else Allows.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON accepts an object, a boolean or null (true).
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(b []byte) error {
	*s = JSONSchemaPropsOrBool{}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		s.Allows, s.Schema = true, &JSONSchemaProps{}
		return json.Unmarshal(b, s.Schema)
	case bytes.Equal(b, []byte("null")), bytes.Equal(b, []byte("true")):
		s.Allows = true
		return nil
	case bytes.Equal(b, []byte("false")):
		return nil
	}
	return errors.New("JSONSchemaPropsOrBool: expected an object or a boolean")
}

// JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string
// array.
// ---
// +openapi:type=
type JSONSchemaPropsOrStringArray struct {
	// Schema is the schema form.
	Schema *JSONSchemaProps `json:"-"`
	// Property is the string-array form.
	Property []string `json:"-"`
}

// MarshalJSON encodes Property when set, else Schema.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON accepts an object, an array of strings or null.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(b []byte) error {
	*s = JSONSchemaPropsOrStringArray{}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		s.Schema = &JSONSchemaProps{}
		return json.Unmarshal(b, s.Schema)
	case len(b) > 0 && b[0] == '[':
		return json.Unmarshal(b, &s.Property)
	case bytes.Equal(b, []byte("null")):
		return nil
	}
	return errors.New("JSONSchemaPropsOrStringArray: expected an object or an array")
}
