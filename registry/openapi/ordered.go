package openapi

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
)

// obj is a JSON object whose keys are encoded in the order given, as
// kube-openapi encodes its structs (field order), unlike a Go map, which
// encoding/json sorts.
type obj []kv

type kv struct {
	k string
	v any
}

// add appends key k with value v.
func (o *obj) add(k string, v any) { *o = append(*o, kv{k, v}) }

// sortedObj returns the entries of m as an obj in key order: what
// kube-openapi's maps (paths, properties, definitions, responses,
// content) encode as.
func sortedObj[V any](m map[string]V) obj {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(obj, 0, len(keys))
	for _, k := range keys {
		out = append(out, kv{k, m[k]})
	}
	return out
}

// encodeJSON encodes v (obj, []any, maps, scalars) compactly; escapeHTML
// says whether <, > and & become \u003c... (kube-apiserver's v3
// documents escape them, its v2 document does not).
func encodeJSON(v any, escapeHTML bool) []byte {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v, escapeHTML); err != nil {
		panic("openapi: document does not encode: " + err.Error())
	}
	return buf.Bytes()
}

func writeJSON(buf *bytes.Buffer, v any, escapeHTML bool) error {
	switch t := v.(type) {
	case obj:
		buf.WriteByte('{')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeScalar(buf, e.k, escapeHTML); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeJSON(buf, e.v, escapeHTML); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, e, escapeHTML); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case []obj:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, e, escapeHTML); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case map[string]any:
		return writeJSON(buf, sortedObj(t), escapeHTML)
	}
	return writeScalar(buf, v, escapeHTML)
}

// writeScalar encodes v as encoding/json does (strings, numbers, string
// slices, ...), without the trailing newline of an Encoder. Strings of
// printable ASCII that need no escaping, booleans and integers are
// written directly (the same bytes encoding/json gives, without an
// Encoder per value: that was most of the cost of building a CRD
// group/version's documents); everything else goes through
// encoding/json.
func writeScalar(buf *bytes.Buffer, v any, escapeHTML bool) error {
	switch t := v.(type) {
	case string:
		if plainJSONString(t, escapeHTML) {
			buf.WriteByte('"')
			buf.WriteString(t)
			buf.WriteByte('"')
			return nil
		}
	case bool:
		buf.WriteString(strconv.FormatBool(t))
		return nil
	case int:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), int64(t), 10))
		return nil
	case int32:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), int64(t), 10))
		return nil
	case int64:
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), t, 10))
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return nil
}

// plainJSONString reports whether encoding/json writes s unchanged
// between quotes: printable ASCII without '"' and '\\' (and without
// '<', '>' and '&' when HTML characters are escaped).
func plainJSONString(s string, escapeHTML bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
		if escapeHTML && (c == '<' || c == '>' || c == '&') {
			return false
		}
	}
	return true
}

// MarshalJSON encodes o with its keys in order (HTML characters escaped,
// as encoding/json does).
func (o obj) MarshalJSON() ([]byte, error) { return encodeJSON(o, true), nil }
