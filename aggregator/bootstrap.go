package aggregator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aggsim/aggsim/internal/stackstart"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/rest"
)

// bootstrapWriter is the part of a store's writer ensureObjects uses
// (rest.ObjectWriter: writes recorded in managedFields as its manager's).
type bootstrapWriter interface {
	Names(ctx context.Context, namespace string) ([]string, error)
	Get(ctx context.Context, namespace, name string) (meta.Object, error)
	Create(ctx context.Context, obj meta.Object) (meta.Object, error)
	Update(ctx context.Context, live, obj meta.Object) (meta.Object, error)
}

var _ bootstrapWriter = rest.ObjectWriter{}

// ensureObjects is the server's one "these objects exist" mechanism (the
// system namespaces, the local APIServices, the "kubernetes" Service and
// Endpoints, the bootstrap RBAC policy, the APF bootstrap configuration).
// It creates every object of objs that does not exist yet, all at once:
// the store commits writes that wait together in one transaction
// (registry/storage's group commit), so a fresh data dir costs one fsync
// instead of one per object.
//
// Without revise, existence is checked by name (Names, one read per
// namespace, no object decoded) and an object that exists is left alone.
// With revise, each object is read and revise(live, want) returns the
// object that should replace live, or nil when live is fine; a create or
// update that lost a race is retried a few times. The error joins every
// failure other than a lost create race, naming kind and object.
func ensureObjects(ctx context.Context, w bootstrapWriter, kind string, objs []meta.Object, revise func(live, want meta.Object) meta.Object) error {
	if revise == nil {
		var err error
		if objs, err = missingObjects(ctx, w, objs); err != nil {
			return fmt.Errorf("list %ss: %w", kind, err)
		}
	}
	// The writes are announced to the store before they are issued
	// (bootstrap_batch.go), so that it commits them together: all of objs
	// without revise; with revise, once every object has been read, those
	// that need a write.
	ann := newAnnouncement(ctx, len(objs), revise == nil)
	defer ann.done()
	errs := make([]error, len(objs))
	var wg sync.WaitGroup
	for i, o := range objs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stackstart.Grow() // one copy now instead of several deep in the create
			if err := ensureObject(ctx, w, o, revise, ann); err != nil {
				m := o.GetObjectMeta()
				errs[i] = fmt.Errorf("%s %q: %w", kind, qualifiedName(m.Namespace, m.Name), err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// missingObjects returns the objects of objs whose names are not stored.
func missingObjects(ctx context.Context, w bootstrapWriter, objs []meta.Object) ([]meta.Object, error) {
	stored := map[string]map[string]bool{} // namespace -> names
	var out []meta.Object
	for _, o := range objs {
		m := o.GetObjectMeta()
		names, ok := stored[m.Namespace]
		if !ok {
			list, err := w.Names(ctx, m.Namespace)
			if err != nil {
				return nil, err
			}
			names = make(map[string]bool, len(list))
			for _, n := range list {
				names[n] = true
			}
			stored[m.Namespace] = names
		}
		if !names[m.Name] {
			out = append(out, o)
		}
	}
	return out, nil
}

// ensureObject creates obj, or (with revise) brings the live one up to
// date; see ensureObjects. With revise, its first read is reported to ann
// (decided) before it writes.
func ensureObject(ctx context.Context, w bootstrapWriter, obj meta.Object, revise func(live, want meta.Object) meta.Object, ann *announcement) error {
	if revise == nil {
		if _, err := w.Create(ctx, obj); err != nil && !errors.Is(err, meta.ErrAlreadyExists) {
			// A replica sharing the store may have created it meanwhile
			// and failed this create some other way (the kubernetes
			// Service's ClusterIP already allocated by that create).
			m := obj.GetObjectMeta()
			if _, gerr := w.Get(ctx, m.Namespace, m.Name); gerr == nil {
				return nil
			}
			return err
		}
		return nil // created, or created meanwhile: left alone
	}
	m := obj.GetObjectMeta()
	for attempt := 0; ; attempt++ {
		live, err := w.Get(ctx, m.Namespace, m.Name)
		var upd meta.Object
		if err == nil {
			upd = revise(live, obj)
		}
		if attempt == 0 {
			ann.decided(errors.Is(err, meta.ErrNotFound) || upd != nil)
		}
		switch {
		case errors.Is(err, meta.ErrNotFound):
			_, err = w.Create(ctx, obj)
		case err == nil:
			if upd != nil {
				_, err = w.Update(ctx, live, upd)
			}
		}
		if (errors.Is(err, meta.ErrAlreadyExists) || errors.Is(err, meta.ErrConflict)) && attempt < 3 {
			continue
		}
		return err
	}
}

// qualifiedName is namespace/name, or name for a cluster-scoped object.
func qualifiedName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
