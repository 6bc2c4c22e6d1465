package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrInUse is returned by OpenBolt when another process holds the data
// file's lock (another aggsim serving the same --data-dir).
var ErrInUse = errors.New("storage: data file is in use by another aggsim")

// DefaultLockTimeout is how long OpenBolt waits for the data file's lock
// when BoltOptions.LockTimeout is zero.
const DefaultLockTimeout = time.Second

// The file layout. Version 1:
//
//	bucket "meta": "format" → "1"; "revision" → 8-byte big-endian int64,
//	               the revision of the last committed write.
//	bucket "data": key → 8-byte big-endian ModRevision, 8-byte big-endian
//	               create revision, then the value bytes.
var (
	bucketMeta  = []byte("meta")
	bucketData  = []byte("data")
	keyFormat   = []byte("format")
	keyRevision = []byte("revision")
	formatV1    = []byte("1")
)

// valueHeader is the length of the revisions stored before each value.
const valueHeader = 16

// BoltOptions configures OpenBolt. The zero value gives the documented
// defaults; negative numbers are rejected.
type BoltOptions struct {
	// LockTimeout is how long to wait for the file lock held by another
	// process before failing with ErrInUse. 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// FileMode is the permission of a newly created file. 0 means 0600.
	FileMode os.FileMode
	// WatchWindow is the number of recent events always kept to resume
	// watches from. 0 means DefaultWatchWindow. At most ten times as many
	// are kept while they are younger than WatchWindowAge.
	WatchWindow int
	// WatchWindowAge is how long events are kept past WatchWindow. 0 means
	// DefaultWatchWindowAge.
	WatchWindowAge time.Duration
	// WatchBuffer is a watcher's channel capacity beyond its replay; a
	// watcher that lets it fill up is closed. 0 means DefaultWatchBuffer.
	WatchBuffer int
	// StageFresh builds a store that does not exist yet under a temporary
	// name, unsynced, until Persist (bbolt_stage.go).
	StageFresh bool
}

// lockTimeout is LockTimeout with its default applied.
func (o BoltOptions) lockTimeout() time.Duration {
	if o.LockTimeout == 0 {
		return DefaultLockTimeout
	}
	return o.LockTimeout
}

// watchConfig checks o and returns its window with defaults applied.
func (o BoltOptions) watchConfig() (watchConfig, error) {
	if o.LockTimeout < 0 || o.WatchWindow < 0 || o.WatchWindowAge < 0 || o.WatchBuffer < 0 {
		return watchConfig{}, fmt.Errorf("storage: negative BoltOptions value: %+v", o)
	}
	cfg := defaultWatchConfig()
	if o.WatchWindow > 0 {
		cfg.minEvents, cfg.maxEvents = o.WatchWindow, 10*o.WatchWindow
	}
	if o.WatchWindowAge > 0 {
		cfg.maxAge = o.WatchWindowAge
	}
	if o.WatchBuffer > 0 {
		cfg.buffer = o.WatchBuffer
	}
	return cfg, nil
}

// Bolt is a Storage in one bbolt file. Every write is one bbolt Update
// transaction that also bumps the store-wide revision kept in the meta
// bucket, and is fsynced before it returns, so an acknowledged write
// survives kill -9 and revisions keep increasing across restarts. The watch
// window starts empty at each open: a watch from the revision found on disk
// works, one from an older revision gets ErrCompacted.
// The zero value is not usable; call OpenBolt. A Bolt must not be copied.
type Bolt struct {
	db   *bolt.DB
	path string

	// mu serialises commits from the start of their transaction until their
	// events are published (bbolt's OnCommit runs after its writer lock is
	// released, so it alone would not keep events in order). Close holds it.
	mu     sync.Mutex
	rev    atomic.Int64 // revision of the last committed write
	closed atomic.Bool  // set by Close
	// stage is set while a fresh store is built under its temporary name
	// (bbolt_stage.go), guarded by mu; staged reports it without mu.
	stage  *boltStage
	staged atomic.Bool

	// writes carries writes to the committer goroutine (commitLoop), which
	// commits every write waiting at that moment in one transaction: one
	// fsync for all of them (group commit, as etcd batches its backend
	// transactions). quit ends commitLoop; stopped is closed once it has.
	writes  chan *boltWrite
	quit    chan struct{}
	stopped chan struct{}
	// expect holds the writes announced by ExpectWrites (bbolt_expect.go).
	expect writeExpect

	watch *broadcaster
}

