package rest

// Server-side apply field ownership: the field sets of managedFields
// entries, conflicts between managers and pruning of fields an applier
// stopped applying. This mirrors the behaviour of
// k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager (internal/
// structuredmerge.go, managedfieldsupdater.go, conflict.go) and
// sigs.k8s.io/structured-merge-diff (merge/update.go, fieldpath), over
// plain JSON documents described only by the resource's merge keys (see
// PatchMetaProvider) instead of an OpenAPI schema:
//
//   - maps are granular: each key is its own field, and a map is owned
//     only through its keys (Apply) or when it was added whole (Update);
//   - lists with a merge key are granular by element (`k:{"<key>":<v>}`),
//     lists declared with an empty key are sets of scalars (`v:<value>`),
//     every other list is atomic: one field.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// beforeFirstApplyManager owns what an object held before its first
// apply when it had no managedFields (fieldmanager's
// NewSkipNonAppliedManager, "before-first-apply").
const beforeFirstApplyManager = "before-first-apply"

// Managed-fields operations (metav1.ManagedFieldsOperationType).
const (
	operationApply  = "Apply"
	operationUpdate = "Update"
)

// fieldSet is a set of field paths shaped like FieldsV1: each node is one
// path element ("f:<name>", "k:<json key>", "v:<json value>",
// "i:<index>"); member marks the path itself as in the set (a FieldsV1
// leaf `{}`, or "." when the node also has children).
type fieldSet struct {
	member   bool
	children map[string]*fieldSet
}

// child returns the node of path element pe below s, creating it.
func (s *fieldSet) child(pe string) *fieldSet {
	if s.children == nil {
		s.children = map[string]*fieldSet{}
	}
	c := s.children[pe]
	if c == nil {
		c = &fieldSet{}
		s.children[pe] = c
	}
	return c
}

// get returns the node of pe below s, or nil; s may be nil.
func (s *fieldSet) get(pe string) *fieldSet {
	if s == nil {
		return nil
	}
	return s.children[pe]
}

// insert adds path to the set.
func (s *fieldSet) insert(path []string) {
	n := s
	for _, pe := range path {
		n = n.child(pe)
	}
	n.member = true
}

// empty reports whether the set (which may be nil) holds no path.
func (s *fieldSet) empty() bool {
	if s == nil {
		return true
	}
	if s.member {
		return false
	}
	for _, c := range s.children {
		if !c.empty() {
			return false
		}
	}
	return true
}

// union returns a new set with the paths of a or b (either may be nil).
func union(a, b *fieldSet) *fieldSet {
	out := &fieldSet{}
	for _, s := range []*fieldSet{a, b} {
		if s == nil {
			continue
		}
		out.member = out.member || s.member
		for pe, c := range s.children {
			out.children = setChild(out.children, pe, union(out.children[pe], c))
		}
	}
	return out.compact()
}

// difference returns a new set with the paths of a not in b.
func difference(a, b *fieldSet) *fieldSet {
	if a == nil {
		return nil
	}
	out := &fieldSet{member: a.member && (b == nil || !b.member)}
	for pe, c := range a.children {
		out.children = setChild(out.children, pe, difference(c, b.get(pe)))
	}
	return out.compact()
}

// intersection returns a new set with the paths in both a and b.
func intersection(a, b *fieldSet) *fieldSet {
	if a == nil || b == nil {
		return nil
	}
	out := &fieldSet{member: a.member && b.member}
	for pe, c := range a.children {
		out.children = setChild(out.children, pe, intersection(c, b.children[pe]))
	}
	return out.compact()
}

func setChild(m map[string]*fieldSet, pe string, c *fieldSet) map[string]*fieldSet {
	if c == nil {
		delete(m, pe)
		return m
	}
	if m == nil {
		m = map[string]*fieldSet{}
	}
	m[pe] = c
	return m
}

// compact drops empty descendants; it returns nil for an empty set.
func (s *fieldSet) compact() *fieldSet {
	if s == nil {
		return nil
	}
	for pe, c := range s.children {
		if c.compact() == nil {
			delete(s.children, pe)
		}
	}
	if !s.member && len(s.children) == 0 {
		return nil
	}
	return s
}

// paths lists the set's paths in structured-merge-diff's iteration order:
// at each level the members first, then the children's paths, each in
// path-element order.
func (s *fieldSet) paths() [][]string {
	var out [][]string
	var walk func(n *fieldSet, prefix []string)
	walk = func(n *fieldSet, prefix []string) {
		keys := sortedElements(n.children)
		for _, pe := range keys {
			if n.children[pe].member {
				out = append(out, append(append([]string{}, prefix...), pe))
			}
		}
		for _, pe := range keys {
			if c := n.children[pe]; len(c.children) > 0 {
				walk(c, append(append([]string{}, prefix...), pe))
			}
		}
	}
	if s != nil {
		walk(s, nil)
	}
	return out
}

