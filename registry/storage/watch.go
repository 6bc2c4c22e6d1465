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
)

// watchConfig sizes the window of recent events and the watchers' channels.
type watchConfig struct {
	minEvents int           // always keep at least this many recent events
	maxEvents int           // never keep more than this many
	maxAge    time.Duration // past minEvents, events older than this are dropped
	buffer    int           // capacity of a watcher's channel beyond its replay
	now       func() time.Time
}

// defaultWatchConfig returns the window both backends use by default.
func defaultWatchConfig() watchConfig {
	return watchConfig{
		minEvents: DefaultWatchWindow,
		maxEvents: 10 * DefaultWatchWindow,
		maxAge:    DefaultWatchWindowAge,
		buffer:    DefaultWatchBuffer,
		now:       time.Now,
	}
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
}

// newBroadcaster returns a broadcaster for a store whose current revision
// is rev: nothing before rev can be replayed.
func newBroadcaster(cfg watchConfig, rev int64) *broadcaster {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	return &broadcaster{
		cfg:      cfg,
		floor:    rev,
		last:     rev,
		watchers: make(map[*watcher]struct{}),
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
	b.events = append(b.events, windowEvent{ev: ev, at: b.cfg.now()})
	b.trim()
	for w := range b.watchers {
		if ev.Revision <= w.after || !strings.HasPrefix(ev.Key, w.prefix) {
			continue
		}
		select {
		case w.ch <- ev:
		default:
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
// published revision. It returns ErrCompacted if from is below the window,
// ErrClosed after close. The channel closes when ctx ends.
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
	if from < b.floor {
		return nil, ErrCompacted
	}
	i := sort.Search(len(b.events), func(i int) bool { return b.events[i].ev.Revision > from })
	var replay []Event
	for _, we := range b.events[i:] {
		if strings.HasPrefix(we.ev.Key, prefix) {
			replay = append(replay, we.ev)
		}
	}
	w := &watcher{prefix: prefix, after: from, ch: make(chan Event, len(replay)+b.cfg.buffer)}
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
	close(w.ch)
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
