package rest

// Protobuf schemas of the kinds aggsim accepts as
// application/vnd.kubernetes.protobuf request bodies, derived at package
// initialisation from aggsim's Go wire types (registry/apis/...): the
// field numbers and wire types from their protobuf struct tags (the
// numbers of upstream's generated.proto files, as upstream's Go types
// carry them), JSON names from the json tags, value shapes from the Go
// field types, and emit modes from the json tags (omitempty, omitzero,
// pointers) so that a decoded body serialises as encoding/json would
// serialise the upstream Go object; a +protobuf:emit marker (see
// internal/apidoc) gives upstream's mode where aggsim's json tag differs.
// Field order inside a schema is the Go struct's field order, which is
// the JSON order upstream writes. It mirrors how upstream's protobuf
// serializer is generated from the same struct tags
// (k8s.io/code-generator's go-to-protobuf).
//
// Every *pbType is read-only after package initialisation.

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/internal/apidoc"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/authorization"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// pbKind is the shape of one protobuf field's value.
type pbKind uint8

const (
	pbString        pbKind = iota // length-delimited UTF-8 text → JSON string
	pbInt32                       // varint → JSON number
	pbInt64                       // varint → JSON number
	pbBool                        // varint → JSON true/false
	pbBytes                       // length-delimited bytes → base64 JSON string
	pbMessage                     // length-delimited embedded message → JSON object
	pbTime                        // meta/v1 Time{seconds 1, nanos 2} → RFC 3339 string or null
	pbIntOrString                 // intstr.IntOrString{type 1, intVal 2, strVal 3} → number or string
	pbStringMap                   // map<string,string> → JSON object of strings
	pbBytesMap                    // map<string,bytes> → JSON object of base64 strings
	pbStringListMap               // map<string,ExtraValue{repeated string items 1}> → JSON object of string arrays
	pbRawJSON                     // meta/v1 FieldsV1{Raw 1}: bytes that are JSON, written verbatim
	pbStringList                  // meta/v1 Verbs{repeated string items 1}: a message ↔ JSON array of strings
)

// pbEmit says when a decoded field is written to JSON.
type pbEmit uint8

const (
	// emitOmitEmpty: a non-pointer field tagged omitempty (or omitzero);
	// its zero value is left out.
	emitOmitEmpty pbEmit = iota
	// emitAlways: a non-pointer field without omitempty, or a struct (which
	// encoding/json never omits); when absent from the wire its zero
	// value is written (`""`, `0`, `false`, `{}`, `null` for Time, `[]`).
	emitAlways
	// emitIfSet: a pointer field; written, even when zero, exactly when
	// present on the wire.
	emitIfSet
)

// pbField describes one field of a message.
type pbField struct {
	num  int32   // protobuf field number
	name string  // JSON name
	kind pbKind  // value shape
	emit pbEmit  // when to write it
	rep  bool    // repeated (JSON array)
	msg  *pbType // schema of pbMessage values
	// micro marks a pbTime that is a meta/v1 MicroTime (same wire form,
	// JSON with six fraction digits).
	micro bool
	// quantities marks a pbStringMap whose values are
	// resource.Quantity{string 1} messages (core/v1 ResourceList), JSON
	// strings.
	quantities bool
}

// pbType is the schema of one protobuf message.
type pbType struct {
	name   string // upstream Go type name, for error messages
	fields []pbField
}

// field returns the field with protobuf number num, or nil.
func (t *pbType) field(num int32) (int, *pbField) {
	for i := range t.fields {
		if t.fields[i].num == num {
			return i, &t.fields[i]
		}
	}
	return -1, nil
}

