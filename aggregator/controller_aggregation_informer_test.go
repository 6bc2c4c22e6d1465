package aggregator

import (
	"slices"
	"testing"

	"github.com/aggsim/aggsim/registry/storage"
)

// With --authorization-mode=RBAC the ClusterRole aggregation follows the
// authorizer's ClusterRole informer (one list and watch of the
// ClusterRoles, before ready); without RBAC it has its own.
func TestClusterRoleAggregationSharesRBACInformer(t *testing.T) {
	for _, c := range []struct {
		mode   string
		shared bool
	}{{"RBAC", true}, {"AlwaysAllow", false}} {
		s, err := New(Options{Storage: storage.NewMemory(), AuthorizationMode: c.mode})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(s.rbacInformers, s.clusterRoles); got != c.shared || s.clusterRoles == nil || s.aggregator.roles != s.clusterRoles {
			t.Errorf("%s: ClusterRole informer shared with the authorizer: %v, want %v", c.mode, got, c.shared)
		}
	}
}