// parseFieldsV1 decodes a FieldsV1 document into a set.
func parseFieldsV1(b []byte) (*fieldSet, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	s := &fieldSet{}
	for pe, v := range raw {
		if pe == "." {
			s.member = true
			continue
		}
		c, err := parseFieldsV1(v)
		if err != nil {
			return nil, err
		}
		if len(c.children) == 0 {
			c.member = true
		}
		s.children = setChild(s.children, pe, c)
	}
	return s, nil
}

// fieldsV1 encodes the set as FieldsV1 with upstream's key order ("."
// first, then f:, k:, v:, i: elements, each sorted).
func (s *fieldSet) fieldsV1() []byte {
	var b bytes.Buffer
	var enc func(n *fieldSet)
	enc = func(n *fieldSet) {
		b.WriteByte('{')
		first := true
		if n.member && len(n.children) > 0 {
			b.WriteString(`".":{}`)
			first = false
		}
		for _, pe := range sortedElements(n.children) {
			c := n.children[pe]
			if c.empty() {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			k, _ := marshalNoEscape(pe)
			b.Write(k)
			b.WriteByte(':')
			enc(c)
		}
		b.WriteByte('}')
	}
	if s == nil {
		return []byte("{}")
	}
	enc(s)
	return b.Bytes()
}

// marshalNoEscape is json.Marshal without HTML escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func fieldPE(name string) string { return "f:" + name }

// keyPE is the path element of the list element whose merge key is key.
func keyPE(key string, v any) string {
	b, _ := marshalNoEscape(map[string]any{key: v})
	return "k:" + string(b)
}

// atomicMap marks, in a field scope's keys, a +mapType=atomic map: owned
// as one field, compared whole.
const atomicMap = "\x00atomic"

// atomicElementsSuffix, appended to a keyed list's path in a field
// scope's keys (value atomicMap), marks a list whose elements are
// +structType=atomic (registry.AtomicListElementsOf): each element is
// owned as one field and compared whole.
const atomicElementsSuffix = "[]"

// atomicElements reports whether the elements of the keyed list at fp
// are atomic.
func atomicElements(mk map[string]string, fp string) bool {
	return mk[fp+atomicElementsSuffix] == atomicMap
}

// elementPE is the path element of the list element em of a list keyed by
// key: one merge key, or several joined by "," (+listMapKey fields, e.g.
// `k:{"port":80,"protocol":"TCP"}`). A missing "protocol" key counts as
// its schema default "TCP", as structured-merge-diff reads the
// defaulted list-map keys of the core types.
func elementPE(key string, em map[string]any) string {
	if !strings.Contains(key, ",") {
		return keyPE(key, em[key])
	}
	k := map[string]any{}
	for _, name := range strings.Split(key, ",") {
		v, ok := em[name]
		if !ok && name == "protocol" {
			v, ok = "TCP", true
		}
		if ok {
			k[name] = v
		}
	}
	b, _ := marshalNoEscape(k)
	return "k:" + string(b)
}

// isKeyField reports whether name is one of key's fields.
func isKeyField(key, name string) bool {
	for _, k := range strings.Split(key, ",") {
		if k == name {
			return true
		}
	}
	return false
}

// valuePE is the path element of a value in a set-like scalar list.
func valuePE(v any) string {
	b, _ := marshalNoEscape(v)
	return "v:" + string(b)
}

// elementRank orders path element kinds as fieldpath.PathElement.Compare
// does: field names, keys, values, indices.
func elementRank(pe string) int {
	switch {
	case strings.HasPrefix(pe, "f:"):
		return 0
	case strings.HasPrefix(pe, "k:"):
		return 1
	case strings.HasPrefix(pe, "v:"):
		return 2
	}
	return 3
}

// elementLess orders two path elements; numbers in keys, values and
// indices compare numerically.
func elementLess(a, b string) bool {
	ra, rb := elementRank(a), elementRank(b)
	if ra != rb {
		return ra < rb
	}
	if ra == 0 {
		return a < b
	}
	if ra == 3 {
		x, _ := strconv.Atoi(a[2:])
		y, _ := strconv.Atoi(b[2:])
		return x < y
	}
	var x, y any
	if unmarshalNumber([]byte(a[2:]), &x) == nil && unmarshalNumber([]byte(b[2:]), &y) == nil {
		if c, ok := compareScalars(x, y); ok {
			return c < 0
		}
		if xm, ok := x.(map[string]any); ok {
			if ym, ok := y.(map[string]any); ok {
				names := make([]string, 0, len(xm))
				for k := range xm {
					names = append(names, k)
				}
				sort.Strings(names)
				for _, k := range names {
					if c, ok := compareScalars(xm[k], ym[k]); ok && c != 0 {
						return c < 0
					}
				}
			}
		}
	}
	return a < b
}

// compareScalars compares two numbers or two strings.
func compareScalars(x, y any) (int, bool) {
	if xn, ok := x.(json.Number); ok {
		if yn, ok := y.(json.Number); ok {
			xf, _ := xn.Float64()
			yf, _ := yn.Float64()
			switch {
			case xf < yf:
				return -1, true
			case xf > yf:
				return 1, true
			}
			return 0, true
		}
	}
	if xs, ok := x.(string); ok {
		if ys, ok := y.(string); ok {
			return strings.Compare(xs, ys), true
		}
	}
	return 0, false
}

func sortedElements(m map[string]*fieldSet) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return elementLess(keys[i], keys[j]) })
	return keys
}

