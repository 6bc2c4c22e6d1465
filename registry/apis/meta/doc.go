// Package meta holds the wire types and rules every API group shares, as
// k8s.io/apimachinery/pkg/apis/meta/v1 and its helpers do: TypeMeta,
// ObjectMeta, ListMeta, Time, Status and StatusError, Condition, tables,
// discovery documents (APIResourceList, APIVersions), label and field
// selectors, field errors, and the name and ObjectMeta validation of
// apimachinery's validation package.
//
// The error vocabulary lives here: one constant per Status reason
// (StatusReasonNotFound, ...), constructors with upstream's messages
// (NewNotFound, NewInvalid, ...), and sentinels (ErrNotFound, ErrConflict,
// ...) that any *StatusError of that reason matches under errors.Is.
//
// It must not import storage, HTTP handling or any other aggsim package.
package meta
