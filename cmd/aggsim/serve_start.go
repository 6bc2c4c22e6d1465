package main

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry/storage"
)

// openStorage opens the --storage backend (bbolt: aggsim.db in dataDir).
func (o *serveOptions) openStorage(dataDir string, logger *slog.Logger) (storage.Storage, error) {
	switch o.storage {
	case "bbolt":
		st, err := storage.OpenBolt(filepath.Join(dataDir, "aggsim.db"), storage.BoltOptions{StageFresh: true}) // bbolt_stage.go: unsynced until ready
		if err != nil {
			return nil, err
		}
		return st, nil
	case "memory":
		return storage.NewMemory(), nil
	case "etcd":
		st, err := o.etcd.open(logger)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	return nil, fmt.Errorf("--storage: unknown backend %q (want bbolt, memory or etcd)", o.storage)
}

// preparePKIAndStorage makes pkiDir a complete PKI (certs.EnsurePKI) and
// opens the store at the same time: on a fresh data dir both wait for the
// disk (the PKI's directory sync, bbolt's file creation and first
// commits), so overlapping them takes the shorter wait off the start-up.
// The store's first writes (aggregator.PrepareStorage) are made then too.
// The PKI's error comes first, as when they ran one after the other; a
// store opened for nothing is closed (bbolt holds a file lock). mark
// records the two phases ("pki", then "storage").
func (o *serveOptions) preparePKIAndStorage(pkiDir, dataDir string, pkiOpts certs.Options, logger *slog.Logger, mark func(string)) (*certs.PKI, storage.Storage, error) {
	type opened struct {
		st  storage.Storage
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		st, err := o.openStorage(dataDir, logger)
		if err == nil {
			// a fresh store's first commit, while the PKI is made
			if err = aggregator.PrepareStorage(st); err != nil {
				st.Close()
				st = nil
			}
		}
		ch <- opened{st, err}
	}()
	pki, pkiErr := certs.EnsurePKI(pkiDir, pkiOpts)
	mark("pki")
	r := <-ch
	mark("storage")
	if pkiErr != nil {
		if r.st != nil {
			r.st.Close()
		}
		return nil, nil, fmt.Errorf("prepare PKI in %s: %w", pkiDir, pkiErr)
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return pki, r.st, nil
}
