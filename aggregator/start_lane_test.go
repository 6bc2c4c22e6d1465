package aggregator

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// Passes in one lane run one at a time, in the order they got it; a pass
// waits no longer than the lane's bound; without a lane, or once ctx has
// ended, a pass runs at once.
func TestStartLane(t *testing.T) {
	within := func(t *testing.T, done <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not run within 10 s", what)
		}
	}
	t.Run("one at a time", func(t *testing.T) {
		ctx := withStartLane(context.Background(), time.Hour)
		var mu sync.Mutex
		var order []string
		note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		holding, release, firstDone, secondDone := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(firstDone)
			inStartLane(ctx, func() { note("first start"); close(holding); <-release; note("first end") })
		}()
		<-holding
		go func() { defer close(secondDone); inStartLane(ctx, func() { note("second") }) }()
		select {
		case <-secondDone:
			t.Fatal("the second pass ran while the first held the lane")
		case <-time.After(20 * time.Millisecond):
		}
		close(release)
		within(t, firstDone, "the first pass")
		within(t, secondDone, "the second pass")
		if want := []string{"first start", "first end", "second"}; !slices.Equal(order, want) {
			t.Errorf("order %q, want %q", order, want)
		}
	})
	t.Run("bounded wait", func(t *testing.T) {
		ctx := withStartLane(context.Background(), time.Millisecond)
		release, holding := make(chan struct{}), make(chan struct{})
		defer close(release)
		go inStartLane(ctx, func() { close(holding); <-release })
		<-holding
		done := make(chan struct{})
		go inStartLane(ctx, func() { close(done) })
		within(t, done, "a pass waiting beyond the bound")
	})
	t.Run("ended context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(withStartLane(context.Background(), time.Hour))
		release, holding := make(chan struct{}), make(chan struct{})
		defer close(release)
		go inStartLane(ctx, func() { close(holding); <-release })
		<-holding
		cancel()
		done := make(chan struct{})
		go inStartLane(ctx, func() { close(done) })
		within(t, done, "a pass of an ended context")
	})
	t.Run("no lane", func(t *testing.T) {
		ran := false
		inStartLane(context.Background(), func() { ran = true })
		if !ran {
			t.Error("no lane: the pass did not run")
		}
	})
}
