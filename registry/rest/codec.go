package rest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"sigs.k8s.io/yaml"
)

// MaxRequestBodyBytes is the largest request body the REST layer reads
// (kube-apiserver's MaxRequestBodyBytes default, 3 MiB); larger bodies
// are 413 `Request entity too large: limit is 3145728`.
const MaxRequestBodyBytes = 3 * 1024 * 1024

// ReadBody reads the request body up to MaxRequestBodyBytes: a larger
// body (by Content-Length or by what arrives) is 413 RequestEntityTooLarge,
// a read error 400 BadRequest; no body is nil.
func ReadBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	if r.ContentLength > MaxRequestBodyBytes {
		return nil, meta.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d", MaxRequestBodyBytes))
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBodyBytes+1))
	if err != nil {
		return nil, meta.NewBadRequest(err.Error())
	}
	if len(b) > MaxRequestBodyBytes {
		return nil, meta.NewRequestEntityTooLarge(fmt.Sprintf("limit is %d", MaxRequestBodyBytes))
	}
	return b, nil
}

// BodyToJSON converts a request body of the given Content-Type to JSON.
// JSON (or no Content-Type) passes through; YAML (application/yaml,
// application/x-yaml, text/yaml) and protobuf are converted (a bad body is
// 400 BadRequest); anything else is 415 UnsupportedMediaType.
func BodyToJSON(contentType string, body []byte) ([]byte, error) {
	mt := negotiation.MediaJSON
	if strings.TrimSpace(contentType) != "" {
		t, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, meta.NewUnsupportedMediaType(negotiation.SupportedMediaTypes)
		}
		mt = t
	}
	switch mt {
	case negotiation.MediaProtobuf:
		j, _, _, err := DecodeProtobufToJSON(body)
		if err != nil {
			return nil, meta.NewBadRequest(err.Error())
		}
		return j, nil
	case negotiation.MediaJSON:
		return body, nil
	case negotiation.MediaYAML, "application/x-yaml", "text/yaml":
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, meta.NewBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
		}
		return j, nil
	}
	return nil, meta.NewUnsupportedMediaType(negotiation.SupportedMediaTypes)
}

// bodyToJSONFor is BodyToJSON for a request body meant to be an object of
// info's kind, with upstream's create/update decode errors
// (transformDecodeError in apiserver endpoints/handlers/rest.go): YAML
// that does not parse is `the object provided is unrecognized (must be of
// type <info.Kind>): <yaml error> (<summary>)`; a protobuf body whose
// runtime.Unknown names a kind is checked as checkKind checks it, one
// that names none is unrecognized.
func bodyToJSONFor(contentType string, body []byte, info registry.ResourceInfo) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return BodyToJSON(contentType, body)
	}
	switch mt {
	case negotiation.MediaYAML, "application/x-yaml", "text/yaml":
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, unrecognized(info, err, body)
		}
		return j, nil
	case negotiation.MediaProtobuf:
	default:
		return BodyToJSON(contentType, body)
	}
	j, apiVersion, kind, err := DecodeProtobufToJSON(body)
	if kind == "" {
		if err == nil {
			err = fmt.Errorf("Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:%q, Kind:\"\"}'", apiVersion)
		}
		return nil, unrecognized(info, err, body)
	}
	if kerr := checkKind(apiVersion, kind, info); kerr != nil {
		// Upstream looks the kind up before it decodes the body, and
		// converts after: a kind other than info's fails either way.
		return nil, kerr
	}
	if err != nil {
		version := apiVersion[strings.LastIndexByte(apiVersion, '/')+1:]
		return nil, meta.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, version, info.Kind, err))
	}
	return j, nil
}

// DecodeCreate reads and decodes the body of a create of a kind that has
// no store (the review kinds, described by info) into into, exactly as the
// create handler decodes a stored kind's: CreateOptions from the query
// (422 for a bad dryRun, fieldManager or fieldValidation), the bounded
// body (413), JSON, YAML or protobuf (415 otherwise), upstream's 400
// texts, and field validation (Strict: 400 `strict decoding error: ...`;
// Warn, the default: the problems as Warning headers on w). The kind and
// apiVersion of into are set to info's.
func DecodeCreate(w http.ResponseWriter, r *http.Request, info registry.ResourceInfo, into meta.Object) error {
	o, err := writeOptionsFromQuery(r, "CreateOptions")
	if err != nil {
		return err
	}
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	j, err := bodyToJSONFor(r.Header.Get("Content-Type"), body, info)
	if err != nil {
		return err
	}
	warnings, err := decodeObject(j, info, into, decodeOptions{fieldValidation: o.fieldValidation, original: body})
	if err != nil {
		return err
	}
	for _, wn := range warnings {
		negotiation.AddWarning(w, wn)
	}
	return nil
}

