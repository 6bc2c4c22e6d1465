package aggregator

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/storage"
)

// otherReplicaFirst is a storage on which another replica creates key
// (with value) just before this replica's first create of it, which then
// fails with ErrKeyExists: the race of replicas sharing etcd at start-up.
type otherReplicaFirst struct {
	storage.Storage
	key   string
	value []byte
	fired bool
}

func (s *otherReplicaFirst) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if key == s.key && !s.fired {
		s.fired = true
		if _, err := s.Storage.Create(ctx, key, s.value); err != nil {
			return 0, err
		}
		return 0, storage.ErrKeyExists
	}
	return s.Storage.Create(ctx, key, value)
}

// TestExtensionAuthConfigMapLosesCreateRace: a replica whose create of
// extension-apiserver-authentication loses to another replica's re-reads
// and merges its values into the other's ConfigMap instead of logging
// `configmaps "extension-apiserver-authentication" already exists` (what
// three replicas started at once on one etcd logged before).
func TestExtensionAuthConfigMapLosesCreateRace(t *testing.T) {
	mem := storage.NewMemory()
	defer mem.Close()
	st := &otherReplicaFirst{Storage: mem, key: "/registry/core/configmaps/kube-system/extension-apiserver-authentication",
		value: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"extension-apiserver-authentication","namespace":"kube-system","uid":"u","creationTimestamp":"2026-11-24T08:00:00Z"},"data":{"requestheader-allowed-names":"[\"other-proxy\"]"}}`)}
	now := func() time.Time { return time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC) }
	w := &extensionAuthWriter{
		configMaps: registry.NewStore(st, registry.ConfigMapStrategy{Now: now}, registry.StoreOptions{}),
		namespaces: registry.NewStore(st, registry.NamespaceStrategy{Now: now}, registry.StoreOptions{}),
		now:        now,
		logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := w.syncRetrying(context.Background()); err != nil {
		t.Fatalf("sync after losing the create race: %v", err)
	}
	obj, err := w.configMaps.Get(context.Background(), "kube-system", "extension-apiserver-authentication")
	if err != nil {
		t.Fatal(err)
	}
	// The other replica's object (its uid), brought up to date by this
	// replica (written after the other's create at revision 3, following
	// kube-system's creation at 2).
	cm := obj.(*core.ConfigMap)
	if cm.UID != "u" || cm.ResourceVersion != "4" {
		t.Fatalf("configmap uid %s rv %s ; want the other replica's (uid u) updated at revision 4", cm.UID, cm.ResourceVersion)
	}
}
