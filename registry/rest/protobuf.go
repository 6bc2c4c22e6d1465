package rest

// Kubernetes protobuf bodies (Content-Type application/vnd.kubernetes.protobuf)
// for the kinds in protobuf_schema.go, converted to and from the JSON the
// rest of the registry speaks. A body is the 4-byte magic "k8s\x00" and a
// runtime.Unknown message {typeMeta 1: {apiVersion 1, kind 2}, raw 2,
// contentEncoding 3, contentType 4} whose raw is the object's generated
// protobuf message (k8s.io/apimachinery/pkg/runtime/serializer/protobuf/
// protobuf.go, k8s.io/apimachinery/pkg/runtime/generated.proto).

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"google.golang.org/protobuf/encoding/protowire"
)

// ProtobufMagic is the prefix of every Kubernetes protobuf body ("k8s\x00").
const ProtobufMagic = "k8s\x00"

// zeroTimeSeconds is time.Time{}.Unix(): a Time message holding it (and no
// nanoseconds) decodes to the zero time upstream.
const zeroTimeSeconds = -62135596800

// DecodeProtobufToJSON converts a Kubernetes protobuf request body into the
// JSON encoding of the same object, as encoding/json would write the
// upstream Go type (kind and apiVersion first, then the fields in Go struct
// order; zero values omitted where the Go type's json tag says omitempty).
// apiVersion and kind are the ones in the body's runtime.Unknown typeMeta.
//
// Unknown field numbers are skipped, as upstream's generated unmarshallers
// skip them (field validation does not apply to protobuf). Errors carry
// upstream's texts where there is one: "empty data", "provided data does
// not appear to be a protobuf message, expected prefix [107 56 115 0]",
// "empty body", "Object 'Kind' is missing in ...", and `no kind "X" is
// registered for version "v"` for kinds without a schema; malformed
// messages give "proto: ..." errors naming the type and field. Callers
// answer any error as 400 BadRequest.
//
// It mirrors the decode half of k8s.io/apimachinery/pkg/runtime/serializer/
// protobuf/protobuf.go followed by the JSON serializer.
func DecodeProtobufToJSON(body []byte) (jsonBytes []byte, apiVersion, kind string, err error) {
	switch {
	case len(body) == 0:
		return nil, "", "", errors.New("empty data")
	case !bytes.HasPrefix(body, []byte(ProtobufMagic)):
		return nil, "", "", fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %v", []byte(ProtobufMagic))
	case len(body) == len(ProtobufMagic):
		return nil, "", "", errors.New("empty body")
	}
	apiVersion, kind, raw, err := parseUnknown(body[len(ProtobufMagic):])
	if err != nil {
		return nil, "", "", err
	}
	if kind == "" {
		return nil, apiVersion, kind, fmt.Errorf("Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:%q, Kind:\"\"}'", apiVersion)
	}
	if apiVersion == "" {
		return nil, apiVersion, kind, fmt.Errorf("Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:\"\", Kind:%q}'", kind)
	}
	t := protobufSchemaFor(apiVersion, kind)
	if t == nil {
		return nil, apiVersion, kind, fmt.Errorf("no kind %q is registered for version %q", kind, apiVersion)
	}
	v := newPBValue(t)
	if err := v.decode(raw); err != nil {
		return nil, apiVersion, kind, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"kind":`)
	writeJSONString(&buf, kind)
	buf.WriteString(`,"apiVersion":`)
	writeJSONString(&buf, apiVersion)
	v.writeFields(&buf, true)
	buf.WriteByte('}')
	return buf.Bytes(), apiVersion, kind, nil
}

// parseUnknown reads runtime.Unknown: the typeMeta and raw fields;
// contentEncoding and contentType are read and ignored, as upstream's
// decoder ignores them.
func parseUnknown(b []byte) (apiVersion, kind string, raw []byte, err error) {
	err = walkMessage(b, "Unknown", func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch num {
		case 1:
			if typ != protowire.BytesType {
				return wrongWireType("Unknown", "typeMeta", typ)
			}
			return walkMessage(v, "TypeMeta", func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num != 1 && num != 2 {
					return nil
				}
				if typ != protowire.BytesType {
					return wrongWireType("TypeMeta", map[protowire.Number]string{1: "apiVersion", 2: "kind"}[num], typ)
				}
				if num == 1 {
					apiVersion = string(v)
				} else {
					kind = string(v)
				}
				return nil
			})
		case 2, 3, 4:
			if typ != protowire.BytesType {
				return wrongWireType("Unknown", map[protowire.Number]string{2: "raw", 3: "contentEncoding", 4: "contentType"}[num], typ)
			}
			if num == 2 {
				raw = v
			}
		}
		return nil
	})
	return apiVersion, kind, raw, err
}

// walkMessage calls fn for each field of the protobuf message b: v is the
// payload of a length-delimited field, x the value of a varint or fixed
// field. Groups are skipped. A truncated or malformed message is an error.
func walkMessage(b []byte, typeName string, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protoParseError(typeName, n)
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		case protowire.Fixed32Type:
			var x32 uint32
			x32, n = protowire.ConsumeFixed32(b)
			x = uint64(x32)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protoParseError(typeName, n)
			}
			b = b[n:]
			continue
		}
		if n < 0 {
			return protoParseError(typeName, n)
		}
		b = b[n:]
		if err := fn(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

// protoParseError describes a protowire parse failure (n < 0) inside
// typeName, as "proto: <Type>: <reason>".
func protoParseError(typeName string, n int) error {
	// protowire's texts start with "proto:" and a space that is sometimes
	// U+00A0 (deliberately unstable); keep only the reason.
	reason := strings.TrimLeft(strings.TrimPrefix(protowire.ParseError(n).Error(), "proto:"), " \u00a0")
	return fmt.Errorf("proto: %s: %s", typeName, reason)
}

func wrongWireType(typeName, field string, typ protowire.Type) error {
	return fmt.Errorf("proto: wrong wireType = %d for field %s.%s", typ, typeName, field)
}

// pbValue is one decoded message: vals[i] holds the value of t.fields[i]
// (nil when absent). Scalars are string, int64, bool or []byte; messages
// *pbValue; Time pbTimeValue; IntOrString *pbIntOrStringValue; maps
// map[string]string or map[string][]byte; repeated fields []any.
type pbValue struct {
	t    *pbType
	vals []any
}

// pbTimeValue is a decoded meta/v1 Time. Upstream writes an unset Time as
// an empty message, which decodes to the zero time; an explicit
// {seconds: 0} is the Unix epoch.
type pbTimeValue struct {
	seconds int64
	nanos   int32
	empty   bool // the message had no bytes
}

type pbIntOrStringValue struct {
	typ    int64
	intVal int32
	strVal string
}

func newPBValue(t *pbType) *pbValue { return &pbValue{t: t, vals: make([]any, len(t.fields))} }

// wireTypeOf is the protobuf wire type a field of kind k uses.
func wireTypeOf(k pbKind) protowire.Type {
	switch k {
	case pbInt32, pbInt64, pbBool:
		return protowire.VarintType
	}
	return protowire.BytesType
}

// decode merges the protobuf message b into v, with proto2 semantics:
// a repeated scalar appends, a singular scalar is replaced, a singular
// message is merged.
func (v *pbValue) decode(b []byte) error {
	return walkMessage(b, v.t.name, func(num protowire.Number, typ protowire.Type, payload []byte, x uint64) error {
		i, f := v.t.field(int32(num))
		if f == nil {
			return nil
		}
		if typ != wireTypeOf(f.kind) {
			return wrongWireType(v.t.name, f.name, typ)
		}
		var cur any
		if !f.rep {
			cur = v.vals[i]
		}
		val, err := decodeFieldValue(v.t, f, cur, payload, x)
		if err != nil {
			return err
		}
		if f.rep {
			list, _ := v.vals[i].([]any)
			v.vals[i] = append(list, val)
		} else {
			v.vals[i] = val
		}
		return nil
	})
}

// decodeFieldValue decodes one occurrence of field f; cur is the value
// already held for a singular field (merged into for messages and maps).
func decodeFieldValue(t *pbType, f *pbField, cur any, payload []byte, x uint64) (any, error) {
	switch f.kind {
	case pbString:
		return string(payload), nil
	case pbInt32:
		return int64(int32(x)), nil
	case pbInt64:
		return int64(x), nil
	case pbBool:
		return x != 0, nil
	case pbBytes:
		return bytes.Clone(payload), nil
	case pbRawJSON:
		var raw []byte
		err := walkMessage(payload, "FieldsV1", func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
			if num != 1 {
				return nil
			}
			if typ != protowire.BytesType {
				return wrongWireType("FieldsV1", "Raw", typ)
			}
			raw = bytes.Clone(v)
			return nil
		})
		return raw, err
	case pbMessage:
		m, ok := cur.(*pbValue)
		if !ok {
			m = newPBValue(f.msg)
		}
		return m, m.decode(payload)
	case pbTime:
		tv := pbTimeValue{empty: len(payload) == 0}
		err := walkMessage(payload, "Time", func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) error {
			if num != 1 && num != 2 {
				return nil
			}
			if typ != protowire.VarintType {
				return wrongWireType("Time", map[protowire.Number]string{1: "seconds", 2: "nanos"}[num], typ)
			}
			if num == 1 {
				tv.seconds = int64(x)
			} else {
				tv.nanos = int32(x)
			}
			return nil
		})
		return tv, err
	case pbIntOrString:
		is, ok := cur.(*pbIntOrStringValue)
		if !ok {
			is = &pbIntOrStringValue{}
		}
		err := walkMessage(payload, "IntOrString", func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
			want := protowire.VarintType
			name := map[protowire.Number]string{1: "type", 2: "intVal", 3: "strVal"}[num]
			switch num {
			case 1, 2:
			case 3:
				want = protowire.BytesType
			default:
				return nil
			}
			if typ != want {
				return wrongWireType("IntOrString", name, typ)
			}
			switch num {
			case 1:
				is.typ = int64(x)
			case 2:
				is.intVal = int32(x)
			case 3:
				is.strVal = string(v)
			}
			return nil
		})
		return is, err
	case pbStringMap, pbBytesMap:
		key, val, err := decodeMapEntry(t, f, payload)
		if err != nil {
			return nil, err
		}
		if f.kind == pbStringMap {
			m, ok := cur.(map[string]string)
			if !ok {
				m = map[string]string{}
			}
			if f.quantities {
				// resource.Quantity{optional string string = 1}
				var q string
				err := walkMessage(val, "Quantity", func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
					if num != 1 {
						return nil
					}
					if typ != protowire.BytesType {
						return wrongWireType("Quantity", "string", typ)
					}
					q = string(v)
					return nil
				})
				if err != nil {
					return nil, err
				}
				val = []byte(q)
			}
			m[key] = string(val)
			return m, nil
		}
		m, ok := cur.(map[string][]byte)
		if !ok {
			m = map[string][]byte{}
		}
		m[key] = bytes.Clone(val)
		return m, nil
	case pbStringList:
		// Verbs{repeated string items = 1}: a present message is a
		// non-nil list (JSON [] when it has no items); occurrences merge.
		items, _ := cur.([]string)
		if items == nil {
			items = []string{}
		}
		err := walkMessage(payload, "Verbs", func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
			if num != 1 {
				return nil
			}
			if typ != protowire.BytesType {
				return wrongWireType("Verbs", "items", typ)
			}
			items = append(items, string(v))
			return nil
		})
		return items, err
	case pbStringListMap:
		key, val, err := decodeMapEntry(t, f, payload)
		if err != nil {
			return nil, err
		}
		// ExtraValue{repeated string items = 1}. Upstream's generated
		// unmarshaller starts every value as &ExtraValue{}, a non-nil empty
		// slice: a value without items is JSON [], never null.
		items := []string{}
		err = walkMessage(val, "ExtraValue", func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
			if num != 1 {
				return nil
			}
			if typ != protowire.BytesType {
				return wrongWireType("ExtraValue", "items", typ)
			}
			items = append(items, string(v))
			return nil
		})
		if err != nil {
			return nil, err
		}
		m, ok := cur.(map[string][]string)
		if !ok {
			m = map[string][]string{}
		}
		m[key] = items
		return m, nil
	}
	return nil, fmt.Errorf("proto: %s.%s: unsupported field kind %d", t.name, f.name, f.kind)
}

// decodeMapEntry reads a map entry message {key 1, value 2}; a missing key
// or value is the empty string.
func decodeMapEntry(t *pbType, f *pbField, b []byte) (key string, val []byte, err error) {
	err = walkMessage(b, t.name+"."+f.name, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != 1 && num != 2 {
			return nil
		}
		if typ != protowire.BytesType {
			return wrongWireType(t.name, f.name, typ)
		}
		if num == 1 {
			key = string(v)
		} else {
			val = v
		}
		return nil
	})
	return key, val, err
}

// writeFields writes v's fields as `"name":value` pairs, each preceded by
// a comma when comma is true (or after the first pair).
func (v *pbValue) writeFields(buf *bytes.Buffer, comma bool) {
	for i := range v.t.fields {
		f := &v.t.fields[i]
		val := v.vals[i]
		if !f.shouldWrite(val) {
			continue
		}
		if comma {
			buf.WriteByte(',')
		}
		comma = true
		writeJSONString(buf, f.name)
		buf.WriteByte(':')
		if f.rep {
			list, _ := val.([]any)
			if list == nil {
				buf.WriteString("null") // an absent `items`, as encoding/json writes a nil slice
				continue
			}
			buf.WriteByte('[')
			for j, e := range list {
				if j > 0 {
					buf.WriteByte(',')
				}
				writeFieldValue(buf, f, e)
			}
			buf.WriteByte(']')
			continue
		}
		writeFieldValue(buf, f, val)
	}
}

// writeJSON writes v as a JSON object.
func (v *pbValue) writeJSON(buf *bytes.Buffer) {
	buf.WriteByte('{')
	v.writeFields(buf, false)
	buf.WriteByte('}')
}

// shouldWrite applies f.emit to the decoded value val (nil when absent).
func (f *pbField) shouldWrite(val any) bool {
	switch f.emit {
	case emitIfSet:
		return val != nil
	case emitAlways:
		return true
	}
	if val == nil {
		return false
	}
	if f.rep {
		return true // present means at least one element
	}
	switch x := val.(type) {
	case string:
		return x != ""
	case int64:
		return x != 0
	case bool:
		return x
	case []byte:
		return len(x) > 0
	case pbTimeValue:
		return !x.isZero()
	case map[string]string:
		return len(x) > 0
	case map[string][]byte:
		return len(x) > 0
	case map[string][]string:
		return len(x) > 0
	case []string:
		return len(x) > 0
	}
	return true
}

// isZero reports whether tv decodes to time.Time{} upstream: an empty
// message, or the seconds of year 1 with no nanoseconds.
func (tv pbTimeValue) isZero() bool {
	return tv.empty || (tv.seconds == zeroTimeSeconds && tv.nanos == 0)
}

// writeFieldValue writes one value of field f; nil writes f's zero value.
func writeFieldValue(buf *bytes.Buffer, f *pbField, val any) {
	switch f.kind {
	case pbString:
		s, _ := val.(string)
		writeJSONString(buf, s)
	case pbInt32, pbInt64:
		n, _ := val.(int64)
		buf.WriteString(strconv.FormatInt(n, 10))
	case pbBool:
		b, _ := val.(bool)
		buf.WriteString(strconv.FormatBool(b))
	case pbBytes:
		b, _ := val.([]byte)
		writeJSONString(buf, base64.StdEncoding.EncodeToString(b))
	case pbRawJSON:
		b, _ := val.([]byte)
		if len(b) == 0 || !json.Valid(b) {
			// Upstream's FieldsV1 writes empty raw as null; raw that is not
			// JSON (CBOR) is not something aggsim stores.
			buf.WriteString("null")
			return
		}
		_ = json.Compact(buf, b)
	case pbMessage:
		m, ok := val.(*pbValue)
		if !ok {
			m = newPBValue(f.msg)
		}
		m.writeJSON(buf)
	case pbTime:
		tv, ok := val.(pbTimeValue)
		if !ok || tv.isZero() {
			buf.WriteString("null")
			return
		}
		layout := time.RFC3339
		if f.micro {
			layout = meta.RFC3339Micro
		}
		writeJSONString(buf, time.Unix(tv.seconds, int64(tv.nanos)).UTC().Format(layout))
	case pbIntOrString:
		is, _ := val.(*pbIntOrStringValue)
		switch {
		case is == nil:
			buf.WriteByte('0')
		case is.typ == 1:
			writeJSONString(buf, is.strVal)
		default:
			buf.WriteString(strconv.FormatInt(int64(is.intVal), 10))
		}
	case pbStringMap:
		m, _ := val.(map[string]string)
		writeJSONStringMap(buf, m, func(v string) string { return v })
	case pbBytesMap:
		m, _ := val.(map[string][]byte)
		writeJSONStringMap(buf, m, base64.StdEncoding.EncodeToString)
	case pbStringList:
		l, ok := val.([]string)
		if !ok {
			buf.WriteString("null") // absent: upstream's nil Verbs
			return
		}
		buf.WriteByte('[')
		for j, e := range l {
			if j > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, e)
		}
		buf.WriteByte(']')
	case pbStringListMap:
		m, _ := val.(map[string][]string)
		buf.WriteByte('{')
		for i, k := range pbSortedKeys(m) {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k)
			buf.WriteByte(':')
			if m[k] == nil {
				buf.WriteString("null")
				continue
			}
			buf.WriteByte('[')
			for j, e := range m[k] {
				if j > 0 {
					buf.WriteByte(',')
				}
				writeJSONString(buf, e)
			}
			buf.WriteByte(']')
		}
		buf.WriteByte('}')
	}
}

// writeJSONStringMap writes m as a JSON object, keys sorted as
// encoding/json sorts them, each value the JSON string str(value).
func writeJSONStringMap[V any](buf *bytes.Buffer, m map[string]V, str func(V) string) {
	buf.WriteByte('{')
	for i, k := range pbSortedKeys(m) {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(buf, k)
		buf.WriteByte(':')
		writeJSONString(buf, str(m[k]))
	}
	buf.WriteByte('}')
}

func pbSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeJSONString writes s as a JSON string (invalid UTF-8 becomes U+FFFD,
// as encoding/json does).
func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

// EncodeJSONToProtobuf converts the JSON encoding of an object of
// apiVersion/kind into a Kubernetes protobuf body ("k8s\x00" + a
// runtime.Unknown with the typeMeta set and raw holding the object), the
// form a kube-apiserver answers `Accept: application/vnd.kubernetes.protobuf`
// with. JSON keys without a protobuf field (including kind and apiVersion)
// are ignored. As upstream's generated marshallers do, fields are written
// in field-number order, map entries sorted by key, and non-pointer fields
// even when null or absent (as their zero value), so the bytes equal
// client-go's encoding of the same object. Errors: `no kind
// "X" is registered for version "v"`, malformed JSON, and type mismatches
// ("Service.spec.ports[0].port: expected an int32, got ...").
//
// It mirrors the encode half of k8s.io/apimachinery/pkg/runtime/serializer/
// protobuf/protobuf.go.
func EncodeJSONToProtobuf(jsonBytes []byte, apiVersion, kind string) ([]byte, error) {
	t := protobufSchemaFor(apiVersion, kind)
	if t == nil {
		return nil, fmt.Errorf("no kind %q is registered for version %q", kind, apiVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(jsonBytes))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("decode %s JSON: %w", kind, err)
	}
	raw, err := encodeMessage(nil, t, obj, kind)
	if err != nil {
		return nil, err
	}
	var tm []byte
	tm = protowire.AppendTag(tm, 1, protowire.BytesType)
	tm = protowire.AppendString(tm, apiVersion)
	tm = protowire.AppendTag(tm, 2, protowire.BytesType)
	tm = protowire.AppendString(tm, kind)

	out := []byte(ProtobufMagic)
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, tm)
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	out = protowire.AppendBytes(out, raw)
	out = protowire.AppendTag(out, 3, protowire.BytesType)
	out = protowire.AppendString(out, "")
	out = protowire.AppendTag(out, 4, protowire.BytesType)
	out = protowire.AppendString(out, "")
	return out, nil
}

// encodeMessage appends the protobuf encoding of obj (a decoded JSON
// object) under schema t to b, fields in ascending number order.
func encodeMessage(b []byte, t *pbType, obj map[string]any, path string) ([]byte, error) {
	for _, i := range fieldsByNumber(t) {
		f := &t.fields[i]
		val, ok := obj[f.name]
		if !ok || val == nil {
			b = appendZeroField(b, f)
			continue
		}
		fpath := path + "." + f.name
		if f.rep {
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: expected an array, got %s", fpath, jsonTypeName(val))
			}
			for j, e := range list {
				var err error
				if b, err = encodeField(b, f, e, fmt.Sprintf("%s[%d]", fpath, j)); err != nil {
					return nil, err
				}
			}
			continue
		}
		var err error
		if b, err = encodeField(b, f, val, fpath); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendZeroField appends what upstream's generated marshallers write for
// an unset field: nothing for pointers, repeated fields, maps and nil
// bytes; the zero value for every other field (non-pointer fields are
// always written), recursively for messages.
func appendZeroField(b []byte, f *pbField) []byte {
	if f.rep || f.emit == emitIfSet || f.kind == pbStringList {
		return b
	}
	num := protowire.Number(f.num)
	switch f.kind {
	case pbString:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, "")
	case pbInt32, pbInt64, pbBool:
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, 0)
	case pbMessage:
		var inner []byte
		for _, i := range fieldsByNumber(f.msg) {
			inner = appendZeroField(inner, &f.msg.fields[i])
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner)
	case pbTime:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, nil)
	case pbIntOrString:
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, appendIntOrString(nil, pbIntOrStringValue{}))
	}
	return b
}