// The Go types with a protobuf shape of their own rather than a message
// of their fields.
var (
	pbTimeType        = reflect.TypeFor[meta.Time]()        // Time{seconds 1, nanos 2}
	pbIntOrStringType = reflect.TypeFor[core.IntOrString]() // IntOrString{type 1, intVal 2, strVal 3}
	pbFieldsV1Type    = reflect.TypeFor[meta.FieldsV1]()    // FieldsV1{raw 1}, standing for upstream's *FieldsV1
	pbVerbsType       = reflect.TypeFor[meta.Verbs]()       // Verbs{repeated string items 1}
	pbMicroTimeType   = reflect.TypeFor[meta.MicroTime]()   // MicroTime{seconds 1, nanos 2}
	pbQuantityType    = reflect.TypeFor[core.Quantity]()    // Quantity{string 1}, as a map value
)

// pbKindKey names a kind in one version: "v1", "Namespace".
type pbKindKey struct{ apiVersion, kind string }

// pbSchemas are the protobuf schemas aggsim knows.
type pbSchemas struct {
	// kinds are the schemas of every kind aggsim accepts protobuf bodies
	// of: the kind and list kind of each of registry.Strategies whose Go
	// type has protobuf struct tags (GenericObject kinds have none), the
	// review kinds of reviewProtobufTypes, and the discovery documents.
	kinds map[pbKindKey]*pbType
	// deleteOptions and status are served in every v1 (see
	// protobufSchemaFor).
	deleteOptions, status *pbType
}

// protobufSchemas derives the schemas on first use (the first protobuf
// body or Accept), not at package initialisation: walking every
// strategy's Go type by reflection took about 1.6 ms of every process
// start, before main (GODEBUG=inittrace=1), while most starts never see a
// protobuf request. Read-only once derived.
var protobufSchemas = sync.OnceValue(mustProtobufKinds)

// mustProtobufKinds derives protobufSchemas; it panics on a struct tag it
// cannot follow, a programming error found by the tests.
func mustProtobufKinds() *pbSchemas {
	cache := map[reflect.Type]*pbType{}
	must := func(t reflect.Type) *pbType {
		s, err := protobufSchemaOf(t, cache)
		if err != nil {
			panic("rest: " + err.Error())
		}
		return s
	}
	kinds := map[pbKindKey]*pbType{}
	for _, s := range registry.Strategies(nil) {
		info := s.Info()
		t := reflect.TypeOf(s.New()).Elem()
		if !hasProtobufTags(t) {
			continue
		}
		list := apidoc.TypeByName(t, info.ListKind)
		if list == nil {
			panic(fmt.Sprintf("rest: no Go type %s next to %v", info.ListKind, t))
		}
		kinds[pbKindKey{info.APIVersion(), info.Kind}] = must(t)
		kinds[pbKindKey{info.APIVersion(), info.ListKind}] = must(list)
	}
	for k, t := range reviewProtobufTypes {
		kinds[k] = must(t)
	}
	for k, t := range discoveryProtobufTypes {
		kinds[k] = must(t)
	}
	return &pbSchemas{kinds: kinds, deleteOptions: must(reflect.TypeFor[meta.DeleteOptions]()), status: must(reflect.TypeFor[meta.Status]())}
}

// reviewProtobufTypes are the Go types of the review kinds (never stored,
// so not among registry.Strategies) that clients send as protobuf:
// kubectl auth can-i, can-i --list and whoami, kubectl create token
// (TokenRequest, the serviceaccounts/token subresource), and the delegated
// authenticators and authorizers of k8s.io/apiserver backends.
// LocalSubjectAccessReview has SubjectAccessReview's shape, as upstream's
// generated.proto gives both the same fields.
var reviewProtobufTypes = map[pbKindKey]reflect.Type{
	{"authentication.k8s.io/v1", "TokenReview"}:             reflect.TypeFor[authentication.TokenReview](),
	{"authentication.k8s.io/v1", "SelfSubjectReview"}:       reflect.TypeFor[authentication.SelfSubjectReview](),
	{"authentication.k8s.io/v1", "TokenRequest"}:            reflect.TypeFor[authentication.TokenRequest](),
	{"authorization.k8s.io/v1", "SubjectAccessReview"}:      reflect.TypeFor[authorization.SubjectAccessReview](),
	{"authorization.k8s.io/v1", "LocalSubjectAccessReview"}: reflect.TypeFor[authorization.SubjectAccessReview](),
	{"authorization.k8s.io/v1", "SelfSubjectAccessReview"}:  reflect.TypeFor[authorization.SelfSubjectAccessReview](),
	{"authorization.k8s.io/v1", "SelfSubjectRulesReview"}:   reflect.TypeFor[authorization.SelfSubjectRulesReview](),
}