// pathString formats a path as fieldpath.Path.String does:
// `.spec.versionPriority`, `.status.conditions[type="Available"]`,
// `.metadata.finalizers[="x"]`, `.items[0]`.
func pathString(path []string) string {
	var b strings.Builder
	for _, pe := range path {
		switch elementRank(pe) {
		case 0:
			b.WriteString("." + pe[2:])
		case 1:
			var m map[string]any
			if unmarshalNumber([]byte(pe[2:]), &m) != nil {
				b.WriteString("[" + pe[2:] + "]")
				continue
			}
			names := make([]string, 0, len(m))
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			parts := make([]string, 0, len(names))
			for _, k := range names {
				v, _ := marshalNoEscape(m[k])
				parts = append(parts, k+"="+string(v))
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		case 2:
			b.WriteString("[=" + pe[2:] + "]")
		default:
			b.WriteString("[" + pe[2:] + "]")
		}
	}
	return b.String()
}

// appliedFieldSet returns the fields an apply configuration sets
// (typed.TypedValue.ToFieldSet): its leaves, atomic lists, and the
// elements of granular lists. Null values and empty maps own nothing.
func appliedFieldSet(cfg map[string]any, mk map[string]string) *fieldSet {
	s := &fieldSet{}
	collectApplied(s, cfg, "", mk)
	return s.compact()
}

func collectApplied(n *fieldSet, v any, fp string, mk map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if mk[fp] == atomicMap {
			n.member = true
			return
		}
		for k, e := range x {
			if e == nil {
				continue
			}
			collectApplied(n.child(fieldPE(k)), e, joinPath(fp, k), mk)
		}
	case []any:
		key, declared := mk[fp]
		if !declared {
			n.member = true
			return
		}
		for _, e := range x {
			if key == "" {
				n.child(valuePE(e)).member = true
				continue
			}
			em, ok := e.(map[string]any)
			if !ok {
				continue
			}
			c := n.child(elementPE(key, em))
			c.member = true
			if !atomicElements(mk, fp) {
				collectApplied(c, em, fp, mk)
			}
		}
	default:
		n.member = true
	}
}

// comparison is the difference between two documents as
// typed.Comparison reports it: added and removed paths include the maps
// and granular list elements that appeared or disappeared whole.
type comparison struct {
	added, modified, removed *fieldSet
}

// compareDocs compares the JSON documents old and new.
func compareDocs(old, new map[string]any, mk map[string]string) comparison {
	c := comparison{added: &fieldSet{}, modified: &fieldSet{}, removed: &fieldSet{}}
	c.walk(nil, old, new, "", mk)
	c.added, c.modified, c.removed = c.added.compact(), c.modified.compact(), c.removed.compact()
	return c
}

func appendPE(path []string, pe string) []string {
	return append(append(make([]string, 0, len(path)+1), path...), pe)
}

