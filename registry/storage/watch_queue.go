package storage

// watchChanInitial bounds the capacity a watcher's channel is made with
// beyond its replay. A watcher may still queue up to watchConfig.buffer
// events beyond its replay, as before: the events that do not fit in the
// channel wait in the watcher's backlog, which one goroutine (pump) moves
// into the channel while it is non-empty. An idle server holds about 30
// watchers (its informers); channels of the full 1000 events (80 bytes
// each) kept 2.4 MB of its 5.7 MB live heap (issue 21, idle RSS), and
// upstream's cacheWatcher likewise starts with a small input channel
// (apiserver/pkg/storage/cacher/watch_cache.go, suggestedWatchChannelSize:
// 10) and moves events on in its own goroutine (cache_watcher.go,
// processInterval).
const watchChanInitial = 64

// deliverLocked queues ev for w in revision order: into its channel when
// nothing waits in its backlog and the channel has room, else into the
// backlog, started by a pump. It returns false, queueing nothing, when
// the channel and the backlog together already hold w.limit events (the
// watcher is too far behind). b.mu is held.
func (b *broadcaster) deliverLocked(w *watcher, ev Event) bool {
	if !w.pumping {
		select {
		case w.ch <- ev:
			return true
		default:
		}
		if cap(w.ch) >= w.limit {
			return false
		}
		w.pumping = true
		w.backlog = append(w.backlog[:0], ev)
		go b.pump(w)
		return true
	}
	if len(w.ch)+len(w.backlog) >= w.limit {
		return false
	}
	w.backlog = append(w.backlog, ev)
	return true
}

// pump moves w's backlog into its channel, oldest first, and ends when the
// backlog is empty; it closes the channel if the watcher was removed
// meanwhile (removeLocked leaves that to it). The event being sent stays
// at the backlog's head until it is in the channel, so deliverLocked
// counts it. It gives up, dropping the backlog, when the watch's context
// ends: the consumer may have stopped reading.
func (b *broadcaster) pump(w *watcher) {
	for {
		b.mu.Lock()
		if len(w.backlog) == 0 {
			b.endPumpLocked(w)
			b.mu.Unlock()
			return
		}
		ev := w.backlog[0]
		b.mu.Unlock()
		select {
		case w.ch <- ev:
			b.mu.Lock()
			w.backlog[0] = Event{} // let the values be collected
			w.backlog = w.backlog[1:]
			b.mu.Unlock()
		case <-w.done:
			b.mu.Lock()
			b.endPumpLocked(w)
			b.mu.Unlock()
			return
		}
	}
}

// endPumpLocked ends w's pump: the backlog is dropped, and the channel
// closed if the watcher is no longer registered. b.mu is held.
func (b *broadcaster) endPumpLocked(w *watcher) {
	w.pumping = false
	w.backlog = nil
	if w.removed {
		close(w.ch)
	}
}
