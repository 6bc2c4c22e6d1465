package storage

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// fuzzKeys are the keys a fuzzed op sequence uses: few, so that ops
// collide, and with prefixes that overlap ("/a/" against "/ab/").
var fuzzKeys = []string{"/a/1", "/a/2", "/a/1/x", "/ab/1", "/a", "/b/1"}

// FuzzBoltRoundTrip runs one random op sequence against Memory and Bolt and
// requires identical answers: each op's revision, error and returned KV,
// then the final List and revision, the events seen by a watch on "/a/"
// from revision 1, and (after reopening the bbolt file) the same List.
// Each op is three bytes: the op, the key, and the expected revision
// (0: unconditional, 1: the key's current revision, else a literal).
func FuzzBoltRoundTrip(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 1, 2, 0, 1})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 0, 9, 3, 0, 0, 2, 0, 0})
	f.Add([]byte{0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 1, 3, 1, 2, 4, 1, 3, 0, 0})
	f.Add([]byte{2, 0, 0, 1, 1, 0, 0, 2, 0, 1, 2, 2, 2, 2, 0, 0, 2, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 3*64 {
			ops = ops[:3*64]
		}
		mem := newMemory(defaultWatchConfig())
		defer mem.Close()
		path := filepath.Join(t.TempDir(), "aggsim.db")
		bdb, err := OpenBolt(path, BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer bdb.Close()
		stores := []Storage{mem, bdb}
		var watches []<-chan Event
		for _, s := range stores {
			ch, err := s.Watch(ctx, "/a/", 1)
			if err != nil {
				t.Fatal(err)
			}
			watches = append(watches, ch)
		}
		for i := 0; i+2 < len(ops); i += 3 {
			key := fuzzKeys[int(ops[i+1])%len(fuzzKeys)]
			value := []byte(fmt.Sprintf("v%d", i))
			var results []string
			for _, s := range stores {
				expected := int64(ops[i+2])
				if expected == 1 {
					kv, _ := s.Get(ctx, key)
					expected = kv.ModRevision
				}
				var (
					rev int64
					kv  KV
					err error
				)
				switch ops[i] % 5 {
				case 0:
					rev, err = s.Create(ctx, key, value)
				case 1:
					rev, err = s.Update(ctx, key, value, expected)
				case 2:
					rev, kv, err = s.Delete(ctx, key, expected)
				case 3:
					kv, err = s.Get(ctx, key)
				case 4:
					var kvs []KV
					kvs, rev, err = s.List(ctx, key)
					kv.Key = fmt.Sprint(len(kvs))
				}
				results = append(results, fmt.Sprintf("%d %s %v", rev, fmtKV(kv), errName(err)))
			}
			if results[0] != results[1] {
				t.Fatalf("op %d (%d on %s): memory %s, bolt %s", i/3, ops[i]%5, key, results[0], results[1])
			}
		}
		memList, memEvents := snapshot(t, mem, watches[0])
		boltList, boltEvents := snapshot(t, bdb, watches[1])
		if memList != boltList {
			t.Fatalf("List:\nmemory %s\nbolt   %s", memList, boltList)
		}
		if memEvents != boltEvents {
			t.Fatalf("events:\nmemory %s\nbolt   %s", memEvents, boltEvents)
		}
		bdb.Close()
		reopened := openTestBolt(t, path)
		if got, _ := snapshot(t, reopened, nil); got != memList {
			t.Fatalf("List after reopen:\n got %s\nwant %s", got, memList)
		}
	})
}

// errName names err by the sentinel it is, so backends can be compared.
func errName(err error) string {
	for _, s := range []error{ErrKeyNotFound, ErrKeyExists, ErrRevisionMismatch, ErrCompacted, ErrClosed} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if err != nil {
		return "unexpected: " + err.Error()
	}
	return "ok"
}

// snapshot renders the store's full List, its revision and the events in ch.
func snapshot(t *testing.T, s Storage, ch <-chan Event) (list, events string) {
	kvs, rev, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	list = fmt.Sprint("@", rev, " ", s.Revision())
	for _, kv := range kvs {
		list += " " + fmtKV(kv)
	}
	if ch != nil {
		evs, closed := drain(ch)
		events = fmt.Sprintf("%q closed=%v", evs, closed)
	}
	return list, events
}
