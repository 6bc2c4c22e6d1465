package aggregator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/coordination"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// The leader election of kube-controller-manager 1.33 (its
// --leader-elect-* defaults and lock): the Lease kube-system/
// kube-controller-manager, held for 15 s, renewed every 2 s, given up
// when not renewed within 10 s.
const (
	LeaderElectionNamespace = "kube-system"
	LeaderElectionName      = "kube-controller-manager"

	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// leaderElector holds the kube-controller-manager Lease for the
// controllers that must run once among replicas sharing a store
// (namespace controller, ClusterRole aggregation), with client-go's
// leaderelection algorithm (tools/leaderelection/leaderelection.go
// tryAcquireOrRenew): a lease is free when its holder is empty or when
// its record has not changed for leaseDurationSeconds as observed on this
// replica's clock (not the holder's renewTime, so clock skew between
// replicas does not matter); every write is a compare-and-swap on the
// Lease's resourceVersion, so two replicas never both win. Without
// Options.LeaderElection there is no lease and this replica always leads.
type leaderElector struct {
	leases   rest.ObjectWriter
	identity string
	logger   *slog.Logger
	now      func() time.Time

	leaseDuration, renewDeadline, retryPeriod time.Duration

	leading atomic.Bool
	// started is closed the first time this replica leads: the
	// controllers that, once started, keep running (the garbage
	// collector, the serviceaccount controller) wait for it.
	started     chan struct{}
	startedOnce sync.Once

	mu           sync.Mutex
	onStart      []func() // run each time this replica becomes leader
	observed     string   // the last observed lease spec (JSON)
	observedTime time.Time
}

// newLeaderElector returns an elector over the leases store; identity is
// "<hostname>_<random UUID>" as kube-controller-manager's.
func newLeaderElector(store *registry.Store, logger *slog.Logger, now func() time.Time) *leaderElector {
	host, _ := os.Hostname()
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	id := host + "_" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	return &leaderElector{
		leases: rest.ObjectWriter{Store: store, Manager: LeaderElectionName}, identity: id, logger: logger, now: now,
		leaseDuration: DefaultLeaseDuration, renewDeadline: DefaultRenewDeadline, retryPeriod: DefaultRetryPeriod,
		started: make(chan struct{}),
	}
}

// alwaysLeader is the elector of a replica that runs alone.
func alwaysLeader() *leaderElector {
	le := &leaderElector{started: make(chan struct{})}
	le.leading.Store(true)
	close(le.started)
	return le
}

// Started is closed the first time this replica becomes the leader (at
// once for alwaysLeader).
func (le *leaderElector) Started() <-chan struct{} { return le.started }

// Leading reports whether this replica holds the lease now.
func (le *leaderElector) Leading() bool { return le.leading.Load() }

// OnStartedLeading registers f to run (in its own goroutine) each time
// this replica becomes the leader.
func (le *leaderElector) OnStartedLeading(f func()) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.onStart = append(le.onStart, f)
}

// Run acquires and renews the lease until ctx ends, then releases it if
// held (holderIdentity emptied, as client-go's ReleaseOnCancel), so that
// another replica takes over at once instead of after leaseDuration.
func (le *leaderElector) Run(ctx context.Context) {
	t := time.NewTicker(le.retryPeriod)
	defer t.Stop()
	var lastRenew time.Time
	for {
		ok, err := le.tryAcquireOrRenew(ctx)
		switch {
		case ok:
			lastRenew = le.now()
			if !le.leading.Swap(true) {
				le.logger.Info("became leader", "lease", LeaderElectionNamespace+"/"+LeaderElectionName, "identity", le.identity)
				le.startedOnce.Do(func() { close(le.started) })
				le.mu.Lock()
				for _, f := range le.onStart {
					go f()
				}
				le.mu.Unlock()
			}
		case le.leading.Load() && le.now().Sub(lastRenew) > le.renewDeadline:
			le.leading.Store(false)
			le.logger.Warn("lost leadership: lease not renewed within the renew deadline", "lease", LeaderElectionNamespace+"/"+LeaderElectionName, "err", err)
		}
		select {
		case <-ctx.Done():
			if le.leading.Swap(false) {
				rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				le.release(rctx)
				cancel()
			}
			return
		case <-t.C:
		}
	}
}

