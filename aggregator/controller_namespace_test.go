package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// fakeNSAPI is the server the namespace controller talks to in these
// tests: aggregated discovery of the core group (configmaps with
// deletecollection, services without it) and wardle.example.com
// (flunders, v1beta1 preferred), the objects of one namespace, and the
// namespace itself. It records the requests.
type fakeNSAPI struct {
	mu         sync.Mutex
	ns         core.Namespace
	objects    map[string][]fakeObj // resource -> objects
	stale      bool                 // wardle's versions are Stale
	failOnce   map[string]string    // resource -> message of one 406 answer to deletecollection
	requests   []string
	users      []string
	finalized  bool
	statusPuts int
}

type fakeObj struct {
	name       string
	finalizers []string
}

func (f *fakeNSAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	if u, ok := r.Context().Value(inProcessUserKey{}).(*authentication.UserInfo); ok {
		f.users = append(f.users, u.Username)
	}
	writeJSON := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	nsPath := "/api/v1/namespaces/" + f.ns.Name
	switch {
	case r.URL.Path == "/api":
		_, _ = io.WriteString(w, `{"items":[{"metadata":{"name":""},"versions":[{"version":"v1","freshness":"Current","resources":[`+
			`{"resource":"configmaps","scope":"Namespaced","verbs":["create","delete","deletecollection","get","list"]},`+
			`{"resource":"services","scope":"Namespaced","verbs":["create","delete","get","list"]},`+
			`{"resource":"namespaces","scope":"Cluster","verbs":["create","delete","get","list"]}]}]}]}`)
	case r.URL.Path == "/apis":
		if f.stale {
			_, _ = io.WriteString(w, `{"items":[{"metadata":{"name":"wardle.example.com"},"versions":[{"version":"v1beta1","freshness":"Stale"},{"version":"v1alpha1","freshness":"Stale"}]}]}`)
			return
		}
		res := `[{"resource":"flunders","scope":"Namespaced","verbs":["create","delete","deletecollection","get","list"]}]`
		_, _ = io.WriteString(w, `{"items":[{"metadata":{"name":"wardle.example.com"},"versions":[{"version":"v1beta1","freshness":"Current","resources":`+res+`},{"version":"v1alpha1","freshness":"Current","resources":`+res+`}]}]}`)
	case r.URL.Path == nsPath && r.Method == http.MethodGet:
		writeJSON(http.StatusOK, &f.ns)
	case (r.URL.Path == nsPath+"/status" || r.URL.Path == nsPath+"/finalize") && r.Method == http.MethodPut:
		var ns core.Namespace
		if err := json.NewDecoder(r.Body).Decode(&ns); err != nil {
			writeJSON(http.StatusBadRequest, meta.NewBadRequest(err.Error()).Status)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/status") {
			f.ns.Status = ns.Status
			f.statusPuts++
		} else {
			f.ns.Spec = ns.Spec
			f.finalized = true
		}
		writeJSON(http.StatusOK, &f.ns)
	case r.URL.Path == nsPath && r.Method == http.MethodDelete:
		writeJSON(http.StatusNotFound, meta.NewNotFound(meta.GroupResource{Resource: "namespaces"}, f.ns.Name).Status)
	default:
		m := regexp.MustCompile(`^/apis?/(?:[^/]+/)?v1(?:beta1)?/namespaces/` + f.ns.Name + `/([a-z]+)(?:/([a-z0-9-]+))?$`).FindStringSubmatch(r.URL.Path)
		if m == nil {
			writeJSON(http.StatusNotFound, meta.NewNotFound(meta.GroupResource{}, r.URL.Path).Status)
			return
		}
		res, name := m[1], m[2]
		switch {
		case r.Method == http.MethodDelete && name == "":
			if msg, ok := f.failOnce[res]; ok {
				delete(f.failOnce, res)
				writeJSON(http.StatusNotAcceptable, meta.NewStatusError(http.StatusNotAcceptable, "NotAcceptable", msg).Status)
				return
			}
			f.objects[res] = slices.DeleteFunc(f.objects[res], func(o fakeObj) bool { return len(o.finalizers) == 0 })
			writeJSON(http.StatusOK, map[string]any{"kind": "List", "items": []any{}})
		case r.Method == http.MethodDelete:
			f.objects[res] = slices.DeleteFunc(f.objects[res], func(o fakeObj) bool { return o.name == name && len(o.finalizers) == 0 })
			writeJSON(http.StatusOK, map[string]any{"kind": "Status", "status": "Success"})
		case r.Method == http.MethodGet && name == "":
			var items []any
			for _, o := range f.objects[res] {
				items = append(items, map[string]any{"metadata": map[string]any{"name": o.name, "finalizers": o.finalizers}})
			}
			writeJSON(http.StatusOK, map[string]any{"items": items})
		default:
			writeJSON(http.StatusMethodNotAllowed, meta.NewStatusError(http.StatusMethodNotAllowed, "MethodNotAllowed", "no").Status)
		}
	}
}

