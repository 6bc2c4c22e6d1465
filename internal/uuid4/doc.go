// Package uuid4 formats random RFC 4122 version 4 UUIDs: the Audit-Id of
// every request (upstream's audit ID, k8s.io/apiserver's
// filters/with_audit_init.go, is a uuid.New()), metadata.uid, and the
// request ids of internal/floorbench's diagnostic legs.
//
// It owns the version and variant bits and the 8-4-4-4-12 hex layout. It
// imports no aggsim package and holds no state.
package uuid4