// Field validation directives (?fieldValidation=).
const (
	FieldValidationStrict = "Strict"
	FieldValidationWarn   = "Warn"
	FieldValidationIgnore = "Ignore"
)

// decodeOptions steer decodeObject.
type decodeOptions struct {
	fieldValidation string // Strict, Warn (default) or Ignore
	// original is the request body as sent when it was converted to JSON
	// (YAML): upstream's summaries of undecodable bodies quote it.
	original []byte
}

// decodeObject decodes a JSON request body into into (an object of info's
// kind). A missing kind or apiVersion defaults to info's. Errors are
// upstream's 400s: `the object provided is unrecognized (must be of type
// <Kind>): couldn't get version/kind; json parse error: ... (<summary>)`
// for a body that is no JSON object (an empty one included), checkKind's
// for another kind or version, `<Kind> in version "<v>" cannot be handled
// as a <Kind>: <err>` for type errors, and with Strict field validation
// `strict decoding error: unknown field "spec.foo", duplicate field "x"`.
// With Warn the same texts come back as warnings. Summaries quote
// opts.original, the request body as sent, when set (YAML), else body.
func decodeObject(body []byte, info registry.ResourceInfo, into meta.Object, opts decodeOptions) (warnings []string, err error) {
	// Find the kind as upstream's serializer does (json.Unmarshal into a
	// struct of apiVersion and kind): its errors, nesting deeper than
	// 10,000 levels included, are encoding/json's, checked before anything
	// is built.
	var findKind struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	if err := json.Unmarshal(body, &findKind); err != nil {
		original := body
		if opts.original != nil {
			original = opts.original
		}
		return nil, unrecognized(info, fmt.Errorf("couldn't get version/kind; json parse error: %w", err), original)
	}
	kind, apiVersion := findKind.Kind, findKind.APIVersion
	if kind == "" {
		kind = info.Kind
	}
	if apiVersion == "" {
		apiVersion = info.APIVersion()
	}
	version := apiVersion
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		version = apiVersion[i+1:]
	}
	if err := checkKind(apiVersion, kind, info); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, into); err != nil {
		return nil, meta.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, version, info.Kind, err))
	}
	tm := into.GetTypeMeta()
	tm.Kind, tm.APIVersion = info.Kind, info.APIVersion()
	if opts.fieldValidation == FieldValidationIgnore {
		return nil, nil
	}
	problems := strictProblems(body, reflect.TypeOf(into))
	if len(problems) == 0 {
		return nil, nil
	}
	if opts.fieldValidation == FieldValidationStrict {
		return nil, meta.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: strict decoding error: %s", kind, version, info.Kind, strings.Join(problems, ", ")))
	}
	return problems, nil
}

// unrecognized is upstream's 400 for a body whose kind cannot be found
// (transformDecodeError in apiserver endpoints/handlers/create.go):
// `the object provided is unrecognized (must be of type <Kind>): <err>
// (<summary>)`, the summary being the first 30 bytes of a JSON object or the
// hex of anything else, " ..." when cut.
func unrecognized(info registry.ResourceInfo, err error, body []byte) error {
	const max = 30
	var summary string
	switch {
	case len(body) == 0:
		summary = "<empty>"
	case body[0] == '{' && len(body) > max:
		summary = string(body[:max]) + " ..."
	case body[0] == '{':
		summary = string(body)
	case len(body) > max:
		summary = hex.EncodeToString(body[:max]) + " ..."
	default:
		summary = hex.EncodeToString(body)
	}
	return meta.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", info.Kind, err, summary))
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "object"
}

// strictProblems reports, in document order as upstream's strict decoder
// does, the keys of the JSON document b that the Go type t does not know
// (`unknown field "spec.foo"`, JSON names matched case-sensitively) and
// repeated keys (`duplicate field "spec.group"`). Below a type that decodes
// itself (json.Unmarshaler) or a free-form value nothing is unknown. The
// caller has already decoded b with json.Unmarshal (so it is valid and
// nested at most 10,000 levels); the walk builds no values, only the key
// set of the object being read, and keeps the path as a stack of segments
// joined only for a problem, so its memory stays linear in the input.
func strictProblems(b []byte, t reflect.Type) []string {
	p := strictWalker{dec: json.NewDecoder(bytes.NewReader(b))}
	if err := p.value(schemaOf(t)); err != nil {
		return nil // unreachable: b decoded before
	}
	return p.problems
}

