package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/meta"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// Patch content types (types.PatchType in k8s.io/apimachinery/pkg/types/patch.go).
const (
	PatchJSON      = "application/json-patch+json"
	PatchMerge     = "application/merge-patch+json"
	PatchStrategic = "application/strategic-merge-patch+json"
	PatchApply     = "application/apply-patch+yaml"
)

// patchTypeOf returns the patch type of a Content-Type header. Any other
// type, or none, is go-restful's 415 (upstream's PATCH routes consume only
// the patch types, so the request never reaches its patch handler): the
// message `415: Unsupported Media Type` and empty details.
func patchTypeOf(contentType string) (string, error) {
	t, _, err := mime.ParseMediaType(contentType)
	if err == nil {
		switch t {
		case PatchJSON, PatchMerge, PatchStrategic, PatchApply:
			return t, nil
		}
	}
	e := meta.NewStatusError(http.StatusUnsupportedMediaType, meta.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type")
	e.Status.Details = &meta.StatusDetails{}
	return "", e
}

// jsonPatchOp is what upstream's patch handler first decodes a JSON patch
// into (to bound its operations): op, path and from must be strings.
type jsonPatchOp struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	From string `json:"from"`
}

// checkJSONPatch decodes a JSON patch as upstream's handler does before
// applying it: a body that is no array of objects with string op, path and
// from is 400 `error decoding patch: <encoding/json's error>`, the Go
// type named as upstream's (package handlers).
func checkJSONPatch(patch []byte) error {
	var ops []jsonPatchOp
	if err := json.Unmarshal(patch, &ops); err != nil {
		msg := strings.ReplaceAll(err.Error(), "rest.jsonPatchOp", "handlers.jsonPatchOp")
		return meta.NewBadRequest("error decoding patch: " + msg)
	}
	return nil
}

// Limits of JSON patches, as kube-apiserver sets them
// (apiserver/pkg/endpoints/handlers/patch.go maxJSONPatchOperations, and
// the json-patch library's accumulated copy limit).
const (
	// MaxJSONPatchOperations is the most operations one JSON patch may
	// hold; more is 413 `The allowed maximum operations in a JSON patch is
	// 10000, got <n>`.
	MaxJSONPatchOperations = 10000
	// MaxJSONPatchCopyBytes bounds how much "copy" operations may grow the
	// document (3 MiB, the request body limit); beyond it the patch fails
	// with upstream's generic 422.
	MaxJSONPatchCopyBytes = 3 * 1024 * 1024
)

// kube-apiserver applies JSON patches with json-patch v4 and sets its
// process-wide copy limit to the request body limit (genericapiserver's
// JSONPatchMaxCopyBytes); v4 takes what v5 refuses (a replace or a copy of
// a missing key), so the library is upstream's, not v5.
func init() { jsonpatch.AccumulatedCopySizeLimit = MaxJSONPatchCopyBytes }

// applyPatch applies a JSON patch, merge patch or strategic merge patch to
// the JSON document original. Malformed patches are 400 BadRequest; a JSON
// patch that cannot be applied (a failed test, a missing path) is 422.
func applyPatch(patchType string, original, patch []byte, mergeKeys map[string]string) ([]byte, error) {
	switch patchType {
	case PatchJSON:
		if err := checkJSONPatch(patch); err != nil {
			return nil, err
		}
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, meta.NewBadRequest(err.Error())
		}
		if len(p) > MaxJSONPatchOperations {
			return nil, meta.NewRequestEntityTooLarge(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, len(p)))
		}
		out, err := p.Apply(original)
		if err != nil {
			// upstream answers every apply failure (a failed test, a missing
			// path, too much copying) with apierrors' generic 422
			// (NewGenericServerResponse), not the library's text.
			e := meta.NewStatusError(http.StatusUnprocessableEntity, meta.StatusReasonInvalid, "the server rejected our request due to an error in our request")
			e.Status.Details = &meta.StatusDetails{}
			return nil, e
		}
		return out, nil
	case PatchMerge:
		return mergePatch(original, patch)
	case PatchStrategic:
		out, err := StrategicMergePatch(original, patch, mergeKeys)
		if err != nil {
			// A patch that is not a JSON object fails with encoding/json's
			// text, as upstream decodes it into a map first.
			if _, derr := decodePatchObject(patch); derr != nil {
				err = derr
			}
			return nil, meta.NewBadRequest(err.Error())
		}
		return out, nil
	}
	_, err := patchTypeOf("")
	return nil, err
}