// discoveryProtobufTypes are the Go types of the discovery documents
// (meta/v1 APIResourceList, APIGroup, APIGroupList, APIVersions), which
// kube-apiserver answers in protobuf when asked. The core group's
// documents (/api, /api/v1) carry no apiVersion upstream, so they are
// registered under "" too.
var discoveryProtobufTypes = map[pbKindKey]reflect.Type{
	{"v1", "APIResourceList"}: reflect.TypeFor[meta.APIResourceList](),
	{"", "APIResourceList"}:   reflect.TypeFor[meta.APIResourceList](),
	{"v1", "APIGroup"}:        reflect.TypeFor[meta.APIGroup](),
	{"v1", "APIGroupList"}:    reflect.TypeFor[meta.APIGroupList](),
	{"", "APIVersions"}:       reflect.TypeFor[meta.APIVersions](),
	{"v1", "APIVersions"}:     reflect.TypeFor[meta.APIVersions](),
}

// hasProtobufTags reports whether any field of struct type t has a
// protobuf struct tag.
func hasProtobufTags(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("protobuf") != "" {
			return true
		}
	}
	return false
}

// protobufSchemaOf returns the schema of struct type t: one field per Go
// field with a protobuf tag, in declaration order. Schemas are shared
// through cache (one *pbType per Go type). Errors: a malformed protobuf
// tag, a wire type or cardinality that does not match the Go type, a Go
// type without a protobuf shape, or an unknown +protobuf:emit value.
func protobufSchemaOf(t reflect.Type, cache map[reflect.Type]*pbType) (*pbType, error) {
	if s, ok := cache[t]; ok {
		return s, nil
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf schema of %v: not a struct", t)
	}
	s := &pbType{name: t.Name()}
	cache[t] = s
	doc, _ := apidoc.Lookup(t)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Tag.Get("protobuf") == "" {
			continue
		}
		f, err := protobufField(sf, doc.Field(sf.Name), cache)
		if err != nil {
			delete(cache, t)
			return nil, fmt.Errorf("%v.%s: %w", t, sf.Name, err)
		}
		s.fields = append(s.fields, f)
	}
	return s, nil
}

