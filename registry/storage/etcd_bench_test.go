package storage

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aggsim/aggsim/internal/etcdtest"
)

// BenchmarkList lists a prefix of 100 keys (one resource of a namespace) on
// every backend; with BenchmarkCreate and BenchmarkGet it compares etcd
// with bbolt in one run (`go test -run '^$' -bench 'Create|Get|List|Propagation'
// ./registry/storage/`).
func BenchmarkList(b *testing.B) {
	const keys = 100
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b, defaultWatchConfig())
			for i := 0; i < keys; i++ {
				if _, err := s.Create(ctx, fmt.Sprintf("/registry/core/configmaps/ns/%04d", i), benchValue); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				kvs, _, err := s.List(ctx, "/registry/core/configmaps/ns/")
				if err != nil || len(kvs) != keys {
					b.Fatal(len(kvs), err)
				}
			}
		})
	}
}

// BenchmarkEtcdPropagation measures, for two replicas on one etcd, the
// time from a write on A returning to its event arriving on a watch on B
// (negative when B sees it first: A's write waits for its own watch),
// reported as median and p99 in microseconds, and from the write's start
// to B's event (write+propagation).
func BenchmarkEtcdPropagation(b *testing.B) {
	srv := etcdtest.Start(b)
	open := func() *Etcd {
		s, err := OpenEtcd(EtcdOptions{Servers: []string{srv.URL()}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	a, bb := open(), open()
	const key = "/registry/core/configmaps/ns/p"
	if _, err := a.Create(ctx, key, benchValue); err != nil {
		b.Fatal(err)
	}
	ch, err := bb.Watch(ctx, "/registry/core/configmaps/", a.Revision())
	if err != nil {
		b.Fatal(err)
	}
	var afterReturn, total []time.Duration
	for b.Loop() {
		start := time.Now()
		rev, err := a.Update(ctx, key, benchValue, 0)
		if err != nil {
			b.Fatal(err)
		}
		returned := time.Now()
		for {
			ev, ok := <-ch
			if !ok {
				b.Fatal("watch closed")
			}
			if ev.Revision == rev {
				break
			}
		}
		seen := time.Now()
		afterReturn = append(afterReturn, seen.Sub(returned))
		total = append(total, seen.Sub(start))
	}
	q := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(p*float64(len(d))))].Microseconds())
	}
	b.ReportMetric(q(total, 0.5), "write-to-B-event-p50-µs")
	b.ReportMetric(q(total, 0.99), "write-to-B-event-p99-µs")
	b.ReportMetric(q(afterReturn, 0.5), "return-to-B-event-p50-µs")
	b.ReportMetric(q(afterReturn, 0.99), "return-to-B-event-p99-µs")
}