// fieldsByNumber returns the indexes of t's fields in ascending field
// number order, the order upstream's marshallers write them in.
func fieldsByNumber(t *pbType) []int {
	order := make([]int, len(t.fields))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return t.fields[order[i]].num < t.fields[order[j]].num })
	return order
}

func appendIntOrString(b []byte, is pbIntOrStringValue) []byte {
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(is.typ))
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(int64(is.intVal)))
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	return protowire.AppendString(b, is.strVal)
}

// encodeField appends one occurrence of field f with the JSON value val.
func encodeField(b []byte, f *pbField, val any, path string) ([]byte, error) {
	num := protowire.Number(f.num)
	switch f.kind {
	case pbString:
		s, ok := val.(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected a string, got %s", path, jsonTypeName(val))
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s), nil
	case pbInt32, pbInt64:
		n, ok := val.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s: expected an integer, got %s", path, jsonTypeName(val))
		}
		bits := 64
		if f.kind == pbInt32 {
			bits = 32
		}
		x, err := strconv.ParseInt(string(n), 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%s: expected an int%d, got %s", path, bits, n)
		}
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(x)), nil
	case pbBool:
		x, ok := val.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: expected a bool, got %s", path, jsonTypeName(val))
		}
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(x)), nil
	case pbBytes:
		raw, err := decodeBase64Value(val, path)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, raw), nil
	case pbRawJSON:
		raw, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var inner []byte
		inner = protowire.AppendTag(inner, 1, protowire.BytesType)
		inner = protowire.AppendBytes(inner, raw)
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner), nil
	case pbMessage:
		m, ok := val.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: expected an object, got %s", path, jsonTypeName(val))
		}
		inner, err := encodeMessage(nil, f.msg, m, path)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner), nil
	case pbTime:
		s, ok := val.(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected an RFC 3339 string, got %s", path, jsonTypeName(val))
		}
		var inner []byte // the zero time is an empty message, as upstream writes it
		if s != "" {
			tm, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if !tm.IsZero() {
				inner = protowire.AppendTag(inner, 1, protowire.VarintType)
				inner = protowire.AppendVarint(inner, uint64(tm.Unix()))
				inner = protowire.AppendTag(inner, 2, protowire.VarintType)
				inner = protowire.AppendVarint(inner, uint64(int64(tm.Nanosecond())))
			}
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner), nil
	case pbIntOrString:
		var is pbIntOrStringValue
		switch x := val.(type) {
		case string:
			is = pbIntOrStringValue{typ: 1, strVal: x}
		case json.Number:
			n, err := strconv.ParseInt(string(x), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: expected an int32 or a string, got %s", path, x)
			}
			is = pbIntOrStringValue{intVal: int32(n)}
		default:
			return nil, fmt.Errorf("%s: expected an int32 or a string, got %s", path, jsonTypeName(val))
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, appendIntOrString(nil, is)), nil
	case pbStringMap, pbBytesMap:
		m, ok := val.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: expected an object, got %s", path, jsonTypeName(val))
		}
		for _, k := range pbSortedKeys(m) {
			var v []byte
			if f.kind == pbStringMap {
				s, ok := m[k].(string)
				if !ok {
					return nil, fmt.Errorf("%s.%s: expected a string, got %s", path, k, jsonTypeName(m[k]))
				}
				v = []byte(s)
				if f.quantities {
					v = protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), s)
				}
			} else {
				var err error
				if v, err = decodeBase64Value(m[k], path+"."+k); err != nil {
					return nil, err
				}
			}
			var entry []byte
			entry = protowire.AppendTag(entry, 1, protowire.BytesType)
			entry = protowire.AppendString(entry, k)
			entry = protowire.AppendTag(entry, 2, protowire.BytesType)
			entry = protowire.AppendBytes(entry, v)
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendBytes(b, entry)
		}
		return b, nil
	case pbStringList:
		items, ok := val.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: expected an array, got %s", path, jsonTypeName(val))
		}
		var inner []byte
		for j, e := range items {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d]: expected a string, got %s", path, j, jsonTypeName(e))
			}
			inner = protowire.AppendTag(inner, 1, protowire.BytesType)
			inner = protowire.AppendString(inner, s)
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner), nil
	case pbStringListMap:
		m, ok := val.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: expected an object, got %s", path, jsonTypeName(val))
		}
		for _, k := range pbSortedKeys(m) {
			var items []any
			if m[k] != nil {
				if items, ok = m[k].([]any); !ok {
					return nil, fmt.Errorf("%s.%s: expected an array, got %s", path, k, jsonTypeName(m[k]))
				}
			}
			var ev []byte
			for j, e := range items {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s.%s[%d]: expected a string, got %s", path, k, j, jsonTypeName(e))
				}
				ev = protowire.AppendTag(ev, 1, protowire.BytesType)
				ev = protowire.AppendString(ev, s)
			}
			var entry []byte
			entry = protowire.AppendTag(entry, 1, protowire.BytesType)
			entry = protowire.AppendString(entry, k)
			entry = protowire.AppendTag(entry, 2, protowire.BytesType)
			entry = protowire.AppendBytes(entry, ev)
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendBytes(b, entry)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s: unsupported field kind %d", path, f.kind)
}

func decodeBase64Value(val any, path string) ([]byte, error) {
	s, ok := val.(string)
	if !ok {
		return nil, fmt.Errorf("%s: expected a base64 string, got %s", path, jsonTypeName(val))
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return raw, nil
}

func init() { negotiation.RegisterProtobufEncoder(encodeProtobufResponse) }

// encodeProtobufResponse is the REST layer's negotiation.ProtobufEncoder:
// the protobuf body of a response object from its JSON, found by the kind
// and apiVersion the JSON carries; false for a kind without a protobuf
// schema (GenericObject kinds, Tables), which are then written as JSON.
func encodeProtobufResponse(jsonBytes []byte) ([]byte, bool) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(jsonBytes, &tm); err != nil || protobufSchemaFor(tm.APIVersion, tm.Kind) == nil {
		return nil, false
	}
	b, err := EncodeJSONToProtobuf(jsonBytes, tm.APIVersion, tm.Kind)
	return b, err == nil
}
