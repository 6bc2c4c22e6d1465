package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/storage"
)

// Watch tests check these invariants:
//   - events arrive in resourceVersion order, each exactly once;
//   - a watch from resourceVersion N sees exactly the changes after N;
//   - a watch from a compacted revision gets one ERROR 410 Expired event;
//   - bookmarks carry only kind, apiVersion and the resourceVersion;
//   - sendInitialEvents ends its initial ADDED events with an annotated
//     BOOKMARK at the list's resourceVersion;
//   - objects entering/leaving a selector are ADDED/DELETED.

func next(t *testing.T, ch <-chan registry.WatchEvent) registry.WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event")
	}
	return registry.WatchEvent{}
}

// nextNonBookmark skips bookmarks.
func nextNonBookmark(t *testing.T, ch <-chan registry.WatchEvent) registry.WatchEvent {
	for {
		ev := next(t, ch)
		if ev.Type != registry.EventBookmark {
			return ev
		}
	}
}

func describe(ev registry.WatchEvent) string {
	if ev.Object == nil {
		return ev.Type
	}
	return ev.Type + " " + ev.Object.GetObjectMeta().Name + "@" + ev.Object.GetObjectMeta().ResourceVersion
}

func widgetStore(a *API) *registry.Store {
	return a.Store(meta.GroupResource{Group: "toys.example.com", Resource: "widgets"})
}

func newWidget(name string, size int32) *Widget {
	return &Widget{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}}, Spec: WidgetSpec{Size: size}}
}

