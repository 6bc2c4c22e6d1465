package registry

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// eventLine is an event as "TYPE name rv labels" (ERROR: its status
// code and message).
func eventLine(ev WatchEvent) string {
	if ev.Object == nil {
		return fmt.Sprintf("%s %d %s", ev.Type, ev.Status.Code, ev.Status.Message)
	}
	m := ev.Object.GetObjectMeta()
	return fmt.Sprintf("%s %s %s %v", ev.Type, m.Name, m.ResourceVersion, m.Labels)
}

// WatchFunc calls fn with the events Watch sends, in Watch's order, for
// the same options: initial events, a selector's ADDED and DELETED on
// entering and leaving it, MODIFIED, DELETED; fn returning false ends it;
// an expired resourceVersion is the one ERROR event Watch sends.
func TestWatchFuncMatchesWatch(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	s := NewStore(st, ConfigMapStrategy{}, StoreOptions{})
	for _, name := range []string{"a", "b"} {
		if _, err := s.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"x": "y"}}}); err != nil {
			t.Fatal(err)
		}
	}
	passes := []struct {
		opts             ListOptions
		bLabels, aLabels map[string]string
		initial, want    int
	}{
		// ADDED a, ADDED b, MODIFIED b, MODIFIED a, DELETED a
		{ListOptions{}, nil, map[string]string{"x": "y", "z": "1"}, 2, 5},
		// ADDED a (b has no label now), ADDED b (enters), DELETED a
		// (leaves); a's deletion is filtered out
		{ListOptions{LabelSelector: "x=y"}, map[string]string{"x": "y"}, map[string]string{"z": "1"}, 1, 3},
	}
	for _, p := range passes {
		opts, want := p.opts, p.want
		wctx, cancel := context.WithCancel(ctx)
		ch, err := s.Watch(wctx, "ns", opts)
		if err != nil {
			t.Fatal(err)
		}
		var viaFunc []string
		done := make(chan error, 1)
		listed := make(chan struct{})
		go func() {
			done <- s.WatchFunc(ctx, "ns", opts, func(ev WatchEvent) bool {
				viaFunc = append(viaFunc, eventLine(ev))
				if len(viaFunc) == p.initial {
					close(listed) // the changes below come after its list
				}
				return len(viaFunc) < want
			})
		}()
		select {
		case <-listed:
		case <-time.After(10 * time.Second):
			t.Fatalf("selector %q: WatchFunc sent no initial events", opts.LabelSelector)
		}
		for _, c := range []struct {
			name   string
			labels map[string]string
		}{{"b", p.bLabels}, {"a", p.aLabels}} {
			o, err := s.Get(ctx, "ns", c.name)
			if err != nil {
				t.Fatal(err)
			}
			o.GetObjectMeta().Labels = c.labels
			if _, err := s.Update(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Delete(ctx, "ns", "a", nil); err != nil {
			t.Fatal(err)
		}
		var viaChan []string
		timeout := time.After(10 * time.Second)
		for len(viaChan) < want {
			select {
			case ev := <-ch:
				viaChan = append(viaChan, eventLine(ev))
			case <-timeout:
				t.Fatalf("selector %q: Watch sent %d events: %q", opts.LabelSelector, len(viaChan), viaChan)
			}
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("selector %q: WatchFunc did not end after fn returned false; events %q", opts.LabelSelector, viaFunc)
		}
		if !reflect.DeepEqual(viaFunc, viaChan) {
			t.Errorf("selector %q:\nWatchFunc %q\n    Watch %q", opts.LabelSelector, viaFunc, viaChan)
		}
		// recreate a for the next pass
		if _, err := s.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "a", Labels: map[string]string{"x": "y"}}}); err != nil {
			t.Fatal(err)
		}
	}

	// A store started later keeps no history before its start: 410.
	late := NewStore(st, ConfigMapStrategy{}, StoreOptions{})
	opts := ListOptions{ResourceVersion: "1"}
	ch, err := late.Watch(ctx, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	var viaChan []string
	for ev := range ch {
		viaChan = append(viaChan, eventLine(ev))
	}
	var viaFunc []string
	if err := late.WatchFunc(ctx, "", opts, func(ev WatchEvent) bool {
		viaFunc = append(viaFunc, eventLine(ev))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(viaChan) != 1 || !reflect.DeepEqual(viaFunc, viaChan) {
		t.Errorf("expired:\nWatchFunc %q\n    Watch %q", viaFunc, viaChan)
	}

	// Watch's errors, without calling fn.
	err = s.WatchFunc(ctx, "", ListOptions{ResourceVersion: "x"}, func(WatchEvent) bool {
		t.Error("fn called for a bad resourceVersion")
		return false
	})
	_, werr := s.Watch(ctx, "", ListOptions{ResourceVersion: "x"})
	if err == nil || werr == nil || err.Error() != werr.Error() {
		t.Errorf("bad resourceVersion: WatchFunc %v, Watch %v", err, werr)
	}
}