// StrategicMergePatch applies a strategic merge patch to the JSON object
// original and returns the result, for plain JSON objects described only
// by mergeKeys (see PatchMetaProvider), following
// k8s.io/apimachinery/pkg/util/strategicpatch: maps merge recursively;
// `null` deletes a key; lists with a merge key merge element by element
// (`{"<key>": v, "$patch": "delete"}` removes one, a `{"$patch":
// "replace"}` element replaces the whole list); other lists are replaced;
// `$patch: replace|delete` on a map, `$retainKeys`,
// `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are
// honoured.
func StrategicMergePatch(original, patch []byte, mergeKeys map[string]string) ([]byte, error) {
	return strategicMerge(original, patch, mergeKeys, true)
}

// applyMerge merges a server-side apply configuration into the live
// object as StrategicMergePatch does, except that list elements the
// configuration adds are appended after the live ones (structured-merge-diff's
// order), not put first.
func applyMerge(original, patch []byte, mergeKeys map[string]string) ([]byte, error) {
	return strategicMerge(original, patch, mergeKeys, false)
}

// strategicMerge is StrategicMergePatch; patchFirst selects upstream
// strategicpatch's list order (see patchOrder) over appending.
func strategicMerge(original, patch []byte, mergeKeys map[string]string, patchFirst bool) ([]byte, error) {
	var o, p any
	if err := unmarshalNumber(original, &o); err != nil {
		return nil, err
	}
	if err := unmarshalNumber(patch, &p); err != nil {
		return nil, err
	}
	return strategicMergeDecoded(o, p, mergeKeys, patchFirst)
}

// strategicMergeDecoded is strategicMerge on documents already decoded
// (unmarshalNumber's form), which it may modify.
func strategicMergeDecoded(o, p any, mergeKeys map[string]string, patchFirst bool) ([]byte, error) {
	om, ok := o.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("original is not a JSON object")
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("unable to find api field in struct Unstructured for the json field %q", "patch")
	}
	out, deleted, err := smpMap(om, pm, "", mergeKeys, patchFirst)
	if err != nil {
		return nil, err
	}
	if deleted {
		out = map[string]any{}
	}
	return json.Marshal(out)
}

// decodePatchObject decodes a merge or strategic merge patch, which must
// be a JSON object; its errors are encoding/json's, as upstream decodes the
// patch into a map[string]interface{} first (apiserver
// endpoints/handlers/patch.go): e.g. `json: cannot unmarshal array into Go
// value of type map[string]interface {}`.
func decodePatchObject(patch []byte) (map[string]any, error) {
	var p map[string]any
	if err := unmarshalNumber(patch, &p); err != nil {
		return nil, err
	}
	return p, nil
}

// mergePatch applies an RFC 7386 JSON merge patch to the JSON document
// original: the patch's members merge recursively, a null member deletes
// the key, and null members of a new subtree are dropped. It allocates
// linearly in the documents' size at any nesting (the json-patch library's
// MergePatch allocates quadratically in depth). A patch that is not a JSON
// object is 400 `error decoding patch: <encoding/json's error>`, as
// upstream answers.
func mergePatch(original, patch []byte) ([]byte, error) {
	p, err := decodePatchObject(patch)
	if err != nil {
		return nil, meta.NewBadRequest("error decoding patch: " + err.Error())
	}
	var doc any
	if err := unmarshalNumber(original, &doc); err != nil {
		return nil, meta.NewInternalError(err) // the stored object always decodes
	}
	return json.Marshal(mergeValue(doc, p))
}

