package registry

import (
	"context"
	"fmt"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/aggsim/aggsim/internal/etcdtest"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// TestEtcdListSnapshot: on etcd, continue pages and Exact lists read the
// snapshot of their revision, as kube-apiserver's etcd3 store: objects
// created or deleted after the first page do not show in later ones; a
// compacted revision is 410 Expired with upstream's messages.
func TestEtcdListSnapshot(t *testing.T) {
	srv := etcdtest.Start(t)
	st, err := storage.OpenEtcd(storage.EtcdOptions{Servers: []string{srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	s := NewStore(st, ConfigMapStrategy{}, StoreOptions{})
	create := func(name string) {
		t.Helper()
		if _, err := s.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 4; i++ {
		create(fmt.Sprintf("c%d", i))
	}
	names := func(r ListResult) string {
		var out []string
		for _, o := range r.Items {
			out = append(out, o.GetObjectMeta().Name)
		}
		return strings.Join(out, ",")
	}
	p1, err := s.ListPage(ctx, "ns", ListOptions{Limit: 2})
	if err != nil || names(p1) != "c0,c1" || p1.Continue == "" {
		t.Fatalf("page 1 = %s %q, %v", names(p1), p1.Continue, err)
	}
	if _, err := s.Delete(ctx, "ns", "c2", nil); err != nil {
		t.Fatal(err)
	}
	create("c4")
	p2, err := s.ListPage(ctx, "ns", ListOptions{Limit: 2, Continue: p1.Continue})
	if err != nil || names(p2) != "c2,c3" || p2.ResourceVersion != p1.ResourceVersion || p2.Continue != "" {
		t.Fatalf("page 2 = %s rv %s (page 1 rv %s) continue %q, %v; want c2,c3 from page 1's snapshot", names(p2), p2.ResourceVersion, p1.ResourceVersion, p2.Continue, err)
	}
	ex, err := s.ListPage(ctx, "ns", ListOptions{ResourceVersion: p1.ResourceVersion, ResourceVersionMatch: "Exact"})
	if err != nil || names(ex) != "c0,c1,c2,c3" || ex.ResourceVersion != p1.ResourceVersion {
		t.Fatalf("Exact list = %s @%s, %v", names(ex), ex.ResourceVersion, err)
	}
	now, err := s.ListPage(ctx, "ns", ListOptions{})
	if err != nil || names(now) != "c0,c1,c3,c4" {
		t.Fatalf("current list = %s, %v", names(now), err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Compact(ctx, st.Revision()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts ListOptions
		msg  string
	}{
		{ListOptions{ResourceVersion: p1.ResourceVersion, ResourceVersionMatch: "Exact"}, "The resourceVersion for the provided list is too old."},
		{ListOptions{Limit: 2, Continue: p1.Continue}, "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."},
	} {
		_, err := s.ListPage(ctx, "ns", c.opts)
		se, ok := err.(*meta.StatusError)
		if !ok || se.Status.Code != 410 || se.Status.Reason != meta.StatusReasonExpired || se.Status.Message != c.msg {
			t.Errorf("list %+v after compaction: %v; want 410 Expired %q", c.opts, err, c.msg)
		}
	}
}
