package storage

import (
	"testing"

	"github.com/aggsim/aggsim/internal/etcdtest"
)

// The etcd backend joins the conformance suite (conformance_test.go):
// each case gets its own etcd with a fresh data directory, so revisions
// start at 1 as the cases expect. Without an etcd binary the etcd cases
// are skipped with a message saying what to install.
func init() {
	backends = append(backends, struct {
		name string
		open newStoreFunc
	}{"etcd", openTestEtcd})
}

// openTestEtcd starts an etcd and opens an Etcd store on it with cfg.
func openTestEtcd(t testing.TB, cfg watchConfig) Storage {
	srv := etcdtest.Start(t)
	s, err := openEtcd(EtcdOptions{Servers: []string{srv.URL()}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
