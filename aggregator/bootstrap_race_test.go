package aggregator

import (
	"context"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// racedWriter is a bootstrapWriter on which another replica created the
// object just before this replica's create, which then fails as the
// kubernetes Service's did with three replicas started at once on one
// etcd: 422 `failed to allocate IP 10.96.0.1: provided IP is already
// allocated` (the other replica's create took the IP) instead of 409.
type racedWriter struct {
	created meta.Object
}

func (w *racedWriter) Names(context.Context, string) ([]string, error) { return nil, nil }
func (w *racedWriter) Get(_ context.Context, ns, name string) (meta.Object, error) {
	if w.created == nil {
		return nil, meta.NewNotFound(meta.GroupResource{Resource: "services"}, name)
	}
	return w.created, nil
}
func (w *racedWriter) Create(_ context.Context, obj meta.Object) (meta.Object, error) {
	w.created = obj // the other replica's create
	return nil, meta.NewInvalid("", "Service", obj.GetObjectMeta().Name, meta.FieldErrors{
		meta.Invalid("spec.clusterIPs", []string{"10.96.0.1"}, "failed to allocate IP 10.96.0.1: provided IP is already allocated")})
}
func (w *racedWriter) Update(context.Context, meta.Object, meta.Object) (meta.Object, error) {
	panic("not called without revise")
}

// TestEnsureObjectCreatedMeanwhile: a bootstrap create that fails while
// the object exists (created meanwhile by another replica) is no error;
// one that fails while the object does not exist still is.
func TestEnsureObjectCreatedMeanwhile(t *testing.T) {
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "kubernetes"}}
	if err := ensureObject(context.Background(), &racedWriter{}, svc, nil, nil); err != nil {
		t.Fatalf("create lost to another replica: %v", err)
	}
	alone := &failingWriter{}
	if err := ensureObject(context.Background(), alone, svc, nil, nil); err == nil {
		t.Fatal("a create that failed with nothing stored returned nil")
	}
}

// failingWriter fails every create and stores nothing.
type failingWriter struct{ racedWriter }

func (w *failingWriter) Create(_ context.Context, obj meta.Object) (meta.Object, error) {
	return nil, meta.NewInternalError(context.DeadlineExceeded)
}
