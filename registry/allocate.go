package registry

import (
	"context"
	"sync"

	"github.com/aggsim/aggsim/registry/apis/meta"
)

// Allocator is an optional Strategy extension for resources whose objects
// hold values that must be unique across all objects of the resource, as
// a Service's cluster IP is (upstream: the Service REST storage's
// BeginCreate/BeginUpdate with its IP allocator,
// pkg/registry/core/service/storage/alloc.go).
//
// The store asks Allocates after PrepareForCreate or PrepareForUpdate;
// when it says true, the store takes the resource's allocation lock,
// lists every stored object of the resource and calls Allocate with them,
// and holds the lock until the write is committed or refused. Two
// allocations of one resource therefore never overlap, and each sees the
// objects the other committed: of two creates asking for the same value,
// one wins. Nothing is kept between writes, so a delete, or an update
// that drops the value, frees it by itself.
type Allocator interface {
	// Allocates reports whether a write of obj over old (nil on create)
	// needs values that must be unique.
	Allocates(obj, old meta.Object) bool
	// Allocate fills obj's unique values that are still empty with values
	// no object of stored holds, and checks the values the client asked
	// for. stored are the resource's objects now, without obj's own key
	// on update. dryRun is ?dryRun=All (upstream's dry-run allocator does
	// not check requested values against the allocated ones). Errors end
	// the write with 422 Invalid, alone, as upstream's allocator answers
	// before validation.
	Allocate(obj, old meta.Object, stored []meta.Object, dryRun bool) meta.FieldErrors
}

// allocate runs the strategy's Allocator for a write of obj over old (nil
// on create). It returns the lock to release once the write is done (a
// no-op when nothing was allocated) and the allocator's errors.
func (s *Store) allocate(ctx context.Context, obj, old meta.Object) (func(), meta.FieldErrors, error) {
	al, ok := s.strategy.(Allocator)
	if !ok || !al.Allocates(obj, old) {
		return func() {}, nil, nil
	}
	s.allocMu.Lock()
	kvs, _, err := s.st.List(ctx, s.prefix)
	if err != nil {
		s.allocMu.Unlock()
		return nil, nil, meta.NewInternalError(err)
	}
	m := obj.GetObjectMeta()
	own := ""
	if old != nil {
		own = s.key(m.Namespace, m.Name)
	}
	stored := make([]meta.Object, 0, len(kvs))
	for _, kv := range kvs {
		if kv.Key == own {
			continue
		}
		o, err := s.decode(kv.Value, kv.ModRevision)
		if err != nil {
			s.allocMu.Unlock()
			return nil, nil, meta.NewInternalError(err)
		}
		stored = append(stored, o)
	}
	return s.allocMu.Unlock, al.Allocate(obj, old, stored, isDryRun(ctx)), nil
}

// allocLock is embedded in Store: the lock of Allocator writes.
type allocLock struct {
	allocMu sync.Mutex
}

// Warner is an optional Strategy extension: the warnings a write that
// passed validation answers with (upstream: RESTCreateStrategy's
// WarningsOnCreate and RESTUpdateStrategy's WarningsOnUpdate, e.g.
// service.GetWarningsForService). The store hands them to the context's
// warning sink (WithWarningSink); writes to /status get none.
type Warner interface {
	WarningsOnCreate(obj meta.Object) []string
	WarningsOnUpdate(obj, old meta.Object) []string
}

// UpdateWarningValidator is an optional Strategy extension for
// strategies whose update warnings come out of validation itself (custom
// resources: the x-kubernetes-validations failures that ratcheting lets
// through, which upstream's CEL validator adds to the context while it
// validates): the store calls ValidateUpdateWithWarnings instead of
// ValidateUpdate on updates of the main resource (and
// ValidateStatusUpdateWithWarnings instead of StatusValidator's
// ValidateStatusUpdate on /status), and passes the warnings on when there
// are no errors, so the validation runs once per update.
type UpdateWarningValidator interface {
	ValidateUpdateWithWarnings(obj, old meta.Object) (meta.FieldErrors, []string)
	ValidateStatusUpdateWithWarnings(obj, old meta.Object) (meta.FieldErrors, []string)
}

type warningSinkKey struct{}

// WithWarningSink returns a copy of ctx under which the store passes each
// warning of a write (see Warner) to sink, as upstream's handlers collect
// them with warning.AddWarning(ctx) for the response's Warning headers.
// sink may be called several times with the same text (an update retried
// after a concurrent write); deduplicating is the sink's.
func WithWarningSink(ctx context.Context, sink func(text string)) context.Context {
	return context.WithValue(ctx, warningSinkKey{}, sink)
}

// warn passes ws to ctx's warning sink, if any.
func warn(ctx context.Context, ws []string) {
	sink, _ := ctx.Value(warningSinkKey{}).(func(string))
	if sink == nil {
		return
	}
	for _, w := range ws {
		sink(w)
	}
}