// tryAcquireOrRenew is one round of client-go's algorithm.
func (le *leaderElector) tryAcquireOrRenew(ctx context.Context) (bool, error) {
	now := meta.MicroTime{Time: le.now().Truncate(time.Microsecond)}
	duration := int32(le.leaseDuration / time.Second)
	live, err := le.leases.Get(ctx, LeaderElectionNamespace, LeaderElectionName)
	if errors.Is(err, meta.ErrNotFound) {
		zero := int32(0)
		spec := coordination.LeaseSpec{HolderIdentity: &le.identity, LeaseDurationSeconds: &duration,
			AcquireTime: &now, RenewTime: &now, LeaseTransitions: &zero}
		obj := le.leases.Store.Strategy().New()
		if err := setLease(obj, spec); err != nil {
			return false, err
		}
		m := obj.GetObjectMeta()
		m.Namespace, m.Name = LeaderElectionNamespace, LeaderElectionName
		if _, err := le.leases.Create(ctx, obj); err != nil {
			return false, err
		}
		le.observe(spec)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	old, err := leaseSpec(live)
	if err != nil {
		return false, err
	}
	le.observe(old)
	holder := ""
	if old.HolderIdentity != nil {
		holder = *old.HolderIdentity
	}
	le.mu.Lock()
	expires := le.observedTime.Add(le.leaseDuration)
	if old.LeaseDurationSeconds != nil {
		expires = le.observedTime.Add(time.Duration(*old.LeaseDurationSeconds) * time.Second)
	}
	le.mu.Unlock()
	if holder != "" && holder != le.identity && le.now().Before(expires) {
		return false, nil
	}
	spec := coordination.LeaseSpec{HolderIdentity: &le.identity, LeaseDurationSeconds: &duration, RenewTime: &now}
	transitions := int32(0)
	if old.LeaseTransitions != nil {
		transitions = *old.LeaseTransitions
	}
	if holder == le.identity {
		spec.AcquireTime = old.AcquireTime
	} else {
		spec.AcquireTime = &now
		transitions++
	}
	spec.LeaseTransitions = &transitions
	upd := le.leases.Store.Strategy().New()
	if err := setLease(upd, spec); err != nil {
		return false, err
	}
	lm, um := live.GetObjectMeta(), upd.GetObjectMeta()
	um.Namespace, um.Name, um.ResourceVersion, um.UID = lm.Namespace, lm.Name, lm.ResourceVersion, lm.UID
	um.CreationTimestamp, um.Labels, um.Annotations = lm.CreationTimestamp, lm.Labels, lm.Annotations
	if _, err := le.leases.Update(ctx, live, upd); err != nil {
		return false, err // a Conflict: another replica wrote first
	}
	le.observe(spec)
	return true, nil
}

// release empties the holder of a lease this replica holds.
func (le *leaderElector) release(ctx context.Context) {
	live, err := le.leases.Get(ctx, LeaderElectionNamespace, LeaderElectionName)
	if err != nil {
		return
	}
	old, err := leaseSpec(live)
	if err != nil || old.HolderIdentity == nil || *old.HolderIdentity != le.identity {
		return
	}
	now := meta.MicroTime{Time: le.now().Truncate(time.Microsecond)}
	one := int32(1)
	empty := ""
	spec := coordination.LeaseSpec{HolderIdentity: &empty, LeaseDurationSeconds: &one, AcquireTime: &now, RenewTime: &now, LeaseTransitions: old.LeaseTransitions}
	upd := le.leases.Store.Strategy().New()
	if setLease(upd, spec) != nil {
		return
	}
	lm, um := live.GetObjectMeta(), upd.GetObjectMeta()
	um.Namespace, um.Name, um.ResourceVersion, um.UID = lm.Namespace, lm.Name, lm.ResourceVersion, lm.UID
	um.CreationTimestamp, um.Labels, um.Annotations = lm.CreationTimestamp, lm.Labels, lm.Annotations
	if _, err := le.leases.Update(ctx, live, upd); err == nil {
		le.logger.Info("released leadership", "lease", LeaderElectionNamespace+"/"+LeaderElectionName)
	}
}

// observe records spec as the last seen record, restarting the expiry
// clock when it changed.
func (le *leaderElector) observe(spec coordination.LeaseSpec) {
	b, _ := json.Marshal(spec)
	le.mu.Lock()
	defer le.mu.Unlock()
	if string(b) != le.observed {
		le.observed, le.observedTime = string(b), le.now()
	}
}

// leaseSpec decodes the spec of a stored Lease (a GenericObject).
func leaseSpec(obj meta.Object) (coordination.LeaseSpec, error) {
	var spec coordination.LeaseSpec
	g, ok := obj.(*registry.GenericObject)
	if !ok {
		return spec, errors.New("lease: unexpected object type")
	}
	if len(g.Spec) == 0 {
		return spec, nil
	}
	err := json.Unmarshal(g.Spec, &spec)
	return spec, err
}

// setLease stores spec in a new Lease object.
func setLease(obj meta.Object, spec coordination.LeaseSpec) error {
	g, ok := obj.(*registry.GenericObject)
	if !ok {
		return errors.New("lease: unexpected object type")
	}
	b, err := json.Marshal(spec)
	g.Spec = b
	g.TypeMeta = meta.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"}
	return err
}
