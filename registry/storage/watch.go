package storage

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of the watch window and of a watcher's channel, shared by both
// backends (BoltOptions can change them; NewMemory uses them as they are).
const (
	// DefaultWatchWindow is the number of recent events always kept to
	// resume watches from (etcd keeps history until compaction; the
	// kube-apiserver watch cache keeps a comparable window).
	DefaultWatchWindow = 10000
	// DefaultWatchWindowAge is how long an event is kept even when more
	// than the window's event count has been written since (bounded by
	// ten times the event count).
	DefaultWatchWindowAge = 5 * time.Minute
	// DefaultWatchBuffer is the capacity of a watcher's channel beyond the
	// events it replays. A watcher that lets it fill up is closed.
	DefaultWatchBuffer = 1000

	// DefaultResourceWindowMin, DefaultResourceWindowMax and
	// DefaultResourceWindowFresh size the window of each resource as
	// kube-apiserver's watch cache sizes its event buffer
	// (apiserver/pkg/storage/cacher/watch_cache.go: capacity from 100,
	// doubled up to 100*1024 while the oldest kept event is younger than
	// the event fresh duration of 75 s, halved when the newest quarter is
	// older than that).
	DefaultResourceWindowMin   = 100
	DefaultResourceWindowMax   = 100 * 1024
	DefaultResourceWindowFresh = 75 * time.Second
)

// watchConfig sizes the window of recent events and the watchers' channels.
type watchConfig struct {
	minEvents int           // always keep at least this many recent events
	maxEvents int           // never keep more than this many
	maxAge    time.Duration // past minEvents, events older than this are dropped
	buffer    int           // capacity of a watcher's channel beyond its replay
	now       func() time.Time

	// The window of each resource (resourceOf): its capacity starts at
	// resourceMin events and stays within [resourceMin, resourceMax],
	// growing and shrinking with resourceFresh as upstream's watch cache.
	// resourceMin 0 keeps no per-resource window (only the store's).
	resourceMin, resourceMax int
	resourceFresh            time.Duration
}

// defaultWatchConfig returns the window both backends use by default.
func defaultWatchConfig() watchConfig {
	return watchConfig{
		minEvents: DefaultWatchWindow,
		maxEvents: 10 * DefaultWatchWindow,
		maxAge:    DefaultWatchWindowAge,
		buffer:    DefaultWatchBuffer,
		now:       time.Now,

		resourceMin:   DefaultResourceWindowMin,
		resourceMax:   DefaultResourceWindowMax,
		resourceFresh: DefaultResourceWindowFresh,
	}
}

// resourceOf is the resource a key or watch prefix belongs to: its first
// three path segments ("/registry/<group>/<resource>/"), the unit
// kube-apiserver keeps one watch cache for. A shorter key or prefix names
// no single resource ("").
func resourceOf(key string) string {
	n := 0
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			n++
			if n == 4 {
				return key[:i+1]
			}
		}
	}
	return ""
}

// stamp is one event of a resource window: its revision and the time it
// was published.
type stamp struct {
	rev int64
	at  time.Time
}

// resourceWindow is the window of one resource: the revisions of its most
// recent events, oldest first, as many as its capacity, mirroring
// upstream's watchCache event buffer (updateCache, resizeCacheLocked).
type resourceWindow struct {
	capacity int
	events   []stamp
	// removed: an event has left the window since the store was opened
	// (upstream's removedEventSinceRelist); until then everything since
	// the opening revision is replayable.
	removed bool
}

// add records an event of the resource at time at, resizing the window
// first as upstream does: a full window whose oldest event is fresher than
// cfg.resourceFresh doubles (up to resourceMax); a full window whose newest
// quarter starts older than that halves (down to resourceMin, dropping the
// oldest events). A full window then drops its oldest event.
func (rw *resourceWindow) add(ev stamp, cfg *watchConfig) {
	if full := len(rw.events) >= rw.capacity; full {
		switch {
		case ev.at.Sub(rw.events[0].at) < cfg.resourceFresh:
			rw.capacity = min(rw.capacity*2, cfg.resourceMax)
		case ev.at.Sub(rw.events[len(rw.events)-rw.capacity/4].at) > cfg.resourceFresh:
			if c := max(rw.capacity/2, cfg.resourceMin); c < rw.capacity {
				rw.events = rw.events[len(rw.events)-c:]
				rw.capacity = c
			}
		}
	}
	if len(rw.events) >= rw.capacity {
		rw.events[0] = stamp{}
		rw.events = rw.events[1:]
		rw.removed = true
	}
	rw.events = append(rw.events, ev)
}

// floor is the highest revision of the resource no longer replayable
// (upstream's oldest-1): opened, the revision the store was opened at;
// once an event has left, the revision before the oldest kept one.
func (rw *resourceWindow) floor(opened int64) int64 {
	if !rw.removed || len(rw.events) == 0 {
		return opened
	}
	return rw.events[0].rev - 1
}

// windowEvent is one kept event and the time it was published.
type windowEvent struct {
	ev Event
	at time.Time
}

