package aggregator

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// recordOne records one finished request of user name through in, as the
// chain does, with Impersonate-User asking to run as runAs.
func recordOne(in *Inspector, name, runAs, decision string) {
	r := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/flunders", nil)
	r.Header = http.Header{"Accept": {"application/json"}, "Impersonate-User": {runAs}}
	ri := &request.RequestInfo{Verb: "list", APIGroup: "wardle.example.com", APIVersion: "v1alpha1"}
	st := &requestState{Context: r.Context(), start: time.Now()}
	st.rec.id = name + "-id"
	in.begin(st, r, ri, false)
	st.insp.authenticated(r, &authentication.UserInfo{Username: name, Groups: []string{"g-" + name}})
	ctx := request.WithUser(r.Context(), &authentication.UserInfo{Username: runAs})
	st.insp.impersonated(r.WithContext(ctx)).Decision = decision
	st.insp.stage = ""
	st.completed = true
	in.finish(st, r)
}

// TestInspectorRecycledRecordsKeepViews checks that the records the ring
// drops and the Inspector reuses do not change what was read from them
// before: views taken from Requests and by a subscriber keep their users,
// impersonation and authorization while later requests reuse the records.
func TestInspectorRecycledRecordsKeepViews(t *testing.T) {
	in := NewInspector(2, nil)
	sub, stop := in.Subscribe()
	defer stop()
	recordOne(in, "alice", "carol", "Allow")
	recordOne(in, "bob", "dave", "Deny")
	before := in.Requests(RequestFilter{})
	fromSub := <-sub
	want := []string{"alice", "carol", "Allow", "bob", "dave", "Deny"}
	got := func() []string {
		var out []string
		for _, r := range before {
			out = append(out, r.Authentication.User.Username, r.Impersonation.User.Username, r.Authorization.Decision)
		}
		return out
	}
	if g := got(); !reflect.DeepEqual(g, want) {
		t.Fatalf("views %v, want %v", g, want)
	}
	for i := range 6 { // every record dropped and reused three times
		recordOne(in, "eve", "mallory", []string{"Allow", "Deny"}[i%2])
	}
	if g := got(); !reflect.DeepEqual(g, want) {
		t.Errorf("views after the ring reused their records: %v, want %v", g, want)
	}
	if u := fromSub.Authentication.User.Username; u != "alice" || fromSub.AuditID != "alice-id" || fromSub.Impersonation.User.Username != "carol" {
		t.Errorf("subscriber's view after reuse: user %q, audit id %q, runs as %q", u, fromSub.AuditID, fromSub.Impersonation.User.Username)
	}
	after := in.Requests(RequestFilter{})
	if len(after) != 2 || after[1].Authentication.User.Username != "eve" || after[1].Authorization.Decision != "Deny" ||
		after[1].Impersonation.User.Username != "mallory" || after[1].Client.Header.Get("Impersonate-User") != "mallory" {
		t.Errorf("latest records: %+v", after)
	}
}

// TestInspectorRecycleWhileViewing runs Requests and recording side by
// side (for the race detector): no record is reused while a Requests
// call builds views from it.
func TestInspectorRecycleWhileViewing(t *testing.T) {
	in := NewInspector(4, nil)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 300 {
			recordOne(in, "alice", "carol", "Allow")
		}
	}()
	go func() {
		defer wg.Done()
		for range 100 {
			for _, r := range in.Requests(RequestFilter{}) {
				if r.Authentication.User.Username != "alice" || r.Impersonation.User.Username != "carol" || r.Client.Header.Get("Accept") != "application/json" {
					t.Errorf("view %+v", r)
					return
				}
			}
		}
	}()
	wg.Wait()
}