func (c *comparison) walk(path []string, a, b any, fp string, mk map[string]string) {
	am, aMap := a.(map[string]any)
	bm, bMap := b.(map[string]any)
	if aMap && bMap && mk[fp] != atomicMap {
		for k, av := range am {
			p, kfp := appendPE(path, fieldPE(k)), joinPath(fp, k)
			if bv, ok := bm[k]; ok {
				// a null list or map (a non-omitempty nil field) compares
				// as an empty one: its elements are added or removed, the
				// field itself stays (upstream: CRD status.conditions)
				c.walk(p, emptyIfNull(av, bv), emptyIfNull(bv, av), kfp, mk)
			} else {
				insertAll(c.removed, p, av, kfp, mk)
			}
		}
		for k, bv := range bm {
			if _, ok := am[k]; !ok {
				insertAll(c.added, appendPE(path, fieldPE(k)), bv, joinPath(fp, k), mk)
			}
		}
		return
	}
	al, aList := a.([]any)
	bl, bList := b.([]any)
	key, declared := mk[fp]
	if aList && bList && declared {
		if key == "" {
			for _, v := range bl {
				if !containsValue(al, v) {
					c.added.insert(appendPE(path, valuePE(v)))
				}
			}
			for _, v := range al {
				if !containsValue(bl, v) {
					c.removed.insert(appendPE(path, valuePE(v)))
				}
			}
			return
		}
		olds := keyedElements(al, key)
		news := keyedElements(bl, key)
		for pe, bv := range news {
			if av, ok := olds[pe]; ok {
				if !atomicElements(mk, fp) {
					c.walk(appendPE(path, pe), av, bv, fp, mk)
				} else if !reflect.DeepEqual(av, bv) {
					c.modified.insert(appendPE(path, pe))
				}
			} else {
				insertAll(c.added, appendPE(path, pe), bv, fp, mk)
			}
		}
		for pe, av := range olds {
			if _, ok := news[pe]; !ok {
				insertAll(c.removed, appendPE(path, pe), av, fp, mk)
			}
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		c.modified.insert(path)
	}
}

// emptyIfNull returns v, or an empty value of other's kind (list or map)
// when v is null.
func emptyIfNull(v, other any) any {
	if v != nil {
		return v
	}
	switch other.(type) {
	case []any:
		return []any{}
	case map[string]any:
		return map[string]any{}
	}
	return v
}

// keyedElements indexes the map elements of a keyed list by path element.
func keyedElements(l []any, key string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range l {
		if em, ok := e.(map[string]any); ok {
			out[elementPE(key, em)] = em
		}
	}
	return out
}

// insertAll adds path and every path below it in v to s.
func insertAll(s *fieldSet, path []string, v any, fp string, mk map[string]string) {
	s.insert(path)
	switch x := v.(type) {
	case map[string]any:
		if mk[fp] == atomicMap {
			return
		}
		for k, e := range x {
			insertAll(s, appendPE(path, fieldPE(k)), e, joinPath(fp, k), mk)
		}
	case []any:
		key, declared := mk[fp]
		if !declared {
			return
		}
		for _, e := range x {
			if key == "" {
				s.insert(appendPE(path, valuePE(e)))
				continue
			}
			if em, ok := e.(map[string]any); ok {
				if atomicElements(mk, fp) {
					s.insert(appendPE(path, elementPE(key, em)))
					continue
				}
				insertAll(s, appendPE(path, elementPE(key, em)), em, fp, mk)
			}
		}
	}
}

// ignoredMetadata are the metadata fields no manager owns (upstream's
// stripMeta in fieldmanager/internal/stripmeta.go).
var ignoredMetadata = []string{"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"}

// ownable removes from s (in place) the fields no manager can own:
// apiVersion, kind and the server-set metadata, and the fields the
// strategy resets for the subresource: status for the main resource of a
// resource with /status, everything but status for /status.
func ownable(s *fieldSet, subresource string, hasStatus bool) *fieldSet {
	if s == nil {
		return nil
	}
	delete(s.children, fieldPE("apiVersion"))
	delete(s.children, fieldPE("kind"))
	if md := s.get(fieldPE("metadata")); md != nil {
		md.member = false
		for _, f := range ignoredMetadata {
			delete(md.children, fieldPE(f))
		}
	}
	if subresource == "status" {
		for pe := range s.children {
			if pe != fieldPE("status") {
				delete(s.children, pe)
			}
		}
	} else if hasStatus {
		delete(s.children, fieldPE("status"))
	}
	s.member = false
	return s.compact()
}

// managerEntry is one decoded managedFields entry.
type managerEntry struct {
	meta.ManagedFieldsEntry
	set *fieldSet
}

// sameManager reports whether a and b are the same manager as
// BuildManagerIdentifier keys them: manager, operation and subresource,
// plus the apiVersion for Update entries.
func sameManager(a, b meta.ManagedFieldsEntry) bool {
	return a.Manager == b.Manager && a.Operation == b.Operation && a.Subresource == b.Subresource &&
		(a.Operation == operationApply || a.APIVersion == b.APIVersion)
}

// decodeManagers decodes managedFields entries; ok is false when one is
// not a FieldsV1 set.
func decodeManagers(entries []meta.ManagedFieldsEntry) ([]*managerEntry, bool) {
	out := make([]*managerEntry, 0, len(entries))
	for _, e := range entries {
		me := &managerEntry{ManagedFieldsEntry: e}
		if len(e.FieldsV1) > 0 {
			s, err := parseFieldsV1(e.FieldsV1)
			if err != nil {
				return nil, false
			}
			me.set = s.compact()
		}
		me.FieldsV1 = nil
		out = append(out, me)
	}
	return out, true
}

// encodeManagers returns the entries with a non-empty set, sorted as
// upstream's sortEncodedManagedFields: operation, time (seconds),
// manager, apiVersion, subresource. It returns nil when none is left.
func encodeManagers(ms []*managerEntry) []meta.ManagedFieldsEntry {
	var out []meta.ManagedFieldsEntry
	for _, m := range ms {
		if m.set.empty() {
			continue
		}
		e := m.ManagedFieldsEntry
		e.FieldsType = "FieldsV1"
		e.FieldsV1 = m.set.fieldsV1()
		out = append(out, e)
	}
	sortEntries(out)
	return out
}

// sortEntries sorts entries as upstream's sortEncodedManagedFields
// (encodeManagers).
func sortEntries(out []meta.ManagedFieldsEntry) {
	sort.SliceStable(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		var ps, qs int64
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
}

// findManager returns the entry of id in ms, or nil.
func findManager(ms []*managerEntry, id meta.ManagedFieldsEntry) *managerEntry {
	for _, m := range ms {
		if sameManager(m.ManagedFieldsEntry, id) {
			return m
		}
	}
	return nil
}

// fieldScope says which fields of a resource managers own: its merge
// keys, and whether a /status subresource resets status.
type fieldScope struct {
	mergeKeys   map[string]string
	subresource string
	hasStatus   bool
}

func (sc fieldScope) compare(old, new map[string]any) comparison {
	c := compareDocs(old, new, sc.mergeKeys)
	c.added = ownable(c.added, sc.subresource, sc.hasStatus)
	c.modified = ownable(c.modified, sc.subresource, sc.hasStatus)
	c.removed = ownable(c.removed, sc.subresource, sc.hasStatus)
	return c
}

// updateFields records an Update-operation write of newDoc over liveDoc
// by id (merge/update.go Updater.Update with managedFieldsUpdater): the
// fields the write added or changed move to id from every other manager,
// removed fields leave every manager, and id's entry (created if needed)
// gets a new time when it gained fields. An empty id.Manager takes the
// fields from others without recording an entry.
func updateFields(ms []*managerEntry, liveDoc, newDoc map[string]any, id meta.ManagedFieldsEntry, sc fieldScope, now time.Time) []*managerEntry {
	c := sc.compare(liveDoc, newDoc)
	return moveFields(ms, union(c.added, c.modified), c.removed, id, now)
}

// moveFields is updateFields' bookkeeping once the write's changed and
// removed fields are known: changed fields move to id from every other
// manager, removed ones (nil: none) leave every manager, and id's entry
// (created if needed, unless id.Manager is empty) gets time now when it
// gained fields.
func moveFields(ms []*managerEntry, changed, removed *fieldSet, id meta.ManagedFieldsEntry, now time.Time) []*managerEntry {
	for _, m := range ms {
		m.set = difference(m.set, changed)
		if removed != nil {
			m.set = difference(m.set, removed)
		}
	}
	if changed != nil && id.Manager != "" {
		me := findManager(ms, id)
		if me == nil {
			me = &managerEntry{ManagedFieldsEntry: id}
			ms = append(ms, me)
		}
		me.set = union(me.set, changed)
		t := meta.NewTime(now)
		me.Time = &t
	}
	return ms
}

// fieldConflict is one field an Apply would take from another manager.
type fieldConflict struct {
	manager meta.ManagedFieldsEntry
	path    []string
}

// applyFields records an Apply of the configuration whose fields are set
// by id (merge/update.go Updater.Apply): newDoc is liveDoc merged with
// the configuration. Fields id applied last time, omits now and nobody
// else owns are pruned from newDoc (in place; pruned reports it). A
// field set to a new value that another manager owns is a conflict: the
// error is the 409 NewApplyConflict status unless force, which moves the
// field to id. Removed fields leave every manager. id's entry gets a new
// time when the object changed or the entry is new.
func applyFields(ms []*managerEntry, liveDoc, newDoc map[string]any, set *fieldSet, id meta.ManagedFieldsEntry, sc fieldScope, force bool, now time.Time) (out []*managerEntry, pruned bool, err error) {
	me := findManager(ms, id)
	var last *fieldSet
	if me == nil {
		me = &managerEntry{ManagedFieldsEntry: id}
		t := meta.NewTime(now)
		me.Time = &t
		ms = append(ms, me)
	} else {
		last = me.set
	}
	me.set = set
	if !last.empty() {
		var owned *fieldSet
		for _, m := range ms {
			owned = union(owned, m.set)
		}
		pruned = pruneFields(newDoc, difference(last, owned), owned, sc.mergeKeys)
	}
	c := sc.compare(liveDoc, newDoc)
	changed := union(c.added, c.modified)
	var conflicts []fieldConflict
	for _, m := range ms {
		if m == me {
			continue
		}
		for _, p := range intersection(m.set, changed).paths() {
			conflicts = append(conflicts, fieldConflict{manager: m.ManagedFieldsEntry, path: p})
		}
	}
	if len(conflicts) > 0 && !force {
		return nil, false, newApplyConflict(conflicts)
	}
	for _, m := range ms {
		if m != me {
			m.set = difference(difference(m.set, changed), c.removed)
		}
	}
	if !reflect.DeepEqual(liveDoc, newDoc) {
		t := meta.NewTime(now)
		me.Time = &t
	}
	me.APIVersion = id.APIVersion
	return ms, pruned, nil
}

// pruneFields removes from doc the fields of drop (applied last time,
// owned by nobody now). A map or list element is removed whole when
// nobody owns anything in it, as upstream's prune does for named fields;
// metadata itself and the merge key of a kept element always stay.
func pruneFields(doc map[string]any, drop, owned *fieldSet, mk map[string]string) bool {
	if drop.empty() {
		return false
	}
	return pruneMap(doc, drop, owned, "", mk, "")
}

func pruneMap(m map[string]any, drop, owned *fieldSet, fp string, mk map[string]string, keep string) bool {
	changed := false
	for pe, d := range drop.children {
		if !strings.HasPrefix(pe, "f:") || (keep != "" && isKeyField(keep, pe[2:])) {
			continue
		}
		k := pe[2:]
		v, ok := m[k]
		if !ok {
			continue
		}
		o := owned.get(pe)
		if o.empty() && !(fp == "" && k == "metadata") {
			delete(m, k)
			changed = true
			continue
		}
		if len(d.children) == 0 {
			continue
		}
		if nv, ch := pruneValue(v, d, o, joinPath(fp, k), mk); ch {
			m[k] = nv
			changed = true
		}
	}
	return changed
}

// pruneValue prunes below one value; it returns the value to keep (a
// list may shrink) and whether anything was removed.
func pruneValue(v any, drop, owned *fieldSet, fp string, mk map[string]string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, pruneMap(x, drop, owned, fp, mk, "")
	case []any:
		key, declared := mk[fp]
		if !declared {
			return x, false
		}
		changed := false
		out := make([]any, 0, len(x))
		for _, e := range x {
			pe := valuePE(e)
			em, isMap := e.(map[string]any)
			if key != "" && isMap {
				pe = elementPE(key, em)
			}
			d := drop.get(pe)
			if d == nil || (key != "" && !isMap) {
				out = append(out, e)
				continue
			}
			o := owned.get(pe)
			if o.empty() {
				changed = true
				continue
			}
			if isMap && pruneMap(em, d, o, fp, mk, key) {
				changed = true
			}
			out = append(out, e)
		}
		return out, changed
	}
	return v, false
}

// newApplyConflict is errors.NewApplyConflict with fieldmanager's
// message (internal/conflict.go NewConflictError).
func newApplyConflict(cs []fieldConflict) error {
	sort.SliceStable(cs, func(i, j int) bool { return managerLabel(cs[i].manager) < managerLabel(cs[j].manager) })
	causes := make([]meta.StatusCause, 0, len(cs))
	for _, c := range cs {
		causes = append(causes, meta.StatusCause{Reason: "FieldManagerConflict", Message: "conflict with " + managerLabel(c.manager), Field: pathString(c.path)})
	}
	var msg string
	if len(cs) == 1 {
		msg = fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", managerLabel(cs[0].manager), pathString(cs[0].path))
	} else {
		var lines []string
		prev := ""
		for _, c := range cs {
			l := managerLabel(c.manager)
			if l != prev || len(lines) == 0 {
				lines = append(lines, fmt.Sprintf("conflicts with %s:", l))
				prev = l
			}
			lines = append(lines, "- "+pathString(c.path))
		}
		msg = fmt.Sprintf("Apply failed with %d conflicts: %s", len(cs), strings.Join(lines, "\n"))
	}
	e := meta.NewStatusError(409, meta.StatusReasonConflict, msg)
	e.Status.Details = &meta.StatusDetails{Causes: causes}
	return e
}

// managerLabel prints a manager as conflict messages do (printManager):
// `"name"`, then ` with subresource "s"`, then for Update managers
// ` using <apiVersion>`.
func managerLabel(e meta.ManagedFieldsEntry) string {
	s := strconv.Quote(e.Manager)
	if e.Subresource != "" {
		s += " with subresource " + strconv.Quote(e.Subresource)
	}
	if e.Operation == operationUpdate {
		s += " using " + e.APIVersion
	}
	return s
}

// docOf returns obj's JSON form, without managedFields, as a generic
// document (numbers as json.Number).
func docOf(obj meta.Object) (map[string]any, error) {
	m := obj.GetObjectMeta()
	saved := m.ManagedFields
	m.ManagedFields = nil
	b, err := json.Marshal(obj)
	m.ManagedFields = saved
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := unmarshalNumber(b, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// scope returns the field scope of a write to subresource.
//
// Its keys are the store's merge keys, overridden by the strategy's
// FieldSchemaProvider: list-map keys joined by "," and atomic maps marked
// atomicMap, as structured-merge-diff reads the +listMapKey and
// +mapType=atomic markers.
func scopeOf(s *registry.Store, subresource string) fieldScope {
	mk := s.MergeKeys()
	if paths := atomicListElements(s); len(paths) > 0 {
		mk = maps.Clone(mk)
		for _, p := range paths {
			mk[p+atomicElementsSuffix] = atomicMap
		}
	}
	if fs, ok := s.Strategy().(registry.FieldSchemaProvider); ok {
		mk = maps.Clone(mk)
		for p, keys := range fs.ListMapKeys() {
			mk[p] = strings.Join(keys, ",")
		}
		for _, p := range fs.AtomicMaps() {
			mk[p] = atomicMap
		}
	}
	return fieldScope{mergeKeys: mk, subresource: subresource, hasStatus: s.Info().HasStatus}
}

// atomicListElements caches registry.AtomicListElementsOf per strategy
// object type.
func atomicListElements(s *registry.Store) []string {
	t := reflect.TypeOf(s.Strategy().New())
	if v, ok := atomicElementsCache.Load(t); ok {
		return v.([]string)
	}
	paths := registry.AtomicListElementsOf(t)
	atomicElementsCache.Store(t, paths)
	return paths
}

var atomicElementsCache sync.Map // reflect.Type -> []string

// trackUpdate sets obj's managedFields for an Update-operation write
// (create, update, non-apply patch) of obj over live (nil on create) by
// manager. As upstream's FieldManager.Update, the managedFields sent in
// obj are the starting point when they decode and the write is not to a
// subresource; otherwise live's are. An update (live not nil) that starts
// from no managedFields at all records none, as upstream's
// skipNonAppliedManager.
func trackUpdate(s *registry.Store, live, obj meta.Object, manager, subresource string) error {
	create := live == nil
	if create {
		live = s.Strategy().New()
	}
	m := obj.GetObjectMeta()
	ms, ok := decodeManagers(m.ManagedFields)
	if !ok || len(ms) == 0 || subresource != "" {
		ms, ok = decodeManagers(live.GetObjectMeta().ManagedFields)
		if !ok {
			ms = nil
		}
	}
	if len(ms) == 0 && !create {
		// upstream's skipNonAppliedManager: an update of an object that
		// has no managedFields (created without any field set, or by a
		// writer that records none) starts no tracking; only an apply does.
		m.ManagedFields = nil
		return nil
	}
	liveDoc, err := docOf(live)
	if err != nil {
		return err
	}
	newDoc, err := docOf(obj)
	if err != nil {
		return err
	}
	id := meta.ManagedFieldsEntry{Manager: manager, Operation: operationUpdate, APIVersion: s.Info().APIVersion(), Subresource: subresource}
	ms = updateFields(ms, liveDoc, newDoc, id, scopeOf(s, subresource), s.Now())
	if subresource == subScale {
		// upstream's ScaleHandler.ToParent rebuilds the parent's entries
		// with the parent's times only, so a /scale writer's entry has no
		// time (and sorts first among the Update entries)
		if me := findManager(ms, id); me != nil {
			me.Time = nil
		}
	}
	m.ManagedFields = encodeManagers(ms)
	return nil
}

// TrackCreate sets the managedFields of obj, an object of a kind that has
// no store (the review kinds), as upstream's create handler records a
// create before the REST storage runs (FieldManager.UpdateNoErrors over
// an empty object): one Update entry of apiVersion for the request's
// field manager (?fieldManager, else the User-Agent prefix) owning every
// field the request set, metadata's server-owned fields excepted; no entry
// when it set none. now is the entry's time. It returns obj's JSON
// encoding errors.
func TrackCreate(r *http.Request, obj meta.Object, apiVersion string, now time.Time) error {
	return TrackSubresourceCreate(r, obj, apiVersion, "", now)
}

// TrackSubresourceCreate is TrackCreate for a create on a subresource
// (serviceaccounts/token): the entry names subresource, as upstream's
// create handler records it.
func TrackSubresourceCreate(r *http.Request, obj meta.Object, apiVersion, subresource string, now time.Time) error {
	live, ok := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(meta.Object)
	if !ok {
		return fmt.Errorf("rest: TrackCreate of %T: not a pointer to an object", obj)
	}
	liveDoc, err := docOf(live)
	if err != nil {
		return err
	}
	newDoc, err := docOf(obj)
	if err != nil {
		return err
	}
	id := meta.ManagedFieldsEntry{Manager: managerName(r, writeOptions{fieldManager: r.URL.Query().Get("fieldManager")}), Operation: operationUpdate, APIVersion: apiVersion, Subresource: subresource}
	ms := updateFields(nil, liveDoc, newDoc, id, fieldScope{}, now)
	obj.GetObjectMeta().ManagedFields = encodeManagers(ms)
	return nil
}

// ObjectWriter creates and updates a store's objects, and writes their
// status, as a controller of the server does, recording each write in
// managedFields as an Update of Manager, as upstream records what its own
// controllers write through their loopback clients (the "kubernetes"
// Service and Endpoints, the system namespaces and the automanaged
// APIServices, and the availability controller's APIService status with
// subresource "status": all manager "kube-apiserver"). Created and
// updated objects get the scheme defaults a decoded request body gets
// (registry.Defaulter) before the ownership is recorded.
type ObjectWriter struct {
	Store   *registry.Store
	Manager string
	// CreateFields, when set, returns the fieldsV1 a create of obj (after
	// the scheme defaults) records for Manager, computed ahead of time, or
	// false to compute them. Entries obj carries already are kept less
	// those fields (createEntries). The server's bootstrap objects use a
	// generated table of them: recording ownership is a JSON round trip and
	// a walk per object, a third of the CPU of a fresh start-up with 127
	// bootstrap RBAC objects. The entry written is the one trackUpdate
	// would write (a test compares the table with it).
	CreateFields func(obj meta.Object) (meta.FieldsV1, bool)
}

// Get returns the stored object (registry.Store.Get).
func (w ObjectWriter) Get(ctx context.Context, namespace, name string) (meta.Object, error) {
	return w.Store.Get(ctx, namespace, name)
}

// Names returns the names of the stored objects of namespace (all of a
// cluster-scoped resource) without decoding them (registry.Store.Names).
func (w ObjectWriter) Names(ctx context.Context, namespace string) ([]string, error) {
	return w.Store.Names(ctx, namespace)
}

// Create records obj's fields as Manager's and creates it. Errors are the
// store's (AlreadyExists, Invalid, NotFound for a missing namespace).
func (w ObjectWriter) Create(ctx context.Context, obj meta.Object) (meta.Object, error) {
	applyDefaults(w.Store, obj)
	if !w.createFields(obj) {
		if err := trackUpdate(w.Store, nil, obj, w.Manager, ""); err != nil {
			return nil, err
		}
	}
	return w.Store.Create(ctx, obj)
}

// createFields records obj's create from CreateFields, when set and it
// knows obj, and says whether it did. An object that carries managedFields
// of its own (a bootstrap FlowSchema's status entry) keeps them less the
// fields the new entry owns (createEntries), as trackUpdate records it.
func (w ObjectWriter) createFields(obj meta.Object) bool {
	if w.CreateFields == nil {
		return false
	}
	f, ok := w.CreateFields(obj)
	if !ok {
		return false
	}
	now := w.Store.Now()
	t := meta.NewTime(now)
	id := meta.ManagedFieldsEntry{Manager: w.Manager, Operation: operationUpdate, APIVersion: w.Store.Info().APIVersion()}
	m := obj.GetObjectMeta()
	if len(m.ManagedFields) == 0 {
		e := id
		e.Time, e.FieldsType, e.FieldsV1 = &t, "FieldsV1", f
		m.ManagedFields = []meta.ManagedFieldsEntry{e}
		return true
	}
	mf, ok := createEntries(m.ManagedFields, id, f, now) // fieldmanager_create.go
	if ok {
		m.ManagedFields = mf
	}
	return ok
}

// Update records the change from live (the stored object obj replaces,
// whose resourceVersion obj carries) in managedFields and writes obj.
// Errors are the store's (Conflict when live is no longer current).
func (w ObjectWriter) Update(ctx context.Context, live, obj meta.Object) (meta.Object, error) {
	applyDefaults(w.Store, obj)
	obj.GetObjectMeta().ManagedFields = live.GetObjectMeta().ManagedFields
	if err := trackUpdate(w.Store, live, obj, w.Manager, ""); err != nil {
		return nil, err
	}
	return w.Store.Update(ctx, obj)
}

// UpdateStatus records the status write in obj's managedFields against the
// stored object (an Update entry with subresource "status"), then writes
// it through the store's /status path. Errors are the store's (NotFound,
// Conflict, Invalid).
func (w ObjectWriter) UpdateStatus(ctx context.Context, obj meta.Object) (meta.Object, error) {
	m := obj.GetObjectMeta()
	live, err := w.Store.Get(ctx, m.Namespace, m.Name)
	if err != nil {
		return nil, err
	}
	if err := trackUpdate(w.Store, live, obj, w.Manager, "status"); err != nil {
		return nil, err
	}
	return w.Store.UpdateStatus(ctx, obj)
}