// boltWrite is one write waiting for commitLoop; ev and err are set before
// done is closed.
type boltWrite struct {
	fn   func(data *bolt.Bucket, rev int64) (Event, error)
	ev   Event
	err  error
	done chan struct{}
}

// errNothingWritten rolls back a transaction in which every write failed.
var errNothingWritten = errors.New("storage: nothing written")

// initialMmapSize is the size, in bytes, bbolt maps the file with at open
// and grows it to on its first growth (bbolt.Options.InitialMmapSize); a
// file larger than it is mapped at its size (bbolt's doubling).
const initialMmapSize = 1 << 20

// maxBatch bounds how many writes share one transaction.
const maxBatch = 256

// OpenBolt opens or creates the bbolt file at path (its directory must
// exist). It returns an error wrapping ErrInUse if another process holds the
// file for longer than opts.LockTimeout, and an error if the file is not an
// aggsim store of a known format.
func OpenBolt(path string, opts BoltOptions) (*Bolt, error) {
	cfg, err := opts.watchConfig()
	if err != nil {
		return nil, err
	}
	return openBolt(path, opts, cfg)
}

// openBolt is OpenBolt with the watch window given directly (tests use
// windows that BoltOptions cannot express).
func openBolt(path string, opts BoltOptions, cfg watchConfig) (*Bolt, error) {
	if opts.StageFresh {
		return openBoltStaged(path, opts, cfg) // bbolt_stage.go
	}
	return openBoltFile(path, path, false, opts, cfg)
}

// openBoltFile opens the store of path from file (path itself, or its
// temporary name: bbolt_stage.go); unsynced commits without fdatasync.
func openBoltFile(path, file string, unsynced bool, opts BoltOptions, cfg watchConfig) (*Bolt, error) {
	timeout := opts.lockTimeout()
	mode := opts.FileMode
	if mode == 0 {
		mode = 0o600
	}
	// The file is mapped, and on first growth sized, at initialMmapSize at
	// once: a fresh start-up's writes (about 500 KiB) then grow the file
	// once instead of three times (each a truncate and an fsync, 32 KiB
	// doubling), and no commit remaps the file (a remap waits for every
	// open read transaction).
	db, err := bolt.Open(file, mode, &bolt.Options{Timeout: timeout, InitialMmapSize: initialMmapSize, NoSync: unsynced, NoGrowSync: unsynced})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s (lock not acquired within %s)", ErrInUse, path, timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	var rev int64
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketData); err != nil {
			return err
		}
		switch f := meta.Get(keyFormat); {
		case f == nil:
			if err := meta.Put(keyFormat, formatV1); err != nil {
				return err
			}
		case !bytes.Equal(f, formatV1):
			return fmt.Errorf("unsupported format %q (this aggsim reads %q)", f, formatV1)
		}
		if rev, err = decodeRevision(meta.Get(keyRevision)); err != nil {
			return err
		}
		if rev == 0 {
			rev = initialRevision
			return meta.Put(keyRevision, encodeRevision(rev))
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	s := &Bolt{db: db, path: path, watch: newBroadcaster(cfg, rev),
		writes: make(chan *boltWrite, maxBatch), quit: make(chan struct{}), stopped: make(chan struct{})}
	s.rev.Store(rev)
	s.expect.init()
	go s.commitLoop()
	return s, nil
}

// Path returns the file the store was opened from.
func (s *Bolt) Path() string { return s.path }

// Get implements Storage.Get.
func (s *Bolt) Get(ctx context.Context, key string) (KV, error) {
	if err := ctx.Err(); err != nil {
		return KV{}, err
	}
	var kv KV
	err := s.view(func(data, _ *bolt.Bucket) error {
		raw := data.Get([]byte(key))
		if raw == nil {
			return ErrKeyNotFound
		}
		var err error
		kv, err = decodeKV(key, raw)
		return err
	})
	return kv, err
}