// mergeValue is RFC 7386's MergePatch(target, patch) over decoded values.
func mergeValue(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = make(map[string]any, len(pm))
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergeValue(tm[k], v)
	}
	return tm
}

func unmarshalNumber(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers stay exact
	if err := dec.Decode(v); err == nil {
		if _, err := dec.Token(); err == io.EOF {
			return nil
		}
	}
	// Only on failure, trailing data included: json.Unmarshal's error
	// texts are upstream's.
	if err := json.Unmarshal(b, reflect.New(reflect.TypeOf(v).Elem()).Interface()); err != nil {
		return err
	}
	return errors.New("invalid character after top-level value")
}

const (
	directivePatch      = "$patch"
	directiveRetainKeys = "$retainKeys"
	prefixDeleteFromPL  = "$deleteFromPrimitiveList/"
	prefixSetOrder      = "$setElementOrder/"
)

// smpMap merges patch into orig (which it may modify) at path; deleted
// reports a `$patch: delete` of the whole map.
func smpMap(orig, patch map[string]any, path string, mk map[string]string, patchFirst bool) (map[string]any, bool, error) {
	if d, ok := patch[directivePatch]; ok {
		switch d {
		case "replace":
			return stripDirectives(patch).(map[string]any), false, nil
		case "delete":
			return nil, true, nil
		default:
			return nil, false, fmt.Errorf("unknown patch type: %v", d)
		}
	}
	if orig == nil {
		orig = map[string]any{}
	}
	keys := make([]string, 0, len(patch))
	for k := range patch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	orders := map[string][]any{}
	for _, k := range keys {
		v := patch[k]
		switch {
		case k == directiveRetainKeys:
			continue
		case strings.HasPrefix(k, prefixDeleteFromPL):
			field := strings.TrimPrefix(k, prefixDeleteFromPL)
			drop, ok := v.([]any)
			if !ok {
				return nil, false, fmt.Errorf("invalid value for %s: must be a list", k)
			}
			if l, ok := orig[field].([]any); ok {
				orig[field] = removeValues(l, drop)
			}
			continue
		case strings.HasPrefix(k, prefixSetOrder):
			l, ok := v.([]any)
			if !ok {
				return nil, false, fmt.Errorf("invalid value for %s: must be a list", k)
			}
			orders[strings.TrimPrefix(k, prefixSetOrder)] = l
			continue
		}
		fp := joinPath(path, k)
		switch pv := v.(type) {
		case nil:
			delete(orig, k)
		case map[string]any:
			om, _ := orig[k].(map[string]any)
			if om == nil {
				if pv[directivePatch] == "delete" {
					delete(orig, k)
					continue
				}
				orig[k] = stripDirectives(pv)
				continue
			}
			merged, del, err := smpMap(om, pv, fp, mk, patchFirst)
			if err != nil {
				return nil, false, err
			}
			if del {
				delete(orig, k)
			} else {
				orig[k] = merged
			}
		case []any:
			key, declared := mk[fp]
			ol, _ := orig[k].([]any)
			switch {
			case !declared:
				orig[k] = stripDirectives(pv)
			case key == "":
				orig[k] = mergePrimitiveList(ol, pv, patchFirst)
			default:
				merged, err := smpList(ol, pv, key, fp, mk, patchFirst)
				if err != nil {
					return nil, false, err
				}
				orig[k] = merged
			}
		default:
			orig[k] = v
		}
	}
	for field, order := range orders {
		if l, ok := orig[field].([]any); ok {
			orig[field] = reorder(l, order, mk[joinPath(path, field)])
		}
	}
	if rk, ok := patch[directiveRetainKeys].([]any); ok {
		keep := map[string]bool{}
		for _, k := range rk {
			if s, ok := k.(string); ok {
				keep[s] = true
			}
		}
		for k := range orig {
			if !keep[k] {
				delete(orig, k)
			}
		}
	}
	return orig, false, nil
}

