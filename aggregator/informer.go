package aggregator

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Informer keeps an in-memory copy of every object of one resource, fed by
// a list followed by a watch of its registry.Store, and tells its handlers
// about every change. It plays the role of a client-go shared informer in
// kube-aggregator's controllers: readers never touch the store, and a
// watch that ends (compaction, a slow reader) is recovered by re-listing
// and diffing, so handlers see every final state.
type Informer struct {
	store  *registry.Store
	logger *slog.Logger

	mu       sync.RWMutex // guards items and handlers
	items    map[string]meta.Object
	handlers []func(old, cur meta.Object)

	syncOnce sync.Once
	synced   chan struct{}
}

// NewInformer returns an informer over store; call Run to start it.
func NewInformer(store *registry.Store, logger *slog.Logger) *Informer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Informer{store: store, logger: logger, items: map[string]meta.Object{}, synced: make(chan struct{})}
}

// AddHandler registers f, called after every change with the previous and
// the current object: old nil on create, cur nil on delete. Handlers run on
// the informer's goroutine, one at a time, in change order; they must not
// block for long and must not modify the objects.
func (i *Informer) AddHandler(f func(old, cur meta.Object)) {
	i.mu.Lock()
	i.handlers = append(i.handlers, f)
	i.mu.Unlock()
}

// Synced is closed once the first list has been loaded and handed to the
// handlers.
func (i *Informer) Synced() <-chan struct{} { return i.synced }

// Get returns the cached object, or false.
func (i *Informer) Get(namespace, name string) (meta.Object, bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	o, ok := i.items[objectKey(namespace, name)]
	return o, ok
}

// List returns the cached objects in no particular order.
func (i *Informer) List() []meta.Object {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make([]meta.Object, 0, len(i.items))
	for _, o := range i.items {
		out = append(out, o)
	}
	return out
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Run lists and watches until ctx ends, re-listing whenever a watch ends.
func (i *Informer) Run(ctx context.Context) {
	backoff := 10 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		var rv string
		var err error
		if first { // in the start lane of a controller started once ready (start_lane.go)
			inStartLane(ctx, func() { rv, err = i.relist(ctx) })
			first = false
		} else {
			rv, err = i.relist(ctx)
		}
		if err != nil {
			i.logger.Warn("informer list failed", "resource", i.store.Info().Resource, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			if backoff < time.Second {
				backoff *= 2
			}
			continue
		}
		backoff = 10 * time.Millisecond
		i.watch(ctx, rv)
	}
}

func (i *Informer) relist(ctx context.Context) (string, error) {
	items, rv, _, err := i.store.List(ctx, "", registry.ListOptions{})
	if err != nil {
		return "", err
	}
	fresh := make(map[string]meta.Object, len(items))
	for _, o := range items {
		m := o.GetObjectMeta()
		fresh[objectKey(m.Namespace, m.Name)] = o
	}
	i.mu.Lock()
	old := i.items
	i.items = fresh
	handlers := i.handlers
	i.mu.Unlock()
	for k, cur := range fresh {
		prev := old[k]
		if prev != nil && prev.GetObjectMeta().ResourceVersion == cur.GetObjectMeta().ResourceVersion {
			continue
		}
		for _, h := range handlers {
			h(prev, cur)
		}
	}
	for k, prev := range old {
		if _, ok := fresh[k]; !ok {
			for _, h := range handlers {
				h(prev, nil)
			}
		}
	}
	i.syncOnce.Do(func() { close(i.synced) })
	return rv, nil
}

func (i *Informer) watch(ctx context.Context, rv string) {
	// in this goroutine (no watch goroutine per informer: issue 21's idle RSS)
	_ = i.store.WatchFunc(ctx, "", registry.ListOptions{ResourceVersion: rv}, func(ev registry.WatchEvent) bool {
		switch ev.Type {
		case "ADDED", "MODIFIED", "DELETED":
		case "ERROR": // e.g. 410 Expired: re-list
			return false
		default: // BOOKMARK needs nothing
			return true
		}
		m := ev.Object.GetObjectMeta()
		k := objectKey(m.Namespace, m.Name)
		i.mu.Lock()
		prev := i.items[k]
		var cur meta.Object
		if ev.Type == "DELETED" {
			delete(i.items, k)
		} else {
			i.items[k] = ev.Object
			cur = ev.Object
		}
		handlers := i.handlers
		i.mu.Unlock()
		for _, h := range handlers {
			h(prev, cur)
		}
		return true
	})
}