func TestWatchOrderAndResume(t *testing.T) {
	a, _ := testAPI(t)
	s := widgetStore(a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a1, err := s.Create(ctx, newWidget("a", 1))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Watch(ctx, "default", registry.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := s.Create(ctx, newWidget("b", 1))
	rvA1 := a1.GetObjectMeta().ResourceVersion
	a1.(*Widget).Spec.Size = 2
	a2, err := s.Update(ctx, a1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, "default", "b", nil); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < 4; i++ {
		got = append(got, describe(next(t, ch)))
	}
	rvB := b1.GetObjectMeta().ResourceVersion
	rvA2 := a2.GetObjectMeta().ResourceVersion
	want := []string{"ADDED a@" + rvA1, "ADDED b@" + rvB, "MODIFIED a@" + rvA2, fmt.Sprintf("DELETED b@%d", mustAtoi(rvA2)+1)}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	// Resume after b's creation: only the update and the delete.
	ch2, err := s.Watch(ctx, "", registry.ListOptions{ResourceVersion: rvB})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for i := 0; i < 2; i++ {
		got = append(got, describe(next(t, ch2)))
	}
	if strings.Join(got, ",") != strings.Join(want[2:], ",") {
		t.Errorf("resumed events %v want %v", got, want[2:])
	}
}

func mustAtoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

type compactedStorage struct{ storage.Storage }

func (compactedStorage) Watch(context.Context, string, int64) (<-chan storage.Event, error) {
	return nil, storage.ErrCompacted
}

func TestWatchTooOld(t *testing.T) {
	mem := storage.NewMemory()
	defer mem.Close()
	s := registry.NewStore(compactedStorage{mem}, widgetStrategy{}, registry.StoreOptions{})
	if _, err := s.Create(context.Background(), newWidget("a", 1)); err != nil {
		t.Fatal(err)
	}
	ch, err := s.Watch(context.Background(), "", registry.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	b, _ := json.Marshal(ev.Status)
	want := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (%d)","reason":"Expired","code":410}`, mem.Revision())
	if ev.Type != registry.EventError || string(b) != want {
		t.Errorf("got %s %s\nwant %s", ev.Type, b, want)
	}
	if _, ok := <-ch; ok {
		t.Error("watch not closed after the error")
	}
}

func TestWatchBookmarks(t *testing.T) {
	a, _ := testAPI(t)
	s := widgetStore(a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, _ := s.Create(ctx, newWidget("a", 1))
	rv := w.GetObjectMeta().ResourceVersion
	ch, err := s.Watch(ctx, "", registry.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	b, _ := json.Marshal(ev.Object)
	want := `{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"resourceVersion":"` + rv + `","creationTimestamp":null},"spec":{},"status":{}}`
	if ev.Type != registry.EventBookmark || string(b) != want {
		t.Errorf("bookmark %s %s\nwant %s", ev.Type, b, want)
	}
}

func TestWatchSendInitialEvents(t *testing.T) {
	a, st := testAPI(t)
	s := widgetStore(a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Create(ctx, newWidget("a", 1))
	s.Create(ctx, newWidget("b", 1))
	listRV := fmt.Sprint(st.Revision())
	yes := true
	ch, err := s.Watch(ctx, "default", registry.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(next(t, ch)) + "," + describe(next(t, ch)); !strings.HasPrefix(got, "ADDED a@") || !strings.Contains(got, ",ADDED b@") {
		t.Errorf("initial events %s", got)
	}
	ev := next(t, ch)
	m := ev.Object.GetObjectMeta()
	if ev.Type != registry.EventBookmark || m.ResourceVersion != listRV || m.Annotations[registry.InitialEventsEndAnnotation] != "true" {
		t.Errorf("end bookmark %s %+v", ev.Type, m)
	}
	s.Create(ctx, newWidget("c", 1))
	if ev := nextNonBookmark(t, ch); describe(ev) != fmt.Sprintf("ADDED c@%d", st.Revision()) {
		t.Errorf("after bookmark: %s", describe(ev))
	}
}

func TestWatchSelectorTransitions(t *testing.T) {
	a, _ := testAPI(t)
	s := widgetStore(a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, _ := s.Create(ctx, newWidget("a", 1))
	ch, err := s.Watch(ctx, "", registry.ListOptions{LabelSelector: "team=x", ResourceVersion: w.GetObjectMeta().ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	w.GetObjectMeta().Labels["team"] = "x"
	w, _ = s.Update(ctx, w)
	w.(*Widget).Spec.Size = 5
	w, _ = s.Update(ctx, w)
	delete(w.GetObjectMeta().Labels, "team")
	s.Update(ctx, w)
	var got []string
	for i := 0; i < 3; i++ {
		got = append(got, next(t, ch).Type)
	}
	if strings.Join(got, ",") != "ADDED,MODIFIED,DELETED" {
		t.Errorf("got %v", got)
	}
}

func TestWatchTimeoutCloses(t *testing.T) {
	a, _ := testAPI(t)
	one := int64(1)
	ch, err := widgetStore(a).Watch(context.Background(), "", registry.ListOptions{TimeoutSeconds: &one, ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	for range ch {
	}
}

// TestWatchHTTP streams a watch over a real loopback server: JSON lines
// flushed per event, Table rows with column definitions only first, and a
// clean end on API.Shutdown.
func TestWatchHTTP(t *testing.T) {
	a, st := testAPI(t)
	srv := httptest.NewServer(a)
	defer srv.Close()
	rv := fmt.Sprint(st.Revision())
	get := func(accept string) (*http.Response, *bufio.Reader) {
		req, _ := http.NewRequest("GET", srv.URL+widgets+"?watch=true&resourceVersion="+rv, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, bufio.NewReader(resp.Body)
	}
	plain, plainR := get("")
	defer plain.Body.Close()
	table, tableR := get("application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	defer table.Body.Close()
	if plain.StatusCode != 200 || plain.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("watch response %d %v", plain.StatusCode, plain.Header)
	}
	c1 := mustCreate(t, a, "default", "h1", 1)
	mustCreate(t, a, "default", "h2", 2)
	line, err := plainR.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	c1b, _ := json.Marshal(c1)
	if want := `{"type":"ADDED","object":` + string(c1b) + "}\n"; line != want {
		t.Errorf("line\n got %s\nwant %s", line, want)
	}
	var ev1, ev2 struct {
		Type   string     `json:"type"`
		Object meta.Table `json:"object"`
	}
	l1, _ := tableR.ReadString('\n')
	l2, _ := tableR.ReadString('\n')
	json.Unmarshal([]byte(l1), &ev1)
	json.Unmarshal([]byte(l2), &ev2)
	if ev1.Object.Kind != "Table" || len(ev1.Object.ColumnDefinitions) != 2 || ev2.Object.ColumnDefinitions != nil || len(ev2.Object.Rows) != 1 {
		t.Errorf("table events:\n%s%s", l1, l2)
	}
	if !strings.Contains(l2, `"columnDefinitions":null,"rows":[{"cells":["h2",2],"object":{"kind":"PartialObjectMetadata"`) {
		t.Errorf("second table event %s", l2)
	}
	if l, _ := plainR.ReadString('\n'); !strings.HasPrefix(l, `{"type":"ADDED","object":{"kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"h2"`) {
		t.Errorf("second line %s", l)
	}
	a.Shutdown()
	if l, err := plainR.ReadString('\n'); err == nil {
		t.Errorf("watch did not end on Shutdown: %s", l)
	}
}

// TestWatchTooOldNamesFloor checks the 410's second number: the highest
// revision no longer replayable, as upstream's watch cache names its
// oldest-1 (kube-apiserver 1.33.13, curl .../configmaps?watch=1&resourceVersion=1:
// `too old resource version: 1 (2)`, 2 being the revision its cache
// started at), not the store's current revision. A store reopened at
// revision N replays nothing from before N.
func TestWatchTooOldNamesFloor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	st, err := storage.OpenBolt(path, storage.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := registry.NewStore(st, widgetStrategy{}, registry.StoreOptions{})
	for _, n := range []string{"a", "b"} {
		if _, err := s.Create(context.Background(), newWidget(n, 1)); err != nil {
			t.Fatal(err)
		}
	}
	opened := st.Revision()
	_ = st.Close()
	st, err = storage.OpenBolt(path, storage.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s = registry.NewStore(st, widgetStrategy{}, registry.StoreOptions{})
	if _, err := s.Create(context.Background(), newWidget("c", 1)); err != nil {
		t.Fatal(err)
	}
	ch, err := s.Watch(context.Background(), "", registry.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	b, _ := json.Marshal(ev.Status)
	want := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (%d)","reason":"Expired","code":410}`, opened)
	if ev.Type != registry.EventError || string(b) != want || opened == st.Revision() {
		t.Errorf("got %s %s\nwant %s (current revision %d)", ev.Type, b, want, st.Revision())
	}
	ch, err = s.Watch(context.Background(), "", registry.ListOptions{ResourceVersion: fmt.Sprint(opened)})
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.Type != registry.EventAdded {
		t.Errorf("watch from the floor: %s, want ADDED", ev.Type)
	}
}
