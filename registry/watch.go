package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// Watch event types (metav1.WatchEvent.Type).
const (
	EventAdded    = "ADDED"
	EventModified = "MODIFIED"
	EventDeleted  = "DELETED"
	EventBookmark = "BOOKMARK"
	EventError    = "ERROR"
)

// InitialEventsEndAnnotation marks the BOOKMARK that ends the initial
// events of a watch with sendInitialEvents=true (metav1.InitialEventsAnnotationKey).
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// WatchEvent is one event of a watch. For ERROR events Object is nil and
// Status holds the error (e.g. 410 Expired); for BOOKMARK events Object is
// an empty object of the resource carrying only metadata.resourceVersion
// (and annotations for the initial-events-end bookmark).
type WatchEvent struct {
	Type   string
	Object meta.Object
	Status *meta.Status
}

// NewResourceExpired mirrors apierrors.NewResourceExpired: 410 Gone, reason
// Expired, with the given message.
func NewResourceExpired(msg string) *meta.StatusError {
	return meta.NewStatusError(http.StatusGone, meta.StatusReasonExpired, msg)
}

// Watch streams the changes of the resource in namespace ("" = all) that
// match the selectors of opts. The starting point follows upstream's
// resourceVersion semantics for watch:
//   - resourceVersion "" or "0": one synthetic ADDED per current object,
//     then every change after that state;
//   - resourceVersion N: every change after revision N; if N is older
//     than the kept history the only event is an ERROR carrying 410 Expired
//     `too old resource version: N (M)`;
//   - sendInitialEvents=true (with resourceVersionMatch=NotOlderThan): the
//     current state as ADDED events, then a BOOKMARK annotated
//     k8s.io/initial-events-end: "true"; sendInitialEvents=false starts
//     from resourceVersion (or now) without initial events.
//
// Objects that start or stop matching a selector are reported as ADDED or
// DELETED. With AllowWatchBookmarks a BOOKMARK is sent every
// StoreOptions.BookmarkInterval. The channel closes when ctx ends, after
// TimeoutSeconds, or when storage ends the watch (the client re-lists).
func (s *Store) Watch(ctx context.Context, namespace string, opts ListOptions) (<-chan WatchEvent, error) {
	return s.watch(ctx, namespace, opts, s.decode)
}

// watch is Watch with the decoder of its events' objects (initial events
// are listed with s.decode).
func (s *Store) watch(ctx context.Context, namespace string, opts ListOptions, decode func(value []byte, rev int64) (meta.Object, error)) (<-chan WatchEvent, error) {
	w, expired, err := s.openWatch(ctx, namespace, opts, decode)
	if err != nil {
		return nil, err
	}
	out := make(chan WatchEvent, 16)
	if w == nil {
		out <- expired
		close(out)
		return out, nil
	}
	w.out = out
	go func() {
		defer w.cancel()
		defer close(out)
		w.run()
	}()
	return out, nil
}

// openWatch starts a watch: its initial list and its storage watch. When
// the starting revision is older than the kept history it returns no
// watch but the one ERROR event (410 Expired) the watch answers with.
func (s *Store) openWatch(ctx context.Context, namespace string, opts ListOptions, decode func(value []byte, rev int64) (meta.Object, error)) (*storeWatch, WatchEvent, error) {
	sel, err := s.compileSelector(opts)
	if err != nil {
		return nil, WatchEvent{}, err
	}
	from, err := parseResourceVersion(opts.ResourceVersion)
	if err != nil {
		// upstream's watch path answers a resourceVersion that does not
		// parse with a bare 500 (no reason) carrying the parse error.
		return nil, WatchEvent{}, meta.NewStatusError(http.StatusInternalServerError, "", err.Error())
	}
	wctx, cancel := context.WithCancel(ctx)
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		cancel()
		wctx, cancel = context.WithTimeout(ctx, time.Duration(*opts.TimeoutSeconds)*time.Second)
	}
	var initial []meta.Object
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	legacyInitial := opts.SendInitialEvents == nil && (opts.ResourceVersion == "" || opts.ResourceVersion == "0")
	if sendInitial || legacyInitial {
		r, err := s.ListPage(wctx, namespace, ListOptions{LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector})
		if err != nil {
			cancel()
			return nil, WatchEvent{}, err
		}
		initial = r.Items
		from, _ = strconv.ParseInt(r.ResourceVersion, 10, 64)
	} else if from == 0 {
		from = s.st.Revision()
	}
	var events <-chan storage.Event
	if from < s.started {
		// The watch cache began at s.started (upstream: oldest-1).
		err = &storage.CompactedError{Floor: s.started}
	} else {
		events, err = s.st.Watch(wctx, s.listPrefix(namespace), from)
	}
	if errors.Is(err, storage.ErrCompacted) {
		cancel()
		floor := s.st.Revision()
		var ce *storage.CompactedError
		if errors.As(err, &ce) {
			floor = ce.Floor
		}
		st := NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, floor)).Status
		return nil, WatchEvent{Type: EventError, Status: &st}, nil
	}
	if err != nil {
		cancel()
		return nil, WatchEvent{}, meta.NewInternalError(err)
	}
	return &storeWatch{s: s, sel: sel, ctx: wctx, cancel: cancel, last: from, decode: decode,
		events: events, initial: initial, endBookmark: sendInitial, bookmarks: opts.AllowWatchBookmarks}, WatchEvent{}, nil
}

