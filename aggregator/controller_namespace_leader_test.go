package aggregator

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestNamespaceControllerNotLeadingDropsItems: a replica that does not
// hold the Lease leaves a deleted namespace to the leader and forgets it
// (requeueAll queues every deleted namespace again once it leads), where
// it used to re-queue it every 2 s for as long as it ran, even after the
// namespace was gone.
func TestNamespaceControllerNotLeadingDropsItems(t *testing.T) {
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	inf := NewInformer(registry.NewStore(st, registry.CoordinationStrategies(nil)[0], registry.StoreOptions{}) /* not run */, logger)
	c := newNamespaceController(http.NotFoundHandler(), inf, logger, time.Now)
	c.leading = func() bool { return false }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	c.queue.add("gone", 0)
	waitFor(t, "the item taken and dropped", func() bool {
		c.queue.mu.Lock()
		defer c.queue.mu.Unlock()
		return len(c.queue.due) == 0 && len(c.queue.processing) == 0
	})
	time.Sleep(20 * time.Millisecond)
	c.queue.mu.Lock()
	defer c.queue.mu.Unlock()
	if len(c.queue.due) != 0 {
		t.Errorf("not leading: still queued %v", c.queue.due)
	}
}
