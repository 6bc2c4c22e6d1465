package storage

import (
	"context"
	"errors"
)

// Sentinel errors of every Storage implementation.
var (
	// ErrKeyNotFound: Get/Update/Delete of a key that does not exist.
	ErrKeyNotFound = errors.New("storage: key not found")
	// ErrKeyExists: Create of a key that exists.
	ErrKeyExists = errors.New("storage: key exists")
	// ErrRevisionMismatch: Update/Delete whose expected revision is not the
	// key's current ModRevision.
	ErrRevisionMismatch = errors.New("storage: revision mismatch")
	// ErrCompacted: Watch from a revision older than the oldest event still
	// kept (the caller answers 410 Gone, reason Expired).
	ErrCompacted = errors.New("storage: required revision has been compacted")
	// ErrClosed: the storage was closed.
	ErrClosed = errors.New("storage: closed")
)

// CompactedError is the ErrCompacted of a Watch (errors.Is(err,
// ErrCompacted) holds): Floor is the highest revision no longer
// replayable, the number upstream's watch cache names in `too old resource
// version: <from> (<floor>)`.
type CompactedError struct {
	Floor int64
}

// Error is ErrCompacted's text.
func (e *CompactedError) Error() string { return ErrCompacted.Error() }

// Is makes errors.Is(err, ErrCompacted) true.
func (e *CompactedError) Is(target error) bool { return target == ErrCompacted }

// KV is one stored key with the revision of its last write.
type KV struct {
	Key         string
	Value       []byte
	ModRevision int64
}

// EventType is the kind of a watch event.
type EventType int

// The event types a watch delivers.
const (
	EventPut    EventType = iota // created or updated (PrevValue nil on create)
	EventDelete                  // deleted; Value is the last value before deletion
)

// Event is one change seen by a watch. Revision is the store revision of the
// change (for a delete, the revision of the delete itself).
type Event struct {
	Type      EventType
	Key       string
	Value     []byte
	PrevValue []byte // the value before the change; nil on create
	Revision  int64
}

// Storage is the interface the generic store is written against. All
// methods are safe for concurrent use. Keys are "/"-separated paths; List and
// Watch take a prefix (use a trailing "/" to list one folder).
type Storage interface {
	// Get returns the key's value and ModRevision, or ErrKeyNotFound.
	Get(ctx context.Context, key string) (KV, error)
	// List returns every key under prefix in ascending key order, and the
	// store's current revision at the time of the read.
	List(ctx context.Context, prefix string) ([]KV, int64, error)
	// Create writes a new key and returns the revision of the write, or
	// ErrKeyExists.
	Create(ctx context.Context, key string, value []byte) (int64, error)
	// Update replaces the key's value if its ModRevision equals expected
	// (expected 0 means unconditionally) and returns the new revision;
	// ErrKeyNotFound or ErrRevisionMismatch otherwise.
	Update(ctx context.Context, key string, value []byte, expected int64) (int64, error)
	// Delete removes the key if its ModRevision equals expected (0:
	// unconditionally) and returns the revision of the delete and the value
	// that was removed; ErrKeyNotFound or ErrRevisionMismatch otherwise.
	Delete(ctx context.Context, key string, expected int64) (int64, KV, error)
	// Watch streams the changes under prefix with revision > fromRevision.
	// fromRevision 0 means "from now". It returns a *CompactedError
	// (errors.Is ErrCompacted) if events after fromRevision are no longer
	// kept: below the store's window, or, for a prefix inside one resource
	// ("/registry/<group>/<resource>/..."), below that resource's window,
	// which is sized as kube-apiserver's watch cache. The channel is closed when ctx
	// ends, the storage closes, or the watcher falls too far behind (the
	// caller then re-lists). Implementations keep a window of recent events
	// (at least the last 10,000 or 5 minutes) to resume watches from.
	Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan Event, error)
	// Revision returns the store's current revision (that of the last write).
	Revision() int64
	// Close releases the storage; pending watches are closed.
	Close() error
}
