package registry

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// Empty answers whether the resource has objects, sees a create and a
// delete at once (of this resource or, for the remembered answer, of any
// other), and answers a repeated "empty" without reading while nothing
// was written: with a cancelled context, whose reads fail, it still
// answers true then, and fails once a write moved the revision.
func TestStoreEmpty(t *testing.T) {
	bolt, err := storage.OpenBolt(filepath.Join(t.TempDir(), "db"), storage.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bolt.Close() })
	for name, st := range map[string]storage.Storage{"memory": storage.NewMemory(), "bbolt": bolt} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			s := NewStore(st, ConfigMapStrategy{}, StoreOptions{})
			other := NewStore(st, LimitRangeStrategy{}, StoreOptions{})
			empty := func(ctx context.Context, want bool) {
				t.Helper()
				got, err := s.Empty(ctx)
				if err != nil || got != want {
					t.Fatalf("Empty = %v, %v; want %v, nil", got, err, want)
				}
			}
			empty(ctx, true)
			empty(cancelled, true) // remembered: no read
			if _, err := other.Create(ctx, &core.LimitRange{ObjectMeta: meta.ObjectMeta{Namespace: "a", Name: "l"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Empty(cancelled); err == nil {
				t.Fatal("Empty after a write answered without reading")
			}
			empty(ctx, true)
			if _, err := s.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "a", Name: "c"}}); err != nil {
				t.Fatal(err)
			}
			empty(ctx, false)
			if _, err := s.Empty(cancelled); err == nil {
				t.Fatal("Empty of a non-empty resource answered without reading")
			}
			if _, err := s.Delete(ctx, "a", "c", nil); err != nil {
				t.Fatal(err)
			}
			empty(ctx, true)
			empty(cancelled, true)
		})
	}
}