// List implements Storage.List. The revision is read in the same
// transaction as the keys.
func (s *Bolt) List(ctx context.Context, prefix string) ([]KV, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var (
		out []KV
		rev int64
	)
	err := s.view(func(data, meta *bolt.Bucket) error {
		var err error
		if rev, err = decodeRevision(meta.Get(keyRevision)); err != nil {
			return err
		}
		p := []byte(prefix)
		c := data.Cursor()
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			kv, err := decodeKV(string(k), v)
			if err != nil {
				return err
			}
			out = append(out, kv)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, rev, nil
}

// Create implements Storage.Create.
func (s *Bolt) Create(ctx context.Context, key string, value []byte) (int64, error) {
	ev, err := s.write(ctx, key, func(data *bolt.Bucket, rev int64) (Event, error) {
		if data.Get([]byte(key)) != nil {
			return Event{}, ErrKeyExists
		}
		v := clone(value)
		if err := data.Put([]byte(key), encodeValue(rev, rev, v)); err != nil {
			return Event{}, err
		}
		return Event{Type: EventPut, Key: key, Value: v, Revision: rev}, nil
	})
	return ev.Revision, err
}

// Update implements Storage.Update.
func (s *Bolt) Update(ctx context.Context, key string, value []byte, expected int64) (int64, error) {
	ev, err := s.write(ctx, key, func(data *bolt.Bucket, rev int64) (Event, error) {
		raw := data.Get([]byte(key))
		if raw == nil {
			return Event{}, ErrKeyNotFound
		}
		old, err := decodeKV(key, raw)
		if err != nil {
			return Event{}, err
		}
		if expected != 0 && expected != old.ModRevision {
			return Event{}, ErrRevisionMismatch
		}
		v := clone(value)
		if err := data.Put([]byte(key), encodeValue(rev, createRevision(raw), v)); err != nil {
			return Event{}, err
		}
		return Event{Type: EventPut, Key: key, Value: v, PrevValue: old.Value, Revision: rev}, nil
	})
	return ev.Revision, err
}

// Delete implements Storage.Delete.
func (s *Bolt) Delete(ctx context.Context, key string, expected int64) (int64, KV, error) {
	var old KV
	ev, err := s.write(ctx, key, func(data *bolt.Bucket, rev int64) (Event, error) {
		raw := data.Get([]byte(key))
		if raw == nil {
			return Event{}, ErrKeyNotFound
		}
		var err error
		if old, err = decodeKV(key, raw); err != nil {
			return Event{}, err
		}
		if expected != 0 && expected != old.ModRevision {
			return Event{}, ErrRevisionMismatch
		}
		if err := data.Delete([]byte(key)); err != nil {
			return Event{}, err
		}
		return Event{Type: EventDelete, Key: key, Value: old.Value, PrevValue: old.Value, Revision: rev}, nil
	})
	if err != nil {
		return 0, KV{}, err
	}
	return ev.Revision, KV{Key: key, Value: clone(old.Value), ModRevision: old.ModRevision}, nil
}

// Watch implements Storage.Watch. Events share their byte slices with other
// watchers: receivers must not modify them.
func (s *Bolt) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan Event, error) {
	return s.watch.watch(ctx, prefix, fromRevision)
}

// Revision implements Storage.Revision.
func (s *Bolt) Revision() int64 { return s.rev.Load() }

// Close implements Storage.Close: open watches are closed, in-flight reads
// finish, and later calls return ErrClosed. Closing twice returns nil.
func (s *Bolt) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	close(s.quit)
	<-s.stopped // the commit in progress, if any, has finished
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch.close()
	perr := s.persistLocked() // a fresh store closed before Persist (bbolt_stage.go)
	if s.stage != nil {
		s.stage.dir.Close()
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("storage: close %s: %w", s.path, err)
	}
	return perr
}

