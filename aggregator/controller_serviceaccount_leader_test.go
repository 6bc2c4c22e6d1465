package aggregator

import (
	"context"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/coordination"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestServiceAccountControllerLeaderGated: with --leader-elect the
// serviceaccount controller, like kube-controller-manager's (and like the
// garbage collector here), runs only on the replica that holds the
// kube-system/kube-controller-manager Lease: while another identity holds
// it no default ServiceAccount is created; once the Lease is free this
// replica takes it and the controller fills every namespace.
func TestServiceAccountControllerLeaderGated(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	leases := rest.ObjectWriter{Store: registry.NewStore(st, registry.CoordinationStrategies(nil)[0], registry.StoreOptions{}), Manager: "test"}
	other, hour := "other-replica", int32(3600)
	now := meta.MicroTime{Time: time.Now().Truncate(time.Microsecond)}
	obj := leases.Store.Strategy().New()
	if err := setLease(obj, coordination.LeaseSpec{HolderIdentity: &other, LeaseDurationSeconds: &hour, AcquireTime: &now, RenewTime: &now}); err != nil {
		t.Fatal(err)
	}
	obj.GetObjectMeta().Namespace, obj.GetObjectMeta().Name = LeaderElectionNamespace, LeaderElectionName
	if _, err := leases.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	s, _ := runServer(t, Options{Storage: st, Anonymous: true, LeaderElection: true})
	sa := s.API().Store(meta.GroupResource{Resource: "serviceaccounts"})
	exists := func() bool { _, err := sa.Get(ctx, "default", "default"); return err == nil }
	time.Sleep(300 * time.Millisecond)
	if exists() {
		t.Fatal("default ServiceAccount created while another replica holds the lease")
	}
	// Nor does it collect the names of the namespaces it sees meanwhile
	// (they would stay queued, deleted ones too, on a replica that never
	// leads); it lists them when it starts.
	s.saController.queue.mu.Lock()
	queued := len(s.saController.queue.due)
	s.saController.queue.mu.Unlock()
	if queued != 0 {
		t.Errorf("not leading: %d namespaces queued, want 0", queued)
	}
	if _, err := s.API().Store(meta.GroupResource{Group: registry.GroupCoordination, Resource: "leases"}).Delete(ctx, LeaderElectionNamespace, LeaderElectionName, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "default ServiceAccount once leading", exists) // the elector retries every 2 s
}
