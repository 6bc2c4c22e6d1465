package rest

import (
	"slices"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// createEntries returns the managedFields a create records when the
// object already carries entries of its own (existing) and the creating
// manager's Update entry, id, owns the fields fieldsV1 names (a
// precomputed ObjectWriter.CreateFields): what trackUpdate's updateFields
// computes for a create whose changed fields are exactly those: every
// other entry loses them, id's entry gets them with time now, and the
// entries are sorted as upstream encodes them. It is false when an entry
// or fieldsV1 does not parse (the caller then tracks the create the long
// way).
func createEntries(existing []meta.ManagedFieldsEntry, id meta.ManagedFieldsEntry, fieldsV1 meta.FieldsV1, now time.Time) ([]meta.ManagedFieldsEntry, bool) {
	if len(fieldsV1) > 0 && keptAsIs(existing, id, fieldsV1) {
		// what the decode, difference and encode below give
		t := meta.NewTime(now)
		e := id
		e.Time, e.FieldsType, e.FieldsV1 = &t, "FieldsV1", fieldsV1
		out := append(slices.Clone(existing), e)
		sortEntries(out)
		return out, true
	}
	return createEntriesDecoded(existing, id, fieldsV1, now)
}

// createEntriesDecoded is createEntries on decoded sets.
func createEntriesDecoded(existing []meta.ManagedFieldsEntry, id meta.ManagedFieldsEntry, fieldsV1 meta.FieldsV1, now time.Time) ([]meta.ManagedFieldsEntry, bool) {
	ms, ok := decodeManagers(existing)
	if !ok {
		return nil, false
	}
	set, err := parseFieldsV1(fieldsV1)
	if err != nil {
		return nil, false
	}
	ms = moveFields(ms, set.compact(), nil, id, now)
	return encodeManagers(ms), true
}

// keptAsIs reports whether createEntries keeps every existing entry as it
// is: none is id's, and each one's fieldsV1 is in the canonical encoding
// encodeManagers writes, names some field and none of fieldsV1's. The
// per-pair answer is remembered (keptAsIsMemo): a bootstrap FlowSchema's
// status entry is the same for all of them.
func keptAsIs(existing []meta.ManagedFieldsEntry, id meta.ManagedFieldsEntry, fieldsV1 meta.FieldsV1) bool {
	for _, e := range existing {
		if e.FieldsType != "FieldsV1" || sameManager(e, id) {
			return false
		}
		k := [2]string{string(e.FieldsV1), string(fieldsV1)}
		v, ok := keptAsIsMemo.Load(k)
		if !ok {
			v = disjointCanonical(e.FieldsV1, fieldsV1)
			keptAsIsMemo.Store(k, v)
		}
		if !v.(bool) {
			return false
		}
	}
	return true
}

// keptAsIsMemo holds keptAsIs' answers by pair of fieldsV1 (bounded by
// the pairs the server's own creates use: an entry of a client's object
// never comes with a table's fieldsV1).
var keptAsIsMemo sync.Map

// disjointCanonical reports whether have is a non-empty set in canonical
// encoding that shares no field with take.
func disjointCanonical(have, take meta.FieldsV1) bool {
	h, err := parseFieldsV1(have)
	if err != nil {
		return false
	}
	t, err := parseFieldsV1(take)
	if err != nil {
		return false
	}
	hs, ts := h.compact(), t.compact()
	return !hs.empty() && string(hs.fieldsV1()) == string(have) && intersection(hs, ts).empty()
}