// strictWalker is strictProblems' state: the decoder, the path segments of
// the value being read ("key" or "[i]") and the problems found.
type strictWalker struct {
	dec      *json.Decoder
	path     []string
	problems []string
}

// pathString joins the segments: "a.b[0].c".
func (p *strictWalker) pathString() string {
	var sb strings.Builder
	for _, seg := range p.path {
		if sb.Len() > 0 && (seg == "" || seg[0] != '[') {
			sb.WriteByte('.')
		}
		sb.WriteString(seg)
	}
	return sb.String()
}

// strictSchema is what the strict walk knows of the Go type a value
// decodes into: the fields of a struct, or the element of a map, slice or
// array. nil means anything goes.
type strictSchema struct {
	fields map[string]reflect.Type // struct: JSON name → Go type
	elem   reflect.Type            // map, slice, array
}

// schemas caches schemaOf per Go type: a type's fields are worked out once,
// not on every request.
var schemas sync.Map // reflect.Type → *strictSchema

// schemaOf returns the schema of t, nil when nothing below t is checked
// (json.Unmarshaler, []byte, interfaces, scalars).
func schemaOf(t reflect.Type) *strictSchema {
	if t == nil {
		return nil
	}
	if sc, ok := schemas.Load(t); ok {
		return sc.(*strictSchema)
	}
	sc := buildSchema(t)
	schemas.Store(t, sc)
	return sc
}

func buildSchema(t reflect.Type) *strictSchema {
	for t.Kind() == reflect.Pointer {
		if t.Implements(jsonUnmarshalerType) {
			return nil
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshalerType) || t.Implements(jsonUnmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return &strictSchema{fields: jsonFields(t)}
	case reflect.Map, reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is a base64 string
		}
		return &strictSchema{elem: t.Elem()}
	}
	return nil
}

// value walks one JSON value whose Go type has schema sc.
func (p *strictWalker) value(sc *strictSchema) error {
	tok, err := p.dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		seen := map[string]struct{}{}
		for p.dec.More() {
			kt, err := p.dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			p.path = append(p.path, k)
			var child *strictSchema
			switch {
			case sc == nil:
			case sc.fields != nil:
				if ft, known := sc.fields[k]; known {
					child = schemaOf(ft)
				} else {
					p.problems = append(p.problems, fmt.Sprintf("unknown field %q", p.pathString()))
				}
			case sc.elem != nil:
				child = schemaOf(sc.elem)
			}
			if err := p.value(child); err != nil {
				return err
			}
			if _, dup := seen[k]; dup {
				p.problems = append(p.problems, fmt.Sprintf("duplicate field %q", p.pathString()))
			}
			seen[k] = struct{}{}
			p.path = p.path[:len(p.path)-1]
		}
		_, err := p.dec.Token()
		return err
	case '[':
		var child *strictSchema
		if sc != nil && sc.elem != nil {
			child = schemaOf(sc.elem)
		}
		for i := 0; p.dec.More(); i++ {
			p.path = append(p.path, "["+strconv.Itoa(i)+"]")
			if err := p.value(child); err != nil {
				return err
			}
			p.path = p.path[:len(p.path)-1]
		}
		_, err := p.dec.Token()
		return err
	}
	return nil
}

var jsonUnmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// maxFieldPathLen bounds the dotted field paths the REST layer builds while
// walking a document (for merge-key lookups and unknown-field messages).
// No merge key or typed field lies this deep; beyond it joinPath returns
// deepFieldPath, which matches nothing, so walking a document nested up to
// MaxJSONDepth costs memory linear in its depth.
const maxFieldPathLen = 4096

// deepFieldPath stands for any field path longer than maxFieldPathLen.
const deepFieldPath = "<deep>"

// joinPath returns "base.key" ("key" when base is empty), or deepFieldPath
// once the path would exceed maxFieldPathLen.
func joinPath(base, key string) string {
	switch {
	case base == deepFieldPath || len(base)+1+len(key) > maxFieldPathLen:
		return deepFieldPath
	case base == "":
		return key
	}
	return base + "." + key
}
