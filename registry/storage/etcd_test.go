package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/aggsim/aggsim/internal/etcdtest"
)

// rawClient is a plain etcd client on srv, for looking at what the store wrote.
func rawClient(t *testing.T, srv *etcdtest.Server) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.URL()}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func openOn(t *testing.T, srv *etcdtest.Server, opts EtcdOptions) *Etcd {
	t.Helper()
	opts.Servers = []string{srv.URL()}
	s, err := OpenEtcd(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestEtcdKeyLayout: the store's keys land where kube-apiserver 1.33 puts
// them (etcdctl get --prefix --keys-only /registry on the reference after
// creating the same objects: /registry/configmaps/<ns>/<n>,
// /registry/services/specs/<ns>/<n>, /registry/services/endpoints/<ns>/<n>,
// /registry/clusterroles/<n>, /registry/apiregistration.k8s.io/apiservices/<n>,
// /registry/ranges/serviceips), and read back under the store's keys.
func TestEtcdKeyLayout(t *testing.T) {
	srv := etcdtest.Start(t)
	s := openOn(t, srv, EtcdOptions{})
	cases := map[string]string{
		"/registry/core/configmaps/kube-system/extension-apiserver-authentication": "/registry/configmaps/kube-system/extension-apiserver-authentication",
		"/registry/core/services/default/kubernetes":                               "/registry/services/specs/default/kubernetes",
		"/registry/core/endpoints/default/kubernetes":                              "/registry/services/endpoints/default/kubernetes",
		"/registry/core/namespaces/default":                                        "/registry/namespaces/default",
		"/registry/rbac.authorization.k8s.io/clusterroles/admin":                   "/registry/clusterroles/admin",
		"/registry/apiregistration.k8s.io/apiservices/v1.wardle.example.com":       "/registry/apiregistration.k8s.io/apiservices/v1.wardle.example.com",
		"/registry/coordination.k8s.io/leases/kube-system/kube-controller-manager": "/registry/leases/kube-system/kube-controller-manager",
		"/registry/ranges/serviceips":                                              "/registry/ranges/serviceips",
		"/registry/wardle.example.com/flunders/ns/f":                               "/registry/wardle.example.com/flunders/ns/f",
		"/plain": "/registry/:raw/plain",
	}
	for key := range cases {
		if _, err := s.Create(ctx, key, []byte(`{"k":"`+key+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := rawClient(t, srv).Get(ctx, "/registry/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range resp.Kvs {
		got[string(kv.Key)] = string(kv.Value)
	}
	for key, ekey := range cases {
		if got[ekey] != `{"k":"`+key+`"}` {
			t.Errorf("%s: etcd key %s holds %q", key, ekey, got[ekey])
		}
		if kv, err := s.Get(ctx, key); err != nil || string(kv.Value) != `{"k":"`+key+`"}` {
			t.Errorf("Get(%s) = %s, %v", key, kv.Value, err)
		}
	}
	if len(got) != len(cases) {
		t.Errorf("etcd holds %d keys, want %d: %v", len(got), len(cases), got)
	}
	kvs, _, err := s.List(ctx, "/registry/core/services/")
	if err != nil || len(kvs) != 1 || kvs[0].Key != "/registry/core/services/default/kubernetes" {
		t.Fatalf("List services = %v, %v", kvs, err)
	}
	kvs, _, err = s.List(ctx, "/registry/core/")
	var keys []string
	for _, kv := range kvs {
		keys = append(keys, kv.Key)
	}
	want := "/registry/core/configmaps/kube-system/extension-apiserver-authentication /registry/core/endpoints/default/kubernetes /registry/core/namespaces/default /registry/core/services/default/kubernetes"
	if err != nil || strings.Join(keys, " ") != want {
		t.Fatalf("List(/registry/core/) = %v, %v; want %s", keys, err, want)
	}
}

// TestEtcdPrefix: --etcd-prefix moves every key; two prefixes on one etcd
// do not see each other.
func TestEtcdPrefix(t *testing.T) {
	srv := etcdtest.Start(t)
	a := openOn(t, srv, EtcdOptions{Prefix: "/a"})
	b := openOn(t, srv, EtcdOptions{Prefix: "/b/"})
	if _, err := a.Create(ctx, "/registry/core/configmaps/ns/x", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "/registry/core/configmaps/ns/x"); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("b sees a's key: %v", err)
	}
	resp, err := rawClient(t, srv).Get(ctx, "/a/configmaps/ns/x")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("raw get /a/configmaps/ns/x: %v %v", resp, err)
	}
}

// TestEtcdReplicas: two stores on one etcd share revisions; a write on
// one reaches the other's watchers in order; compare-and-swap across them.
func TestEtcdReplicas(t *testing.T) {
	srv := etcdtest.Start(t)
	a := openOn(t, srv, EtcdOptions{})
	b := openOn(t, srv, EtcdOptions{})
	ch, err := b.Watch(ctx, "/registry/core/configmaps/", 0)
	if err != nil {
		t.Fatal(err)
	}
	var revs []int64
	for i := 0; i < 20; i++ {
		rev, err := a.Create(ctx, fmt.Sprintf("/registry/core/configmaps/ns/c%02d", i), []byte(fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	for i, want := range revs {
		select {
		case ev := <-ch:
			if ev.Revision != want || ev.Key != fmt.Sprintf("/registry/core/configmaps/ns/c%02d", i) {
				t.Fatalf("event %d = %s, want revision %d", i, fmtEvent(ev), want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d not seen on b", i)
		}
	}
	kv, err := b.Get(ctx, "/registry/core/configmaps/ns/c00")
	if err != nil || kv.ModRevision != revs[0] {
		t.Fatalf("b Get = %v, %v; want revision %d", kv, err, revs[0])
	}
	// a updates with the revision b read; b's stale update then conflicts.
	if _, err := a.Update(ctx, kv.Key, []byte("a"), kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, kv.Key, []byte("b"), kv.ModRevision); !errors.Is(err, ErrRevisionMismatch) {
		t.Fatalf("stale update on b: %v, want ErrRevisionMismatch", err)
	}
	if _, _, err := b.Delete(ctx, "/registry/core/configmaps/ns/none", 0); !errors.Is(err, ErrKeyNotFound) {
		t.Fatalf("delete missing: %v", err)
	}
}

// TestEtcdListAt: lists at a past revision see the state of then, pages
// read one snapshot, and a compacted revision is ErrCompacted.
func TestEtcdListAt(t *testing.T) {
	srv := etcdtest.Start(t)
	s := openOn(t, srv, EtcdOptions{})
	for i := 0; i < 5; i++ {
		mustCreate(t, s, fmt.Sprintf("/registry/core/configmaps/ns/c%d", i), "v", int64(i+2))
	}
	// revision 6 holds c0..c4; later c1 is deleted and c5 created.
	if _, _, err := s.Delete(ctx, "/registry/core/configmaps/ns/c1", 0); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/registry/core/configmaps/ns/c5", "v", 8)
	names := func(kvs []KV) string {
		var out []string
		for _, kv := range kvs {
			out = append(out, strings.TrimPrefix(kv.Key, "/registry/core/configmaps/ns/"))
		}
		return strings.Join(out, ",")
	}
	kvs, rev, more, err := s.ListAt(ctx, "/registry/core/configmaps/", 6, "", 2)
	if err != nil || rev != 6 || !more || names(kvs) != "c0,c1" {
		t.Fatalf("page 1 = %s @%d more=%v %v", names(kvs), rev, more, err)
	}
	kvs, rev, more, err = s.ListAt(ctx, "/registry/core/configmaps/", rev, kvs[1].Key+"\x00", 2)
	if err != nil || rev != 6 || !more || names(kvs) != "c2,c3" {
		t.Fatalf("page 2 = %s @%d more=%v %v", names(kvs), rev, more, err)
	}
	kvs, rev, more, err = s.ListAt(ctx, "/registry/core/configmaps/", rev, kvs[1].Key+"\x00", 2)
	if err != nil || rev != 6 || more || names(kvs) != "c4" {
		t.Fatalf("page 3 = %s @%d more=%v %v", names(kvs), rev, more, err)
	}
	kvs, rev, _, err = s.ListAt(ctx, "/registry/core/configmaps/", 0, "", 0)
	if err != nil || rev != 8 || names(kvs) != "c0,c2,c3,c4,c5" {
		t.Fatalf("current = %s @%d %v", names(kvs), rev, err)
	}
	if _, err := rawClient(t, srv).Compact(ctx, 7); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = s.ListAt(ctx, "/registry/core/configmaps/", 6, "", 0)
	var ce *CompactedError
	if !errors.As(err, &ce) {
		t.Fatalf("list at compacted revision: %v, want CompactedError", err)
	}
}

// TestEtcdCompaction: the compactor of one replica compacts the revision
// of the round before; both replicas' windows then refuse watches from
// before it, while later revisions still replay.
func TestEtcdCompaction(t *testing.T) {
	srv := etcdtest.Start(t)
	a := openOn(t, srv, EtcdOptions{CompactionInterval: 200 * time.Millisecond})
	b := openOn(t, srv, EtcdOptions{})
	for i := 0; i < 5; i++ {
		mustCreate(t, a, fmt.Sprintf("/registry/core/configmaps/ns/c%d", i), "v", int64(i+2))
	}
	// Wait (bounded) until b's window refuses a watch from revision 2.
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := b.Watch(ctx, "/registry/core/configmaps/", 2)
		if errors.Is(err, ErrCompacted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no compaction seen on b within 15 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := rawClient(t, srv).Get(ctx, "/registry/configmaps/ns/c0", clientv3.WithRev(2))
	if err == nil {
		t.Fatalf("etcd still has revision 2: %v", resp)
	}
	// New writes still reach watchers from the current revision.
	ch, err := b.Watch(ctx, "/registry/core/configmaps/", b.Revision())
	if err != nil {
		t.Fatal(err)
	}
	rev, err := a.Create(ctx, "/registry/core/configmaps/ns/late", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-ch:
		if ev.Revision != rev {
			t.Fatalf("event %s, want revision %d", fmtEvent(ev), rev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event after compaction")
	}
}

// TestEtcdRestart: the store survives an etcd restart: the shared watch
// resumes from the last revision without losing events and writes work
// again once etcd is back.
func TestEtcdRestart(t *testing.T) {
	srv := etcdtest.Start(t)
	a := openOn(t, srv, EtcdOptions{})
	b := openOn(t, srv, EtcdOptions{})
	ch, err := b.Watch(ctx, "/registry/core/configmaps/", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, a, "/registry/core/configmaps/ns/before", "v", 2)
	srv.Restart()
	var rev int64
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		rev, err = a.Create(c, "/registry/core/configmaps/ns/after", []byte("v"))
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no write within 20 s of the restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var got []string
	for len(got) < 2 {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			got = append(got, fmt.Sprintf("%s@%d", ev.Key, ev.Revision))
		case <-time.After(20 * time.Second):
			t.Fatalf("events after restart: %v", got)
		}
	}
	want := fmt.Sprintf("[/registry/core/configmaps/ns/before@2 /registry/core/configmaps/ns/after@%d]", rev)
	if fmt.Sprint(got) != want {
		t.Fatalf("events %v, want %s", got, want)
	}
}
