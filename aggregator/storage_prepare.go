package aggregator

import "github.com/aggsim/aggsim/registry/storage"

// PrepareStorage makes the writes New would make first to a fresh store
// (the service IP range record, at revision 1, as kube-apiserver's
// allocator writes it), so that a caller can make them while it does
// other work: `aggsim serve` calls it as soon as the store is open, while
// its PKI is generated, which takes a commit (two fdatasyncs on bbolt)
// off the start-up's critical path (issue 21). New then finds them made.
// It writes nothing to a store that has them. Errors are the store's.
func PrepareStorage(st storage.Storage) error {
	return ensureServiceIPRange(st)
}