// watcher is one open Watch. Its channel is closed exactly once, by whoever
// removes it from broadcaster.watchers (holding broadcaster.mu).
type watcher struct {
	prefix string
	after  int64 // only events with a higher revision are sent
	ch     chan Event
	stop   func() bool // unregisters the context.AfterFunc that removes it

	// limit is how many events the channel and the backlog may hold
	// together (the replay and watchConfig.buffer); done is the watch's
	// context's Done. backlog, pumping and removed are guarded by
	// broadcaster.mu (watch_queue.go): while pumping, the pump closes ch.
	limit   int
	done    <-chan struct{}
	backlog []Event
	pumping bool
	removed bool
}

// broadcaster fans committed events out to watchers and keeps a window of
// recent events so that a watch can resume from a past revision. The
// storage calls publish while holding its own write lock, after the write
// is committed, so events enter the window and the channels in revision
// order. publish never blocks: a watcher whose channel is full is closed.
type broadcaster struct {
	cfg watchConfig

	mu sync.Mutex // guards everything below
	// events holds the kept events in revision order, oldest first.
	events []windowEvent
	// floor is the highest revision no longer replayable: every event with
	// a revision > floor is in events. Watch from below floor is compacted.
	floor int64
	// last is the revision of the last published event, or the store's
	// revision when the broadcaster was created.
	last     int64
	watchers map[*watcher]struct{}
	closed   bool
	// opened is the revision the store was opened at; resources holds the
	// window of each resource that has had an event since.
	opened    int64
	resources map[string]*resourceWindow
}

// newBroadcaster returns a broadcaster for a store whose current revision
// is rev: nothing before rev can be replayed.
func newBroadcaster(cfg watchConfig, rev int64) *broadcaster {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	return &broadcaster{
		cfg:       cfg,
		floor:     rev,
		last:      rev,
		watchers:  make(map[*watcher]struct{}),
		opened:    rev,
		resources: make(map[string]*resourceWindow),
	}
}

// publish records a committed event and sends it to every watcher whose
// prefix matches. The caller holds the storage's write lock, so calls come
// in revision order. The event's byte slices are shared with every watcher.
func (b *broadcaster) publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.last = ev.Revision
	now := b.cfg.now()
	b.events = append(b.events, windowEvent{ev: ev, at: now})
	b.trim()
	if res := resourceOf(ev.Key); res != "" && b.cfg.resourceMin > 0 {
		rw := b.resources[res]
		if rw == nil {
			rw = &resourceWindow{capacity: b.cfg.resourceMin}
			b.resources[res] = rw
		}
		rw.add(stamp{rev: ev.Revision, at: now}, &b.cfg)
	}
	for w := range b.watchers {
		if ev.Revision <= w.after || !strings.HasPrefix(ev.Key, w.prefix) {
			continue
		}
		if !b.deliverLocked(w, ev) {
			// Too far behind: the caller re-lists and watches again.
			b.removeLocked(w)
		}
	}
}

// trim drops the oldest events beyond the window. b.mu is held.
func (b *broadcaster) trim() {
	now := b.cfg.now()
	for n := len(b.events); n > 0; n = len(b.events) {
		old := b.events[0]
		if n <= b.cfg.maxEvents && (n <= b.cfg.minEvents || now.Sub(old.at) <= b.cfg.maxAge) {
			return
		}
		b.floor = old.ev.Revision
		b.events[0] = windowEvent{} // let the values be collected
		b.events = b.events[1:]
	}
}

// watch opens a watcher for keys under prefix that receives every kept
// event with revision > from, then live events. from 0 means from the last
// published revision. It returns a *CompactedError (errors.Is
// ErrCompacted) if from is below the store's window or, for a prefix
// inside one resource, below that resource's window; ErrClosed after
// close. The channel closes when ctx ends.
func (b *broadcaster) watch(ctx context.Context, prefix string, from int64) (<-chan Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if from == 0 {
		from = b.last
	}
	floor := b.floor
	if res := resourceOf(prefix); res != "" {
		if rw := b.resources[res]; rw != nil {
			floor = max(floor, rw.floor(b.opened))
		}
	}
	if from < floor {
		return nil, &CompactedError{Floor: floor}
	}
	i := sort.Search(len(b.events), func(i int) bool { return b.events[i].ev.Revision > from })
	var replay []Event
	for _, we := range b.events[i:] {
		if strings.HasPrefix(we.ev.Key, prefix) {
			replay = append(replay, we.ev)
		}
	}
	w := &watcher{prefix: prefix, after: from, limit: len(replay) + b.cfg.buffer, done: ctx.Done(),
		ch: make(chan Event, len(replay)+min(b.cfg.buffer, watchChanInitial))}
	for _, ev := range replay {
		w.ch <- ev
	}
	b.watchers[w] = struct{}{}
	w.stop = context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.removeLocked(w)
	})
	return w.ch, nil
}

// removeLocked closes w's channel unless it is already gone. b.mu is held.
func (b *broadcaster) removeLocked(w *watcher) {
	if _, ok := b.watchers[w]; !ok {
		return
	}
	delete(b.watchers, w)
	if w.pumping {
		w.removed = true // the pump closes ch after the backlog
	} else {
		close(w.ch)
	}
	w.stop()
}

// close closes every watcher; later watch calls return ErrClosed and later
// publish calls do nothing.
func (b *broadcaster) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for w := range b.watchers {
		b.removeLocked(w)
	}
}