// protobufField derives one field from its Go struct field and its
// generated documentation (nil when it has none).
func protobufField(sf reflect.StructField, doc *apidoc.Field, cache map[reflect.Type]*pbType) (pbField, error) {
	parts := strings.Split(sf.Tag.Get("protobuf"), ",")
	if len(parts) < 4 || !strings.HasPrefix(parts[3], "name=") {
		return pbField{}, fmt.Errorf("protobuf tag %q: want wiretype,number,opt|rep,name=...", sf.Tag.Get("protobuf"))
	}
	num, err := strconv.ParseInt(parts[1], 10, 32)
	if err != nil || num < 1 {
		return pbField{}, fmt.Errorf("protobuf tag %q: bad field number", sf.Tag.Get("protobuf"))
	}
	name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		return pbField{}, fmt.Errorf("json tag %q: a protobuf field needs a JSON name", sf.Tag.Get("json"))
	}
	omit := false
	for _, o := range strings.Split(opts, ",") {
		omit = omit || o == "omitempty" || o == "omitzero"
	}
	f := pbField{num: int32(num), name: name}

	ft := sf.Type
	pointer := ft.Kind() == reflect.Pointer
	if pointer {
		ft = ft.Elem()
	}
	f.rep = ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 && ft != pbVerbsType
	if f.rep {
		ft = ft.Elem()
	}
	isMap := false
	switch {
	case ft == pbTimeType:
		f.kind = pbTime
	case ft == pbMicroTimeType:
		f.kind, f.micro = pbTime, true
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem() == pbQuantityType:
		f.kind, f.quantities, isMap = pbStringMap, true, true
	case ft == pbIntOrStringType:
		f.kind = pbIntOrString
	case ft == pbFieldsV1Type:
		f.kind = pbRawJSON
	case ft == pbVerbsType:
		f.kind = pbStringList
	case ft.Kind() == reflect.Struct:
		f.kind = pbMessage
		if f.msg, err = protobufSchemaOf(ft, cache); err != nil {
			return pbField{}, err
		}
	case ft.Kind() == reflect.String:
		f.kind = pbString
	case ft.Kind() == reflect.Int32:
		f.kind = pbInt32
	case ft.Kind() == reflect.Int64:
		f.kind = pbInt64
	case ft.Kind() == reflect.Bool:
		f.kind = pbBool
	case ft.Kind() == reflect.Slice: // of bytes
		f.kind = pbBytes
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.String:
		f.kind, isMap = pbStringMap, true
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.Slice && ft.Elem().Elem().Kind() == reflect.Uint8:
		f.kind, isMap = pbBytesMap, true
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.Slice && ft.Elem().Elem().Kind() == reflect.String:
		// Upstream's map[string]ExtraValue (authentication and
		// authorization UserInfo extras).
		f.kind, isMap = pbStringListMap, true
	default:
		return pbField{}, fmt.Errorf("Go type %v has no protobuf shape", sf.Type)
	}
	if want := wireTypeName(f.kind); parts[0] != want {
		return pbField{}, fmt.Errorf("protobuf tag %q: wire type of %v is %s", sf.Tag.Get("protobuf"), sf.Type, want)
	}
	if want := f.rep || isMap; (parts[2] == "rep") != want || (parts[2] != "opt" && parts[2] != "rep") {
		return pbField{}, fmt.Errorf("protobuf tag %q: %v wants %s", sf.Tag.Get("protobuf"), sf.Type, map[bool]string{true: "rep", false: "opt"}[want])
	}

	switch {
	case pointer || f.kind == pbRawJSON:
		// Present exactly when set (a FieldsV1 stands for upstream's
		// pointer: nil is absent).
		f.emit = emitIfSet
	case f.rep:
		f.emit = map[bool]pbEmit{true: emitOmitEmpty, false: emitAlways}[omit]
	case ft.Kind() == reflect.Struct:
		// encoding/json never omits a struct for omitempty, only for
		// omitzero.
		f.emit = map[bool]pbEmit{true: emitOmitEmpty, false: emitAlways}[strings.Contains(","+opts+",", ",omitzero,")]
	default:
		f.emit = map[bool]pbEmit{true: emitOmitEmpty, false: emitAlways}[omit]
	}
	if doc != nil {
		if v, ok := doc.Markers.Get("protobuf:emit"); ok {
			switch v {
			case "always":
				f.emit = emitAlways
			case "omitempty":
				f.emit = emitOmitEmpty
			default:
				return pbField{}, fmt.Errorf("+protobuf:emit=%s: want always or omitempty", v)
			}
		}
	}
	return f, nil
}

// wireTypeName is the wire type a protobuf struct tag names for kind k.
func wireTypeName(k pbKind) string {
	switch k {
	case pbInt32, pbInt64, pbBool:
		return "varint"
	}
	return "bytes"
}

// protobufSchemaFor returns the schema of apiVersion/kind, or nil when
// aggsim has no protobuf schema for it. DeleteOptions and Status are
// registered in every version upstream serves them from (v1,
// meta.k8s.io/v1 and the apiregistration group).
func protobufSchemaFor(apiVersion, kind string) *pbType {
	s := protobufSchemas()
	if t := s.kinds[pbKindKey{apiVersion, kind}]; t != nil {
		return t
	}
	if apiVersion == "v1" || strings.HasSuffix(apiVersion, "/v1") {
		switch kind {
		case "DeleteOptions":
			return s.deleteOptions
		case "Status":
			return s.status
		}
	}
	return nil
}
