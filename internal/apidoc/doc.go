// Package apidoc holds the descriptions and markers of aggsim's wire types,
// read from their doc comments by internal/apigen and compiled into each
// API package as zz_generated.docs.go, which registers them here at init
// (as a function that builds them on the package's first lookup).
// It is the data that, with the Go types themselves (reflection: field
// order, types, json and protobuf struct tags), lets other packages derive
// protobuf field tables (registry/rest) and OpenAPI schemas
// (registry/openapi) from one description of each type.
//
// It owns the data model (Package, Type, Field, Markers), the registry of
// generated packages and the lookups by reflect.Type. It must not know any
// particular API type, derive schemas, or import other aggsim packages:
// every API package imports it.
//
// # Doc comments
//
// The description of a type or field is its doc comment up to a line that
// is exactly "---" (the rest is Go documentation only), without marker
// lines. Lines of a paragraph are joined with one space; a line that
// starts with a space (an indented line: a list item or its continuation)
// starts a new line of the description instead; an empty comment line
// separates paragraphs ("\n\n"). Upstream's generators follow the same
// conventions (k8s.io/kube-openapi's openapi-gen, and the
// types_swagger_doc_generated.go files of k8s.io/api).
//
// # Markers
//
// A marker is a comment line "+key" or "+key=value", anywhere in the doc
// comment (before or after "---"). A repeated key keeps every value in
// order. Upstream's markers, with upstream's meaning:
//
//	+optional, +required            field is (not) in the schema's required list
//	                                (default: required unless omitempty/omitzero)
//	+default=<JSON>                 the field's default in the OpenAPI v3 schema
//	+listType=atomic|set|map        x-kubernetes-list-type
//	+listMapKey=<json name>         x-kubernetes-list-map-keys (repeatable)
//	+mapType=atomic|granular        x-kubernetes-map-type of a map field
//	+structType=atomic|granular     x-kubernetes-map-type of a struct type
//	+union                          type: a union (x-kubernetes-unions): its
//	                                +unionDiscriminator field says which of the
//	                                other fields is set; each other field is
//	                                named in fields-to-discriminateBy by its Go
//	                                name (the discriminator's value)
//	+unionDiscriminator             field: the discriminator of a +union type
//
// aggsim's markers, for what upstream says in Go code or in its package
// path:
//
//	+upstreamPackage=<import path>  package (doc.go) or type: the upstream Go
//	                                package the types mirror; OpenAPI definition
//	                                names are formed from it as upstream forms
//	                                them from its own package path
//	+openapi:enum=<value>           field: one allowed value (repeatable, in
//	                                upstream's order; of the items for a list),
//	                                the OpenAPI enum upstream derives from an
//	                                +enum string type and its constants
//	+openapi:type=<type>            type: the OpenAPI type of a type with custom
//	+openapi:format=<format>        JSON (upstream: OpenAPISchemaType and
//	                                OpenAPISchemaFormat methods)
//	+openapi:v3OneOf=<t1>,<t2>      type: /openapi/v3 gives oneOf these types
//	                                instead of type (upstream's
//	                                OpenAPIV3OneOfTypes; Quantity)
//
// and aggsim's deliberate differences from what upstream's generators
// would produce, kept so that aggsim's served documents and protobuf
// decoding stay as they are (each use is a known difference from
// kube-apiserver 1.33 and can be dropped to move closer to it):
//
//	+openapi:skip                   field: left out of the OpenAPI schema
//	+openapi:noDefault              field: no zero-value default in OpenAPI v3
//	+protobuf:emit=always|omitempty field: how JSON decoded from protobuf writes
//	                                the field when the current upstream Go type's
//	                                json tag differs from aggsim's
//
// The struct tags patchStrategy and patchMergeKey are read from the Go type
// itself, like json and protobuf.
package apidoc