// capturedConditions returns the condition lines ("Type=Status Reason:
// message") of event n (1-based) of a kube-1.33/namespace *-events.txt
// capture (python3 capture/l-events.py <watch file>).
func capturedConditions(t *testing.T, file string, n int) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "namespace", file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		if regexp.MustCompile(`^\d+\. `).MatchString(l) {
			in = strings.HasPrefix(l, fmt.Sprintf("%d. ", n))
			continue
		}
		if in && strings.HasPrefix(l, "     ") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no conditions in event %d", file, n)
	}
	return out
}

func conditionLines(cs []core.NamespaceCondition) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return out
}

func newTestNSController(f *fakeNSAPI) *namespaceController {
	now := time.Date(2026, 11, 24, 1, 52, 34, 0, time.UTC)
	return &namespaceController{logger: slog.New(slog.DiscardHandler), now: func() time.Time { return now }, queue: newNSQueue(),
		client: loopback{api: f, user: &authentication.UserInfo{Username: NamespaceControllerUser}, userAgent: namespaceControllerUserAgent}}
}

func terminatingNS(name string) core.Namespace {
	ts := meta.NewTime(time.Date(2026, 11, 24, 1, 52, 29, 0, time.UTC))
	return core.Namespace{ObjectMeta: meta.ObjectMeta{Name: name, DeletionTimestamp: &ts},
		Spec: core.NamespaceSpec{Finalizers: []string{core.FinalizerKubernetes}}, Status: core.NamespaceStatus{Phase: core.NamespaceTerminating}}
}

// TestNamespaceControllerContentFailureThenDeleted replays capture 2
// (kube-1.33/namespace/2-ok-events.txt): the backend's first
// deletecollection answers 406 (the sample-apiserver cannot encode a
// FlunderList in protobuf), so the first pass writes
// NamespaceDeletionContentFailure=True; the retry succeeds, all five
// conditions turn False and the finalizer is removed.
func TestNamespaceControllerContentFailureThenDeleted(t *testing.T) {
	f := &fakeNSAPI{ns: terminatingNS("ns-ok"),
		objects:  map[string][]fakeObj{"flunders": {{name: "f1"}, {name: "f2"}}, "configmaps": {{name: "cm1"}}, "services": {{name: "s1"}}},
		failOnce: map[string]string{"flunders": "object *v1beta1.FlunderList does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message"}}
	c := newTestNSController(f)
	_, err := c.sync(context.Background(), "ns-ok")
	if err == nil {
		t.Fatal("first sync: want an error (content failure)")
	}
	if got, want := conditionLines(f.ns.Status.Conditions), capturedConditions(t, "2-ok-events.txt", 3); !slices.Equal(got, want) {
		t.Fatalf("after the 406:\n got %q\nwant %q", got, want)
	}
	if f.finalized {
		t.Fatal("finalized although content deletion failed")
	}
	if _, err := c.sync(context.Background(), "ns-ok"); err != nil {
		t.Fatal(err)
	}
	if got, want := conditionLines(f.ns.Status.Conditions), capturedConditions(t, "2-ok-events.txt", 4); !slices.Equal(got, want) {
		t.Fatalf("after the retry:\n got %q\nwant %q", got, want)
	}
	if !f.finalized || len(f.ns.Spec.Finalizers) != 0 {
		t.Fatalf("finalize: %v, spec.finalizers %q", f.finalized, f.ns.Spec.Finalizers)
	}
	for res, objs := range f.objects {
		if len(objs) != 0 {
			t.Errorf("%s left: %v", res, objs)
		}
	}
	// deletecollection where discovery lists it, never for services
	// (list, then delete each); only the preferred version v1beta1.
	want := []string{
		"DELETE /apis/wardle.example.com/v1beta1/namespaces/ns-ok/flunders",
		"GET /apis/wardle.example.com/v1beta1/namespaces/ns-ok/flunders",
		"DELETE /api/v1/namespaces/ns-ok/configmaps",
		"GET /api/v1/namespaces/ns-ok/services",
		"DELETE /api/v1/namespaces/ns-ok/services/s1",
	}
	for _, w := range want {
		if !slices.Contains(f.requests, w) {
			t.Errorf("no request %q in %q", w, f.requests)
		}
	}
	for _, r := range f.requests {
		if strings.Contains(r, "v1alpha1") || strings.Contains(r, "/flunders/") {
			t.Errorf("unexpected request %q", r)
		}
	}
	for _, u := range f.users {
		if u != NamespaceControllerUser {
			t.Fatalf("request sent as %q", u)
		}
	}
}