// smpList merges a patch list into a list whose elements are identified by
// key.
func smpList(orig, patch []any, key, path string, mk map[string]string, patchFirst bool) ([]any, error) {
	for _, p := range patch {
		if pm, ok := p.(map[string]any); ok && pm[directivePatch] == "replace" {
			var out []any
			for _, q := range patch {
				if qm, ok := q.(map[string]any); ok && qm[directivePatch] == "replace" {
					continue
				}
				out = append(out, stripDirectives(q))
			}
			if out == nil {
				out = []any{}
			}
			return out, nil
		}
	}
	out := append([]any{}, orig...)
	for _, p := range patch {
		pm, ok := p.(map[string]any)
		if !ok {
			if !containsValue(out, p) {
				out = append(out, p)
			}
			continue
		}
		if missing, ok := missingMergeKey(pm, key); ok {
			return nil, fmt.Errorf("map: %v does not contain declared merge key: %s", mapString(pm), missing)
		}
		kv := elementID(pm, key)
		idx := -1
		for i, e := range out {
			if em, ok := e.(map[string]any); ok && reflect.DeepEqual(elementID(em, key), kv) {
				idx = i
				break
			}
		}
		if pm[directivePatch] == "delete" {
			kept := out[:0]
			for _, e := range out {
				if em, ok := e.(map[string]any); ok && reflect.DeepEqual(elementID(em, key), kv) {
					continue
				}
				kept = append(kept, e)
			}
			out = kept
			continue
		}
		if idx < 0 {
			out = append(out, stripDirectives(pm))
			continue
		}
		em, _ := out[idx].(map[string]any)
		merged, del, err := smpMap(em, pm, path, mk, patchFirst)
		if err != nil {
			return nil, err
		}
		if del {
			out = append(out[:idx], out[idx+1:]...)
		} else {
			out[idx] = merged
		}
	}
	if !patchFirst {
		return out, nil
	}
	id := func(e any) any {
		if m, ok := e.(map[string]any); ok {
			return elementID(m, key)
		}
		return e
	}
	return patchOrder(out, patch, orig, id), nil
}

// patchOrder orders the merged list as upstream's mergeSlice does
// (strategicpatch normalizeElementOrder and mergeSortedSlice): the elements
// the patch names come in the patch's order, the others (server-only) in
// the original's; walking both, a server-only element goes first only when
// both it and the next patch element were in the original and it stood
// earlier there. So an element the patch adds comes before the ones it
// does not name: patching ports [80] with [443] gives [443, 80].
func patchOrder(merged, patch, orig []any, id func(any) any) []any {
	index := func(l []any, want any) int {
		for i, e := range l {
			if reflect.DeepEqual(id(e), want) {
				return i
			}
		}
		return -1
	}
	var named, serverOnly []any
	for _, e := range merged {
		if index(patch, id(e)) >= 0 {
			named = append(named, e)
		} else {
			serverOnly = append(serverOnly, e)
		}
	}
	sort.SliceStable(named, func(a, b int) bool {
		return index(patch, id(named[a])) < index(patch, id(named[b]))
	})
	out := make([]any, 0, len(merged))
	i, j := 0, 0
	for i < len(serverOnly) || j < len(named) {
		switch {
		case j >= len(named):
			out = append(out, serverOnly[i])
			i++
		case i >= len(serverOnly):
			out = append(out, named[j])
			j++
		default:
			li, ri := index(orig, id(serverOnly[i])), index(orig, id(named[j]))
			if li >= 0 && ri >= 0 && li < ri {
				out = append(out, serverOnly[i])
				i++
			} else {
				out = append(out, named[j])
				j++
			}
		}
	}
	return out
}

// elementID identifies the element em of a list keyed by key: the value
// of a single merge key, or, for the several +listMapKey fields of a
// server-side apply scope joined by "," (e.g. "port,protocol"), the
// element's path element, in which a missing "protocol" counts as its
// default "TCP" (see elementPE).
func elementID(em map[string]any, key string) any {
	if !strings.Contains(key, ",") {
		return em[key]
	}
	return elementPE(key, em)
}

