package registry

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

func serviceStore(t *testing.T) *Store {
	t.Helper()
	st := storage.NewMemory()
	t.Cleanup(func() { st.Close() })
	return NewStore(st, ServiceStrategy{}, StoreOptions{})
}

func newService(name, clusterIP string) *core.Service {
	return &core.Service{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: core.ServiceSpec{ClusterIP: clusterIP, Ports: []core.ServicePort{{Port: 80}}}}
}

// Concurrent creates asking for one address: exactly one wins, the others
// get upstream's "provided IP is already allocated" (the store holds the
// allocation lock from the check to the write). Concurrent creates without
// one never get the same address. Without the lock (before), every create
// asking for 10.96.3.3 succeeded.
func TestServiceAllocationRace(t *testing.T) {
	const rounds, writers = 5, 8
	for round := range rounds {
		s := serviceStore(t)
		ip := fmt.Sprintf("10.96.3.%d", 3+round)
		var wg sync.WaitGroup
		errs := make([]error, writers)
		autos := make([]string, writers)
		for i := range writers {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, errs[i] = s.Create(context.Background(), newService(fmt.Sprintf("want-%d", i), ip))
			}()
			go func() {
				defer wg.Done()
				out, err := s.Create(context.Background(), newService(fmt.Sprintf("auto-%d", i), ""))
				if err != nil {
					t.Errorf("auto-%d: %v", i, err)
					return
				}
				autos[i] = out.(*core.Service).Spec.ClusterIP
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case errors.Is(err, meta.ErrInvalid) && strings.HasSuffix(err.Error(), "failed to allocate IP "+ip+": provided IP is already allocated"):
			default:
				t.Errorf("round %d want-%d: %v", round, i, err)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d creates of %s succeeded, want 1", round, won, ip)
		}
		seen := map[string]bool{ip: true}
		for i, a := range autos {
			if a != "" && seen[a] {
				t.Errorf("round %d auto-%d: %s given twice", round, i, a)
			}
			seen[a] = true
		}
	}
}

// freeClusterIP skips held addresses and, when the dynamic band is full,
// takes the static band's, never 10.96.0.0, 10.96.0.1 or the broadcast
// address.
func TestFreeClusterIP(t *testing.T) {
	ip, ok := freeClusterIP("default/x", nil)
	if !ok || !strings.HasPrefix(ip, "10.96.") || strings.HasPrefix(ip, "10.96.0.") {
		t.Fatalf("first: %s %v", ip, ok)
	}
	held := map[netip.Addr]bool{netip.MustParseAddr(ip): true}
	if next, ok := freeClusterIP("default/x", held); !ok || next == ip {
		t.Fatalf("held %s, got %s %v", ip, next, ok)
	}
	for off := 256; off < 1<<16-1; off++ {
		held[netip.AddrFrom4([4]byte{10, 96, byte(off >> 8), byte(off)})] = true
	}
	if ip, ok := freeClusterIP("default/x", held); !ok || ip != "10.96.0.2" {
		t.Fatalf("dynamic band full: %s %v, want 10.96.0.2", ip, ok)
	}
	for off := 2; off < 256; off++ {
		held[netip.AddrFrom4([4]byte{10, 96, 0, byte(off)})] = true
	}
	if ip, ok := freeClusterIP("default/x", held); ok {
		t.Fatalf("full range gave %s", ip)
	}
}
