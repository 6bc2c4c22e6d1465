package rest

import (
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
	ms, ok := decodeManagers(existing)
	if !ok {
		return nil, false
	}
	set, err := parseFieldsV1(fieldsV1)
	if err != nil {
		return nil, false
	}
	changed := set.compact()
	for _, m := range ms {
		m.set = difference(m.set, changed)
	}
	if changed != nil {
		me := findManager(ms, id)
		if me == nil {
			me = &managerEntry{ManagedFieldsEntry: id}
			ms = append(ms, me)
		}
		me.set = union(me.set, changed)
		t := meta.NewTime(now)
		me.Time = &t
	}
	return encodeManagers(ms), true
}