// TestNamespaceControllerDiscoveryFailure replays capture 3
// (3-stuck-events.txt event 3): with wardle's versions Stale the
// condition names both group/versions, the ConfigMap is deleted anyway and
// the namespace keeps its finalizer.
func TestNamespaceControllerDiscoveryFailure(t *testing.T) {
	f := &fakeNSAPI{ns: terminatingNS("ns-stuck"), stale: true,
		objects: map[string][]fakeObj{"flunders": {{name: "f1"}}, "configmaps": {{name: "cm1"}}}}
	c := newTestNSController(f)
	_, err := c.sync(context.Background(), "ns-stuck")
	if err == nil {
		t.Fatal("want a discovery error")
	}
	if got, want := conditionLines(f.ns.Status.Conditions), capturedConditions(t, "3-stuck-events.txt", 3); !slices.Equal(got, want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
	if f.finalized || len(f.objects["configmaps"]) != 0 || len(f.objects["flunders"]) != 1 {
		t.Fatalf("finalized %v, objects %v", f.finalized, f.objects)
	}
	// A second failing pass writes nothing (conditions unchanged).
	puts := f.statusPuts
	if _, err := c.sync(context.Background(), "ns-stuck"); err == nil {
		t.Fatal("want a discovery error")
	}
	if f.statusPuts != puts {
		t.Fatalf("status written again with unchanged conditions")
	}
	// The backend is back: the next pass finishes, as capture event 5.
	f.stale = false
	if _, err := c.sync(context.Background(), "ns-stuck"); err != nil {
		t.Fatal(err)
	}
	if got, want := conditionLines(f.ns.Status.Conditions), capturedConditions(t, "3-stuck-events.txt", 5); !slices.Equal(got, want) || !f.finalized {
		t.Fatalf("finalized %v\n got %q\nwant %q", f.finalized, got, want)
	}
}

// TestNamespaceControllerFinalizersRemaining replays capture 4
// (4-hold-events.txt events 3 and 4): a ConfigMap held by a finalizer
// keeps the namespace (NamespaceContentRemaining and
// NamespaceFinalizersRemaining True) until the finalizer is removed.
func TestNamespaceControllerFinalizersRemaining(t *testing.T) {
	f := &fakeNSAPI{ns: terminatingNS("hold"),
		objects: map[string][]fakeObj{"configmaps": {{name: "held", finalizers: []string{"example.com/hold"}}}}}
	c := newTestNSController(f)
	after, err := c.sync(context.Background(), "hold")
	if err != nil || after != nsContentRemainingRequeue {
		t.Fatalf("sync: after %v, err %v", after, err)
	}
	if got, want := conditionLines(f.ns.Status.Conditions), capturedConditions(t, "4-hold-events.txt", 3); !slices.Equal(got, want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
	if f.finalized {
		t.Fatal("finalized while content remains")
	}
	f.objects["configmaps"][0].finalizers = nil
	if _, err := c.sync(context.Background(), "hold"); err != nil {
		t.Fatal(err)
	}
	if got, want := conditionLines(f.ns.Status.Conditions), capturedConditions(t, "4-hold-events.txt", 4); !slices.Equal(got, want) || !f.finalized {
		t.Fatalf("finalized %v\n got %q\nwant %q", f.finalized, got, want)
	}
}

// TestNamespaceConditionsKeepTransitionTime checks that an unchanged
// condition keeps its lastTransitionTime, as upstream's
// namespaceConditionUpdater.Update, and that the GroupVersion parsing and
// several content errors format as upstream's aggregate.
func TestNamespaceConditionsKeepTransitionTime(t *testing.T) {
	t0, t1 := meta.NewTime(time.Unix(100, 0)), meta.NewTime(time.Unix(200, 0))
	old, _ := mergeNamespaceConditions(nil, nil, t0)
	got, changed := mergeNamespaceConditions(old, []core.NamespaceCondition{{Type: NamespaceContentRemaining, Status: "True", Reason: "SomeResourcesRemain", Message: "m", LastTransitionTime: t1}}, t1)
	if !changed {
		t.Fatal("not changed")
	}
	for _, c := range got {
		want := t0
		if c.Type == NamespaceContentRemaining {
			want = t1
		}
		if !c.LastTransitionTime.Equal(want.Time) {
			t.Errorf("%s: lastTransitionTime %v, want %v", c.Type, c.LastTransitionTime, want)
		}
	}
	if _, changed := mergeNamespaceConditions(got, []core.NamespaceCondition{{Type: NamespaceContentRemaining, Status: "True", Reason: "SomeResourcesRemain", Message: "m"}}, t1); changed {
		t.Error("changed with the same conditions")
	}
	errs := []error{fmt.Errorf("a"), fmt.Errorf("b"), fmt.Errorf("a")}
	if got := aggregateMessage(errorTexts(errs)); got != "[a, b]" {
		t.Errorf("aggregate: %q", got)
	}
	if got := aggregateMessage(errorTexts(errs[:1])); got != "a" {
		t.Errorf("aggregate of one: %q", got)
	}
}

// TestControllersFlag checks --controllers as kube-controller-manager
// reads it.
func TestControllersFlag(t *testing.T) {
	for _, c := range []struct {
		list []string
		want bool
	}{{nil, true}, {[]string{"*"}, true}, {[]string{"*", "-namespace"}, false}, {[]string{"-namespace"}, false}, {[]string{"namespace"}, true}, {[]string{"-namespace", "*"}, false},
		// kube-controller-manager 1.33's canonical name; "namespace" is its alias.
		{[]string{"*", "-namespace-controller"}, false}, {[]string{"namespace-controller"}, true}, {[]string{"-namespace-controller", "namespace"}, false}} {
		if got := ControllerEnabled("namespace-controller", c.list); got != c.want {
			t.Errorf("%q: %v, want %v", c.list, got, c.want)
		}
	}
	// kube-controller-manager 1.33.13's answers (controller-manager
	// options/generic.go Validate, errors joined by apimachinery's aggregate):
	// the name is quoted without its "-", several are "[a, b]", a repeated
	// message is printed once; the canonical name and its alias are known.
	for _, c := range []struct {
		list []string
		want string
	}{
		{[]string{"*", "-namespace", "bogus"}, `"bogus" is not in the list of known controllers`},
		{[]string{"-foo"}, `"foo" is not in the list of known controllers`},
		{[]string{"bogus", "-foo"}, `["bogus" is not in the list of known controllers, "foo" is not in the list of known controllers]`},
		{[]string{"foo", "-foo"}, `"foo" is not in the list of known controllers`},
		{[]string{"*", "namespace-controller", "-namespace-controller", "namespace", "-namespace"}, ``},
	} {
		err := ValidateControllers(c.list)
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || (err != nil && got != c.want) {
			t.Errorf("ValidateControllers(%q) = %v, want %q", c.list, err, c.want)
		}
	}
}

// TestNSQueueBackoff checks the back-off: a failing item waits 5 ms, 10
// ms, ... capped at nsRetryMax; success forgets the failures.
func TestNSQueueBackoff(t *testing.T) {
	q := newNSQueue()
	defer q.shutdown()
	q.add("a", 0)
	for i := range 10 {
		n, ok := q.get()
		if !ok || n != "a" {
			t.Fatalf("get: %q %v", n, ok)
		}
		q.done("a", -1)
		q.mu.Lock()
		wait := time.Until(q.due["a"])
		q.mu.Unlock()
		want := min(nsRetryBase<<i, nsRetryMax)
		if wait > want || wait < want-50*time.Millisecond {
			t.Fatalf("failure %d: next try in %v, want about %v", i+1, wait, want)
		}
		q.mu.Lock()
		q.due["a"] = time.Now()
		q.mu.Unlock()
	}
	n, _ := q.get()
	q.done(n, 0)
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.failures) != 0 || len(q.due) != 0 {
		t.Fatalf("after success: failures %v due %v", q.failures, q.due)
	}
}

// TestNamespaceAdvice checks what explain namespace advises for content
// held by finalizers, a controller that is off, and a namespace with
// nothing left.
func TestNamespaceAdvice(t *testing.T) {
	ts := meta.NewTime(time.Unix(100, 0))
	e := &NamespaceExplanation{Name: "hold", DeletionTimestamp: &ts, ControllerEnabled: true, SpecFinalizers: []string{"kubernetes"},
		Content: []NamespaceContent{{Resource: "configmaps.", Count: 1, Finalizers: map[string]int{"example.com/hold": 1}}}}
	want := []string{`configmaps.: 1 objects wait for finalizers example.com/hold (1): the controllers owning them must finish, or remove the finalizers (kubectl patch --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]')`}
	if got := namespaceAdvice(e); !slices.Equal(got, want) {
		t.Errorf("finalizers:\n got %q\nwant %q", got, want)
	}
	e.Content, e.ControllerEnabled = nil, false
	if got := namespaceAdvice(e); len(got) != 1 || !strings.HasPrefix(got[0], "the namespace controller is off (--controllers without namespace)") || !strings.HasSuffix(got[0], "PUT /api/v1/namespaces/hold/finalize with spec.finalizers emptied") {
		t.Errorf("controller off: %q", got)
	}
	e.ControllerEnabled = true
	if got := namespaceAdvice(e); !slices.Equal(got, []string{"nothing blocks it: the namespace controller finishes at its next pass"}) {
		t.Errorf("nothing left: %q", got)
	}
	e.DeletionTimestamp = nil
	if got := namespaceAdvice(e); !slices.Equal(got, []string{"the namespace is Active: nothing to unblock"}) {
		t.Errorf("active: %q", got)
	}
}
