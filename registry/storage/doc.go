// Package storage is the key-value layer under the registry's generic store:
// an etcd-v3-shaped interface (a single store-wide revision, compare-and-swap
// on an object's last revision, watch from a revision, compaction answered
// with ErrCompacted) and three implementations, bbolt (one file), memory,
// and etcd v3 (etcd.go: several aggsim replicas sharing one store, keys laid
// out as kube-apiserver lays them out, snapshot lists through
// SnapshotLister). One conformance suite runs against all three.
//
// It knows nothing of Kubernetes objects: values are opaque bytes (JSON).
// Invariants a caller may rely on:
//   - every successful write gets a revision strictly greater than any
//     revision returned before, also across restarts of a bbolt store;
//   - watchers receive events in revision order, and an event is delivered
//     only after its write is durable (bbolt: committed and fsynced; etcd:
//     committed by etcd and seen on the replica's shared watch);
//   - a write that returned nil survives a crash (kill -9) of the process.
//
// The exception, asked for explicitly: on a bbolt store opened with
// BoltOptions.StageFresh that did not exist yet, writes whose context
// carries WithStartupWrites (and their events) precede durability until
// Persist; a crash before it leaves no store at all (bbolt_stage.go).
package storage
