package aggregator

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aggsim/aggsim/certs"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/storage"
)

// countingGets counts the Gets of the ConfigMap's key.
type countingGets struct {
	storage.Storage
	gets atomic.Int64
}

func (s *countingGets) Get(ctx context.Context, key string) (storage.KV, error) {
	if strings.HasSuffix(key, "/configmaps/kube-system/extension-apiserver-authentication") {
		s.gets.Add(1)
	}
	return s.Storage.Get(ctx, key)
}

// A sync that would read what the last one read (no write in the store,
// the same CA bundles and proxy certificate, no certificate expired) is
// skipped: it does not even read the ConfigMap. A change to the ConfigMap
// by someone else, a new CA bundle or a certificate's expiry each make
// the next sync read and write again, as before.
func TestExtensionAuthSyncSkipsWhenNothingChanged(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemory()
	defer mem.Close()
	st := &countingGets{Storage: mem}
	start := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(start.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	ca, err := certs.NewCA("client-ca", certs.Options{Now: func() time.Time { return start }, CAValidity: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := certs.NewCA("front-proxy-ca", certs.Options{Now: func() time.Time { return start }, CAValidity: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var fpPEM atomic.Pointer[[]byte]
	fpPEM.Store(&fp.CertPEM)
	w := &extensionAuthWriter{
		configMaps:   registry.NewStore(st, registry.ConfigMapStrategy{Now: now}, registry.StoreOptions{}),
		namespaces:   registry.NewStore(st, registry.NamespaceStrategy{Now: now}, registry.StoreOptions{}),
		clientCA:     func() []byte { return ca.CertPEM },
		frontProxyCA: func() []byte { return *fpPEM.Load() },
		now:          now,
		logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	read := func() *core.ConfigMap {
		t.Helper()
		obj, err := w.configMaps.Get(ctx, "kube-system", "extension-apiserver-authentication")
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*core.ConfigMap)
	}
	// sync runs one sync and returns how many times it read the ConfigMap.
	sync := func(what string) int64 {
		t.Helper()
		before := st.gets.Load()
		if err := w.syncRetrying(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return st.gets.Load() - before
	}

	if n := sync("create"); n != 1 {
		t.Fatalf("create: %d reads, want 1", n)
	}
	created := read()
	if n := sync("first unchanged"); n != 1 { // finds it as required, records what it read
		t.Fatalf("first unchanged sync: %d reads, want 1", n)
	}
	for i := range 3 {
		if n := sync("unchanged"); n != 0 {
			t.Fatalf("unchanged sync %d: %d reads, want 0 (skipped)", i, n)
		}
	}
	if rv := read().ResourceVersion; rv != created.ResourceVersion {
		t.Fatalf("unchanged syncs wrote: resourceVersion %s, created at %s", rv, created.ResourceVersion)
	}

	// Someone else edits the ConfigMap: restored at the next sync.
	edited := read()
	delete(edited.Data, ExtensionAuthClientCA)
	if _, err := w.configMaps.Update(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if n := sync("after an edit"); n == 0 { // its read, and the update's
		t.Fatal("sync after an edit was skipped")
	}
	if got := read().Data[ExtensionAuthClientCA]; got != created.Data[ExtensionAuthClientCA] {
		t.Fatalf("client-ca-file after an edit: %q, want it restored to %q", got, created.Data[ExtensionAuthClientCA])
	}
	sync("settle") // finds it as required
	if n := sync("unchanged after restore"); n != 0 {
		t.Fatalf("unchanged sync after restore: %d reads, want 0", n)
	}

	// A rotated front-proxy CA: the next sync reads and publishes both.
	fp2, err := certs.NewCA("front-proxy-ca-2", certs.Options{Now: func() time.Time { return start }, CAValidity: 3 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	fpPEM.Store(&fp2.CertPEM)
	if n := sync("after rotation"); n == 0 {
		t.Fatal("sync after rotation was skipped")
	}
	if got := read().Data[ExtensionAuthRequestHeaderClientCA]; got != string(fp.CertPEM)+string(fp2.CertPEM) {
		t.Fatalf("requestheader-client-ca-file after rotation:\n%s\nwant the old CA then the new one", got)
	}
	sync("settle")
	if n := sync("unchanged after rotation"); n != 0 {
		t.Fatalf("unchanged sync after rotation: %d reads, want 0", n)
	}

	// The client CA expires (1 h): the next sync drops it.
	clock.Store(start.Add(time.Hour + time.Second).UnixNano())
	if n := sync("after expiry"); n == 0 {
		t.Fatal("sync after the client CA expired was skipped")
	}
	if got, ok := read().Data[ExtensionAuthClientCA]; ok {
		t.Fatalf("client-ca-file after its only CA expired: %q, want no key", got)
	}
}