// missingMergeKey returns the first field of key that the patch element
// pm lacks ("protocol" of a list-map key may be left out: it defaults).
func missingMergeKey(pm map[string]any, key string) (string, bool) {
	for _, k := range strings.Split(key, ",") {
		if _, ok := pm[k]; !ok && !(k == "protocol" && strings.Contains(key, ",")) {
			return k, true
		}
	}
	return "", false
}

func mapString(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func containsValue(l []any, v any) bool {
	for _, e := range l {
		if reflect.DeepEqual(e, v) {
			return true
		}
	}
	return false
}

func mergePrimitiveList(orig, patch []any, patchFirst bool) []any {
	out := append([]any{}, orig...)
	for _, v := range patch {
		if !containsValue(out, v) {
			out = append(out, v)
		}
	}
	if !patchFirst {
		return out
	}
	return patchOrder(out, patch, orig, func(e any) any { return e })
}

func removeValues(l, drop []any) []any {
	out := make([]any, 0, len(l))
	for _, v := range l {
		if !containsValue(drop, v) {
			out = append(out, v)
		}
	}
	return out
}

// reorder puts the elements named by order first, in that order, then the
// rest in their current order.
func reorder(l, order []any, key string) []any {
	id := func(e any) any {
		if key == "" {
			return e
		}
		if m, ok := e.(map[string]any); ok {
			return elementID(m, key)
		}
		return e
	}
	used := make([]bool, len(l))
	out := make([]any, 0, len(l))
	for _, o := range order {
		want := id(o)
		for i, e := range l {
			if !used[i] && reflect.DeepEqual(id(e), want) {
				used[i] = true
				out = append(out, e)
			}
		}
	}
	for i, e := range l {
		if !used[i] {
			out = append(out, e)
		}
	}
	return out
}

// stripDirectives removes $-directives from a patch value that is inserted
// as is.
func stripDirectives(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if strings.HasPrefix(k, "$") {
				continue
			}
			out[k] = stripDirectives(e)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, stripDirectives(e))
		}
		return out
	}
	return v
}

// patchedDocument renders the result of a JSON or merge patch of original
// as upstream's patch library (gopkg.in/evanphx/json-patch.v4) writes it,
// for the value of the 422 a patched object that does not decode answers:
// the objects the patch changed have their keys sorted (they are re-encoded
// from Go maps), values it left alone keep the original's bytes and key
// order, and new values are encoded with sorted keys. A changed object
// whose bytes the patch left equal is kept as it was (upstream sorts any
// object a patch operation walked through).
func patchedDocument(original, patched []byte) []byte {
	var cur map[string]json.RawMessage
	if err := json.Unmarshal(patched, &cur); err != nil || cur == nil {
		return sortedJSON(patched)
	}
	var orig map[string]json.RawMessage
	if json.Unmarshal(original, &orig) != nil {
		orig = nil
	}
	keys := make([]string, 0, len(cur))
	for k := range cur {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		ov, had := orig[k]
		switch {
		case had && jsonEqual(ov, cur[k]):
			// encoding/json writes a raw value compacted, HTML escaped
			if c, err := json.Marshal(ov); err == nil {
				buf.Write(c)
			} else {
				buf.Write(ov)
			}
		case had:
			buf.Write(patchedDocument(ov, cur[k]))
		default:
			buf.Write(sortedJSON(cur[k]))
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// sortedJSON re-encodes the JSON value b with encoding/json (object keys
// sorted, HTML characters escaped, numbers as written); b unchanged if it
// does not decode.
func sortedJSON(b []byte) []byte {
	var v any
	if unmarshalNumber(b, &v) != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// jsonEqual reports whether two JSON values are equal (numbers compared as
// written).
func jsonEqual(a, b []byte) bool {
	var x, y any
	if unmarshalNumber(a, &x) != nil || unmarshalNumber(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
