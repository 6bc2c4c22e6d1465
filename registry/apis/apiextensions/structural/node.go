package structural

// Node is a read-only view of one schema node, for callers that walk the
// schema tree (the CEL rule engine in package celrules). The zero Node
// (and a Node of an absent schema) reports Exists() == false.
type Node struct{ p *props }

// Root returns the root node of the openAPIV3Schema.
func (s *Schema) Root() Node { return Node{p: s.root} }

// Exists reports whether the node has a schema.
func (n Node) Exists() bool { return n.p != nil }

// Type is the node's "type" ("" when unset).
func (n Node) Type() string { return n.p.Type }

// Format is the node's "format" as written in the schema.
func (n Node) Format() string { return n.p.Format }

// PropertyNames lists the declared properties in sorted order.
func (n Node) PropertyNames() []string { return sortedKeys(n.p.Properties) }

// Property returns the schema of property k (Exists() false when undeclared).
func (n Node) Property(k string) Node { return Node{p: n.p.property(k)} }

// Items returns the items schema of an array node.
func (n Node) Items() Node {
	if n.p.Items == nil {
		return Node{}
	}
	return Node{p: n.p.Items.Schema}
}

// AdditionalProperties returns the additionalProperties schema (Exists()
// false when absent or a bare boolean).
func (n Node) AdditionalProperties() Node {
	if n.p.AdditionalProperties == nil {
		return Node{}
	}
	return Node{p: n.p.AdditionalProperties.Schema}
}

// Required lists the required property names in schema order.
func (n Node) Required() []string { return n.p.Required }

// MaxLength returns maxLength (nil when unset).
func (n Node) MaxLength() *int64 { return n.p.MaxLength }

// MaxItems returns maxItems (nil when unset).
func (n Node) MaxItems() *int64 { return n.p.MaxItems }

// MaxProperties returns maxProperties (nil when unset).
func (n Node) MaxProperties() *int64 { return n.p.MaxProperties }

// Enum returns the enum values decoded with UseNumber.
func (n Node) Enum() []any { return n.p.enumValues }

// HasDefault reports whether a non-null default is set.
func (n Node) HasDefault() bool { return n.p.hasDefault }

// XIntOrString reports x-kubernetes-int-or-string.
func (n Node) XIntOrString() bool { return n.p.XIntOrString }

// XPreserveUnknownFields reports x-kubernetes-preserve-unknown-fields: true.
func (n Node) XPreserveUnknownFields() bool {
	return n.p.XPreserveUnknownFields != nil && *n.p.XPreserveUnknownFields
}

// XEmbeddedResource reports x-kubernetes-embedded-resource.
func (n Node) XEmbeddedResource() bool { return n.p.XEmbeddedResource }

// XListType is x-kubernetes-list-type ("" when unset).
func (n Node) XListType() string {
	if n.p.XListType == nil {
		return ""
	}
	return *n.p.XListType
}

// XListMapKeys is x-kubernetes-list-map-keys.
func (n Node) XListMapKeys() []string { return n.p.XListMapKeys }

// XValidations returns the node's x-kubernetes-validations rules.
func (n Node) XValidations() []ValidationRule { return n.p.XValidations }

// FormatValid reports whether s is valid for the OpenAPI string format as
// kube-openapi's strfmt.Default.Validates checks it (the same checkers the
// value validator uses); known is false for a format without a checker.
func FormatValid(format, s string) (valid, known bool) {
	f, ok := formatCheckers[format]
	if !ok {
		return false, false
	}
	return f(s), true
}
