package aggregator

import (
	"context"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// TestSystemMastersAuthorizer: members of system:masters are allowed before
// the configured mode decides, as kube-apiserver's privileged-group
// authorizer does; everyone else gets the mode's decision and reason.
func TestSystemMastersAuthorizer(t *testing.T) {
	a := SystemMastersAuthorizer{Delegate: AlwaysDeny{}}
	for _, tc := range []struct {
		name       string
		groups     []string
		want       Decision
		wantReason string
	}{
		{"admin", []string{"system:masters", "system:authenticated"}, DecisionAllow, ""},
		{"bob", []string{"devs", "system:authenticated"}, DecisionNoOpinion, "Everything is forbidden."},
		{"anonymous", []string{"system:unauthenticated"}, DecisionNoOpinion, "Everything is forbidden."},
	} {
		d, reason, err := a.Authorize(context.Background(), Attributes{User: &authentication.UserInfo{Username: tc.name, Groups: tc.groups}, Verb: "get", Path: "/readyz"})
		if err != nil || d != tc.want || reason != tc.wantReason {
			t.Errorf("%s: %v %q %v; want %v %q", tc.name, d, reason, err, tc.want, tc.wantReason)
		}
	}
}
