package storage

import "fmt"

// MaxKeySize is the longest key, in bytes, that every backend accepts (the
// limit of bbolt, go.etcd.io/bbolt/bucket.go MaxKeySize).
const MaxKeySize = 32768

// checkKey rejects keys no backend can store: the empty key and keys longer
// than MaxKeySize.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("storage: empty key")
	case len(key) > MaxKeySize:
		return fmt.Errorf("storage: key of %d bytes is longer than %d", len(key), MaxKeySize)
	}
	return nil
}

// initialRevision is the revision of an empty store, as in etcd: the first
// write gets revision 2, so a List of an empty store returns a revision
// that a later Watch can start from without losing the first write.
const initialRevision = 1