// view runs fn in a read transaction. Values must be copied out of the
// buckets inside fn (decodeKV does).
func (s *Bolt) view(fn func(data, meta *bolt.Bucket) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		return fn(tx.Bucket(bucketData), tx.Bucket(bucketMeta))
	})
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// write hands fn to commitLoop and waits for its result. fn runs in a
// write transaction with the next revision; it must check everything
// before it changes the bucket (an error leaves the bucket as it was, so
// the other writes of the transaction still commit) and copy anything it
// keeps out of the bucket.
func (s *Bolt) write(ctx context.Context, key string, fn func(data *bolt.Bucket, rev int64) (Event, error)) (Event, error) {
	if err := checkKey(key); err != nil {
		return Event{}, err
	}
	if err := ctx.Err(); err != nil {
		return Event{}, err
	}
	if s.closed.Load() {
		return Event{}, ErrClosed
	}
	if s.staged.Load() && !startupWrites(ctx) { // acknowledged only once durable (bbolt_stage.go)
		if err := s.Persist(); err != nil {
			return Event{}, err
		}
	}
	w := &boltWrite{fn: fn, done: make(chan struct{})}
	select {
	case s.writes <- w:
	case <-s.stopped:
		return Event{}, ErrClosed
	}
	select {
	case <-w.done:
	case <-s.stopped:
		select { // commitLoop may have answered w just before it stopped
		case <-w.done:
		default:
			return Event{}, ErrClosed
		}
	}
	return w.ev, w.err
}

// commitLoop commits the writes sent to s.writes until Close: it takes
// the first write that arrives and every other one already waiting (up to
// maxBatch), and commits them in one transaction.
func (s *Bolt) commitLoop() {
	defer close(s.stopped)
	batch := make([]*boltWrite, 0, maxBatch)
	for {
		select {
		case <-s.quit:
			return
		case w := <-s.writes:
			s.arrived()
			batch = append(batch[:0], w)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case w := <-s.writes:
				s.arrived()
				batch = append(batch, w)
			default:
				break more
			}
		}
		batch = s.linger(batch) // bbolt_expect.go
		s.commit(batch)
		clear(batch)
	}
}

// commit runs the writes of batch in order in one Update transaction, each
// successful one taking the next revision, stores the last revision in the
// meta bucket in the same transaction and, once the transaction has
// committed (and fsynced), publishes the events in order while holding
// s.mu. A write whose fn fails gets its error and takes no revision; when
// the transaction itself fails, every write of the batch gets that error.
func (s *Bolt) commit(batch []*boltWrite) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last int64
	err := s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		var err error
		if last, err = decodeRevision(meta.Get(keyRevision)); err != nil {
			return err
		}
		first := last
		data := tx.Bucket(bucketData)
		for _, w := range batch {
			if w.ev, w.err = w.fn(data, last+1); w.err == nil {
				last = w.ev.Revision
			}
		}
		if last == first {
			return errNothingWritten // roll back: no commit, no fsync
		}
		return meta.Put(keyRevision, encodeRevision(last))
	})
	if err == errNothingWritten {
		err = nil
	}
	for _, w := range batch {
		if err != nil {
			w.ev, w.err = Event{}, err
		} else if w.err == nil {
			s.rev.Store(w.ev.Revision)
			s.watch.publish(w.ev)
		}
		if w.err != nil {
			w.ev = Event{}
		}
		close(w.done)
	}
}

// encodeRevision returns rev as 8 big-endian bytes.
func encodeRevision(rev int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(rev))
}

// decodeRevision reads the meta bucket's revision; nil (a new file) is 0.
func decodeRevision(b []byte) (int64, error) {
	if b == nil {
		return 0, nil
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("storage: corrupt revision record of %d bytes", len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// encodeValue lays out a data record: ModRevision, create revision, value.
func encodeValue(mod, create int64, value []byte) []byte {
	b := make([]byte, valueHeader, valueHeader+len(value))
	binary.BigEndian.PutUint64(b[0:8], uint64(mod))
	binary.BigEndian.PutUint64(b[8:16], uint64(create))
	return append(b, value...)
}

// createRevision returns the create revision of a valid data record.
func createRevision(raw []byte) int64 {
	return int64(binary.BigEndian.Uint64(raw[8:16]))
}

// decodeKV copies a data record out of bbolt's memory.
func decodeKV(key string, raw []byte) (KV, error) {
	if len(raw) < valueHeader {
		return KV{}, fmt.Errorf("storage: corrupt record for key %q: %d bytes", key, len(raw))
	}
	return KV{
		Key:         key,
		Value:       clone(raw[valueHeader:]),
		ModRevision: int64(binary.BigEndian.Uint64(raw[0:8])),
	}, nil
}

var _ Storage = (*Bolt)(nil)
