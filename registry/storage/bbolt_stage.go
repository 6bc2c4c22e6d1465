package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A fresh store built under a temporary name (issue 21).
//
// A fresh `aggsim serve` writes about 160 bootstrap objects before it is
// ready; synced commit by commit that is 2 fdatasyncs per transaction (and
// an fsync when the file first grows). Nothing of it is acknowledged to a
// client, so it need not be durable write by write: with
// BoltOptions.StageFresh, a store that does not exist yet is built at
// <path>.fresh with bbolt's NoSync and NoGrowSync, and Persist makes it
// durable at once: one fdatasync, a rename to <path>, a sync of the
// directory. A crash before the rename leaves no <path>: the next start
// removes the abandoned <path>.fresh and begins fresh again (the PKI it
// finds is reused). A crash after the rename finds every write of the
// staged phase, synced before the rename.
//
// Persist runs before the first write whose context is not marked by
// WithStartupWrites (a client's write is acknowledged only once durable),
// from Close, and when the caller asks (aggsim serve: before /readyz turns
// ok). A second process starting on the same fresh directory waits for the
// directory's lock (flock, held from before <path>.fresh is created until
// the rename), then opens <path> as usual and meets bbolt's file lock
// (ErrInUse after LockTimeout).

// freshSuffix names the file a fresh store is built in until Persist.
const freshSuffix = ".fresh"

// boltStage is the state of a store built under its temporary name.
type boltStage struct {
	file string   // <path>.fresh
	dir  *os.File // the directory, flock'ed until the rename
	err  error    // a failed Persist's error, returned by every later one
}

// startupWritesKey marks a context whose writes may stay unsynced until
// Persist (WithStartupWrites).
type startupWritesKey struct{}

// WithStartupWrites marks ctx: writes made with it to a store opened with
// BoltOptions.StageFresh may stay unsynced until Persist. Use it only for
// writes nobody outside the process has been told of (a server's bootstrap
// objects before it is ready). An unmarked write persists the store first.
// Other stores ignore the mark.
func WithStartupWrites(ctx context.Context) context.Context {
	return context.WithValue(ctx, startupWritesKey{}, true)
}

// startupWrites reports whether ctx carries WithStartupWrites' mark.
func startupWrites(ctx context.Context) bool {
	v, _ := ctx.Value(startupWritesKey{}).(bool)
	return v
}

// Persister is a store that may hold writes not yet durable
// (BoltOptions.StageFresh); Persist makes them durable. It returns nil
// when nothing is pending, and the error of a sync, rename or directory
// sync that failed (then every later write fails with it too).
type Persister interface {
	Persist() error
}

// openBoltStaged opens path as openBolt does when it exists, and otherwise
// builds the store at path+freshSuffix (see the comment above).
func openBoltStaged(path string, opts BoltOptions, cfg watchConfig) (*Bolt, error) {
	if _, err := os.Lstat(path); err == nil {
		return openBoltFile(path, path, false, opts, cfg)
	}
	dir, err := lockDir(filepath.Dir(path), opts.lockTimeout())
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil { // another process persisted it while we waited
		dir.Close()
		return openBoltFile(path, path, false, opts, cfg)
	}
	file := path + freshSuffix
	// Left by a start that crashed before its Persist; whoever built it
	// held the directory's lock, which is ours now.
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		dir.Close()
		return nil, fmt.Errorf("storage: remove abandoned %s: %w", file, err)
	}
	s, err := openBoltFile(path, file, true, opts, cfg)
	if err != nil {
		dir.Close()
		return nil, err
	}
	s.stage = &boltStage{file: file, dir: dir}
	s.staged.Store(true)
	return s, nil
}

// Persist implements Persister: for a store built under its temporary name
// it fdatasyncs the file, renames it into place and syncs the directory,
// then commits synced from then on. It waits for the commit in progress.
func (s *Bolt) Persist() error {
	if !s.staged.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.persistLocked()
}

// persistHook, when set (tests), runs after the rename, before the
// directory sync.
var persistHook func()

// persistLocked is Persist with s.mu held (no commit runs).
func (s *Bolt) persistLocked() error {
	st := s.stage
	if st == nil {
		return nil
	}
	if st.err != nil {
		return st.err
	}
	fail := func(what string, err error) error {
		st.err = fmt.Errorf("storage: persist %s: %s: %w", s.path, what, err)
		return st.err
	}
	if err := s.db.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := os.Rename(st.file, s.path); err != nil {
		return fail("rename", err)
	}
	if persistHook != nil {
		persistHook()
	}
	if err := st.dir.Sync(); err != nil {
		return fail("sync directory", err)
	}
	s.db.NoSync, s.db.NoGrowSync = false, false
	st.dir.Close() // releases the directory's lock
	s.stage = nil
	s.staged.Store(false)
	return nil
}

// lockDir opens dir and takes its exclusive flock, waiting at most timeout;
// an error wraps ErrInUse when another process holds it that long.
func lockDir(dir string, timeout time.Duration) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			if err == syscall.EWOULDBLOCK {
				return nil, fmt.Errorf("%w: %s (lock not acquired within %s)", ErrInUse, dir, timeout)
			}
			return nil, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
