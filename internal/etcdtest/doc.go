// Package etcdtest runs a real etcd (the etcd-server binary) on loopback
// for tests: one member, a fresh data directory, free ports. It owns only
// that process; it must not be imported by production code.
package etcdtest
