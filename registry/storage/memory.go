package storage

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// Memory is a Storage held in process memory, for tests and for running
// without a data directory. It behaves like Bolt (the same revisions,
// errors, ordering and watch window) except that nothing survives Close.
// The zero value is not usable; call NewMemory. A Memory must not be copied.
type Memory struct {
	// mu guards keys, items, rev and closed. Writers hold it, for writing,
	// until their event is published, so events go out in revision order.
	mu     sync.RWMutex
	keys   []string // every key, ascending
	items  map[string]memItem
	rev    int64
	closed bool

	watch *broadcaster
}

// memItem is one stored value. value is never modified in place: writes
// replace it, readers get copies and events share it.
type memItem struct {
	value []byte
	mod   int64
}

// NewMemory returns an empty in-memory Storage at revision 1, with the
// default watch window (DefaultWatchWindow, DefaultWatchWindowAge) and
// watcher buffer (DefaultWatchBuffer).
func NewMemory() *Memory {
	return newMemory(defaultWatchConfig())
}

// newMemory is NewMemory with a chosen watch window (tests use small ones).
func newMemory(cfg watchConfig) *Memory {
	return &Memory{
		items: make(map[string]memItem),
		rev:   initialRevision,
		watch: newBroadcaster(cfg, initialRevision),
	}
}

// Get implements Storage.Get.
func (m *Memory) Get(ctx context.Context, key string) (KV, error) {
	if err := ctx.Err(); err != nil {
		return KV{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return KV{}, ErrClosed
	}
	it, ok := m.items[key]
	if !ok {
		return KV{}, ErrKeyNotFound
	}
	return KV{Key: key, Value: clone(it.value), ModRevision: it.mod}, nil
}

// List implements Storage.List.
func (m *Memory) List(ctx context.Context, prefix string) ([]KV, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, 0, ErrClosed
	}
	i, _ := slices.BinarySearch(m.keys, prefix)
	var out []KV
	for _, k := range m.keys[i:] {
		if !strings.HasPrefix(k, prefix) {
			break
		}
		it := m.items[k]
		out = append(out, KV{Key: k, Value: clone(it.value), ModRevision: it.mod})
	}
	return out, m.rev, nil
}

// lockWrite checks a write's key and context and takes m.mu; on success
// the caller must unlock. Errors: checkKey's, ctx.Err(), ErrClosed.
func (m *Memory) lockWrite(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Create implements Storage.Create.
func (m *Memory) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := m.lockWrite(ctx, key); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	if _, ok := m.items[key]; ok {
		return 0, ErrKeyExists
	}
	m.rev++
	v := clone(value)
	m.items[key] = memItem{value: v, mod: m.rev}
	i, _ := slices.BinarySearch(m.keys, key)
	m.keys = slices.Insert(m.keys, i, key)
	m.watch.publish(Event{Type: EventPut, Key: key, Value: v, Revision: m.rev})
	return m.rev, nil
}

// Update implements Storage.Update.
func (m *Memory) Update(ctx context.Context, key string, value []byte, expected int64) (int64, error) {
	if err := m.lockWrite(ctx, key); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	old, ok := m.items[key]
	if !ok {
		return 0, ErrKeyNotFound
	}
	if expected != 0 && expected != old.mod {
		return 0, ErrRevisionMismatch
	}
	m.rev++
	v := clone(value)
	m.items[key] = memItem{value: v, mod: m.rev}
	m.watch.publish(Event{Type: EventPut, Key: key, Value: v, PrevValue: old.value, Revision: m.rev})
	return m.rev, nil
}

// Delete implements Storage.Delete.
func (m *Memory) Delete(ctx context.Context, key string, expected int64) (int64, KV, error) {
	if err := m.lockWrite(ctx, key); err != nil {
		return 0, KV{}, err
	}
	defer m.mu.Unlock()
	old, ok := m.items[key]
	if !ok {
		return 0, KV{}, ErrKeyNotFound
	}
	if expected != 0 && expected != old.mod {
		return 0, KV{}, ErrRevisionMismatch
	}
	m.rev++
	delete(m.items, key)
	if i, found := slices.BinarySearch(m.keys, key); found {
		m.keys = slices.Delete(m.keys, i, i+1)
	}
	m.watch.publish(Event{Type: EventDelete, Key: key, Value: old.value, PrevValue: old.value, Revision: m.rev})
	return m.rev, KV{Key: key, Value: clone(old.value), ModRevision: old.mod}, nil
}

// Watch implements Storage.Watch. Events share their byte slices with other
// watchers: receivers must not modify them.
func (m *Memory) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan Event, error) {
	// The broadcaster's own lock orders this against publish, and
	// publish of revision r happens before Revision() can return r.
	return m.watch.watch(ctx, prefix, fromRevision)
}

// Revision implements Storage.Revision.
func (m *Memory) Revision() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.rev
}

// Close implements Storage.Close: every open watch is closed and later
// calls return ErrClosed. Closing twice returns nil.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.watch.close()
	return nil
}

// clone copies b; the result is never nil, so an empty value reads back the
// same from every backend.
func clone(b []byte) []byte {
	return append(make([]byte, 0, len(b)), b...)
}

var _ Storage = (*Memory)(nil)
