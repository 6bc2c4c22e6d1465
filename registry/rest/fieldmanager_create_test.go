package rest

import (
	"fmt"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// createEntries' shortcut (existing entries kept as they are) answers
// what decoding, subtracting and re-encoding answers: for an entry that
// shares no field (kept), one that shares a field (loses it), one in a
// non-canonical encoding (re-encoded), one of the same manager (merged),
// and an empty one (dropped); entries sorted as upstream sorts them.
func TestCreateEntriesShortcut(t *testing.T) {
	now := time.Unix(1700000000, 0)
	t0 := meta.NewTime(now.Add(-time.Hour))
	id := meta.ManagedFieldsEntry{Manager: "producer", Operation: operationUpdate, APIVersion: "v1"}
	take := meta.FieldsV1(`{"f:metadata":{"f:annotations":{".":{},"f:a":{}}},"f:spec":{"f:x":{}}}`)
	entry := func(manager, op, fields string) meta.ManagedFieldsEntry {
		return meta.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &t0, FieldsType: "FieldsV1", FieldsV1: meta.FieldsV1(fields), Subresource: "status"}
	}
	for _, c := range []struct {
		name     string
		existing []meta.ManagedFieldsEntry
		kept     bool
	}{
		{"disjoint", []meta.ManagedFieldsEntry{entry("consumer", "Apply", `{"f:status":{"f:conditions":{}}}`)}, true},
		{"shares a field", []meta.ManagedFieldsEntry{entry("other", "Update", `{"f:spec":{"f:x":{},"f:y":{}}}`)}, false},
		{"not canonical", []meta.ManagedFieldsEntry{entry("consumer", "Apply", `{ "f:status": {"f:conditions":{}} }`)}, false},
		{"same manager", []meta.ManagedFieldsEntry{{Manager: "producer", Operation: operationUpdate, APIVersion: "v1", Time: &t0, FieldsType: "FieldsV1", FieldsV1: meta.FieldsV1(`{"f:spec":{"f:z":{}}}`)}}, false},
		{"empty", []meta.ManagedFieldsEntry{entry("consumer", "Apply", `{}`)}, false},
	} {
		if got := keptAsIs(c.existing, id, take); got != c.kept {
			t.Errorf("%s: kept as is %v, want %v", c.name, got, c.kept)
		}
		got, ok1 := createEntries(c.existing, id, take, now)
		want, ok2 := createEntriesDecoded(c.existing, id, take, now)
		if g, w := fmt.Sprintf("%v %s", ok1, entriesString(got)), fmt.Sprintf("%v %s", ok2, entriesString(want)); g != w {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, w)
		}
	}
}

func entriesString(es []meta.ManagedFieldsEntry) string {
	s := ""
	for _, e := range es {
		s += fmt.Sprintf("[%s %s %s %s %s %v %s] ", e.Manager, e.Operation, e.APIVersion, e.Subresource, e.FieldsType, e.Time, e.FieldsV1)
	}
	return s
}
