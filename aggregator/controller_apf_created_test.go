package aggregator

import (
	"context"
	"testing"

	"github.com/aggsim/aggsim/registry/storage"
)

// createMissing reports a fresh store (it created every bootstrap object,
// so the producer's first periodic pass is not needed at once) only when
// none existed: a second start on the same store, or one with a single
// object deleted, has Run's first pass reconcile at start as before.
func TestAPFCreateMissingFresh(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	start := func() *apfProducer {
		t.Helper()
		s, err := New(Options{Storage: st})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.apfProducer.createMissing(ctx); err != nil {
			t.Fatal(err)
		}
		return s.apfProducer
	}
	if p := start(); !p.created {
		t.Error("fresh store: created false")
	}
	if p := start(); p.created {
		t.Error("existing store: created true")
	}
	p := start()
	if _, err := p.store("flowschemas").Delete(ctx, "", "exempt", nil); err != nil {
		t.Fatal(err)
	}
	if p := start(); p.created {
		t.Error("store missing one FlowSchema: created true")
	}
}
