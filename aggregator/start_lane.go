package aggregator

import (
	"context"
	"time"
)

// startLane lets the first passes of the controllers started once the
// server is ready (Server.Run's goAfter runs: their informers' first
// lists, the garbage collector's first list of each resource, the
// ClusterRole aggregation's first pass) run one at a time, so that they
// use one core and leave the others to the requests that come right
// after readiness. Go's scheduler looks for network readiness only when a
// core has nothing else to run: with both cores busy with that work (9 ms
// of CPU after a fresh start: the aggregation's three applies, 66
// ClusterRoles decoded by the informer, the collector's lists), the first
// client's TLS handshake and request waited until all of it was done.
// Later passes (re-lists after a watch ends, later syncs) do not use it.
//
// A pass waits for the lane at most wait, then runs anyway: the lane
// orders work, it never holds a controller back for long (a pass that
// calls an admission webhook may take seconds).
type startLane struct {
	slot chan struct{}
	wait time.Duration
}

// startLaneWait bounds how long a pass waits for the lane.
const startLaneWait = 50 * time.Millisecond

type startLaneKey struct{}

// withStartLane returns ctx carrying a new lane whose passes wait for it
// at most wait (see startLane).
func withStartLane(ctx context.Context, wait time.Duration) context.Context {
	return context.WithValue(ctx, startLaneKey{}, &startLane{slot: make(chan struct{}, 1), wait: wait})
}

// inStartLane runs f in ctx's lane (see startLane), or at once when ctx
// carries none or ends while f waits.
func inStartLane(ctx context.Context, f func()) {
	l, _ := ctx.Value(startLaneKey{}).(*startLane)
	if l == nil {
		f()
		return
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slot <- struct{}{}:
		defer func() { <-l.slot }()
	case <-t.C:
	case <-ctx.Done():
	}
	f()
}