// storeWatch is the state of one running Store.Watch.
type storeWatch struct {
	s   *Store
	sel selector
	// out receives the events (Watch); nil when fn does (WatchFunc)
	out chan WatchEvent
	// fn is called with each event in the watcher's own goroutine
	// (WatchFunc); false ends the watch
	fn     func(WatchEvent) bool
	ctx    context.Context
	cancel context.CancelFunc
	last   int64 // revision of the last event delivered (or the start)
	// events is the storage watch; initial the objects sent first as
	// ADDED, then a BOOKMARK annotated initial-events-end if endBookmark;
	// bookmarks asks for a BOOKMARK every StoreOptions.BookmarkInterval
	events                 <-chan storage.Event
	initial                []meta.Object
	endBookmark, bookmarks bool
	// decode turns an event's stored bytes into its object (Store.decode,
	// or metadata only for WatchMetaFunc)
	decode func(value []byte, rev int64) (meta.Object, error)
}

// send delivers ev unless the watch ended; it reports whether to go on.
func (w *storeWatch) send(ev WatchEvent) bool {
	if w.fn != nil {
		return w.ctx.Err() == nil && w.fn(ev)
	}
	select {
	case w.out <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}

func (w *storeWatch) bookmark(annotate bool) WatchEvent {
	obj := w.s.strategy.New()
	tm := obj.GetTypeMeta()
	tm.Kind, tm.APIVersion = w.s.info.Kind, w.s.info.APIVersion()
	m := obj.GetObjectMeta()
	m.ResourceVersion = strconv.FormatInt(w.last, 10)
	if annotate {
		m.Annotations = map[string]string{InitialEventsEndAnnotation: "true"}
	}
	return WatchEvent{Type: EventBookmark, Object: obj}
}

// run delivers the initial events, then the storage watch's, until the
// watch ends.
func (w *storeWatch) run() {
	events, endBookmark, bookmarks := w.events, w.endBookmark, w.bookmarks
	initial := w.initial
	w.initial = nil // delivered below; not kept for the watch's life
	for _, obj := range initial {
		if !w.send(WatchEvent{Type: EventAdded, Object: obj}) {
			return
		}
	}
	if endBookmark && !w.send(w.bookmark(true)) {
		return
	}
	var tick <-chan time.Time
	if bookmarks {
		t := time.NewTicker(w.s.bookmark)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-tick:
			if !w.send(w.bookmark(false)) {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			we, ok := w.convert(ev)
			w.last = ev.Revision
			if ok && !w.send(we) {
				return
			}
		}
	}
}

// convert turns a storage event into a watch event, applying the
// selector; ok is false when the event is filtered out.
func (w *storeWatch) convert(ev storage.Event) (WatchEvent, bool) {
	obj, err := w.decode(ev.Value, ev.Revision)
	if err != nil {
		st := internalErr(err).(*meta.StatusError).Status
		return WatchEvent{Type: EventError, Status: &st}, true
	}
	if ev.Type == storage.EventDelete {
		return WatchEvent{Type: EventDeleted, Object: obj}, w.s.matches(w.sel, obj)
	}
	cur := w.s.matches(w.sel, obj)
	if ev.PrevValue == nil {
		return WatchEvent{Type: EventAdded, Object: obj}, cur
	}
	prev, prevMatches := meta.Object(nil), true
	if !w.sel.empty() {
		if p, err := w.decode(ev.PrevValue, ev.Revision); err == nil {
			prev, prevMatches = p, w.s.matches(w.sel, p)
		}
	}
	switch {
	case cur && prevMatches:
		return WatchEvent{Type: EventModified, Object: obj}, true
	case cur:
		return WatchEvent{Type: EventAdded, Object: obj}, true
	case prevMatches && prev != nil:
		// Leaving the selector: as upstream's cacheWatcher, a DELETED
		// event with the object as it was before the change (the one the
		// watcher last saw), at the change's resourceVersion.
		return WatchEvent{Type: EventDeleted, Object: prev}, true
	}
	return WatchEvent{}, false
}
