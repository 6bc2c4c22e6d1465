package storage

// The broadcaster operations only the etcd backend needs: its events come
// from a watch that can report progress, lose events, and see compactions.

// progress records that the store has reached rev without an event under
// the watched prefix, so that a watch "from now" starts there.
func (b *broadcaster) progress(rev int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = max(b.last, rev)
}

// restart empties the window after events were lost: every watcher is
// closed (its client re-lists) and nothing at or before rev is replayable.
func (b *broadcaster) restart(rev int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.watchers {
		b.removeLocked(w)
	}
	clear(b.events)
	b.events = b.events[:0]
	b.floor, b.last, b.opened = rev, max(b.last, rev), rev
	b.resources = make(map[string]*resourceWindow)
}

// compact drops the kept events before rev, as etcd's compaction at rev
// removes the history prior to it: a watch from rev-2 or earlier (which
// needs the event at rev-1) fails with a *CompactedError.
func (b *broadcaster) compact(rev int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if rev-1 <= b.floor {
		return
	}
	i := 0
	for i < len(b.events) && b.events[i].ev.Revision < rev {
		b.events[i] = windowEvent{}
		i++
	}
	b.events = b.events[i:]
	b.floor = rev - 1
}
