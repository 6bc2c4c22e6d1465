package registry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestLeaseCreate pins kube-apiserver 1.33.13's answers (kubectl -n default
// create -f - -o json against the reference, see the bodies below): the
// CoordinatedLeaderElection fields are dropped, metadata.generation is
// kept as sent, and the spec's numbers are validated with upstream's
// messages.
func TestLeaseCreate(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	defer st.Close()
	s := NewStore(st, CoordinationStrategies(nil)[0], StoreOptions{})
	decode := func(body string) meta.Object {
		obj := s.Strategy().New()
		if err := json.Unmarshal([]byte(body), obj); err != nil {
			t.Fatal(err)
		}
		s.Strategy().(Defaulter).Default(obj) // as the REST layer does after decoding
		return obj
	}
	out, err := s.Create(ctx, decode(`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"y","namespace":"default","generation":5},"spec":{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-11-24T07:55:23.996311Z","renewTime":"2026-11-24T07:55:23.000000Z","leaseTransitions":0,"strategy":"OldestEmulationVersion","preferredHolder":"b"}}`))
	if err != nil {
		t.Fatal(err)
	}
	g := out.(*GenericObject)
	// The reference answered spec {"holderIdentity":"a","leaseDurationSeconds":15,
	// "acquireTime":"2026-11-24T07:55:23.996311Z","renewTime":"2026-11-24T07:55:23.000000Z","leaseTransitions":0}
	// and metadata.generation 5.
	if want := `{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-11-24T07:55:23.996311Z","renewTime":"2026-11-24T07:55:23.000000Z","leaseTransitions":0}`; string(g.Spec) != want || g.Generation != 5 || g.Status != nil {
		t.Fatalf("stored spec %s generation %d status %s; want %s generation 5", g.Spec, g.Generation, g.Status, want)
	}
	_, err = s.Create(ctx, decode(`{"metadata":{"name":"x","namespace":"default"},"spec":{"leaseDurationSeconds":0,"leaseTransitions":-1}}`))
	// The reference: The Lease "x" is invalid:
	// * spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0
	// * spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0
	se, ok := err.(*meta.StatusError)
	if !ok || se.Status.Code != 422 || se.Status.Message != `Lease.coordination.k8s.io "x" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]` {
		t.Fatalf("invalid lease: %v", err)
	}
}
