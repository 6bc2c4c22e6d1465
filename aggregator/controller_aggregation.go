package aggregator

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/rest"
)

// clusterRoleAggregator keeps the rules of every ClusterRole with an
// aggregationRule equal to the rules of the ClusterRoles its selectors
// pick (rbac.AggregateRules), as kube-controller-manager's
// clusterrole-aggregation controller does: on every ClusterRole change
// all aggregated roles are recomputed, and those whose rules differ are
// applied (server-side apply, field manager
// clusterrole-aggregation-controller, forced), so view, edit and admin
// grant what roles labelled rbac.authorization.k8s.io/aggregate-to-* add
// within moments. Chains (edit aggregated into admin) settle in memory
// before anything is applied (settleAggregatedRules).
type clusterRoleAggregator struct {
	roles  *Informer
	client loopback
	logger *slog.Logger
	kick   chan struct{}
	// leading gates the writes to the replica holding the
	// kube-controller-manager Lease (nil: always).
	leading func() bool
}

// newClusterRoleAggregator registers its handler on roles (before the
// informer runs).
func newClusterRoleAggregator(roles *Informer, client loopback, logger *slog.Logger) *clusterRoleAggregator {
	c := &clusterRoleAggregator{roles: roles, client: client, logger: logger, kick: make(chan struct{}, 1)}
	roles.AddHandler(func(_, _ meta.Object) {
		select {
		case c.kick <- struct{}{}:
		default: // a pass is pending already
		}
	})
	return c
}

// Run recomputes the aggregated ClusterRoles after every change until ctx
// ends.
func (c *clusterRoleAggregator) Run(ctx context.Context) {
	first := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
			if c.leading == nil || c.leading() {
				if first { // in the start lane (start_lane.go)
					inStartLane(ctx, func() { c.sync(ctx) })
					first = false
				} else {
					c.sync(ctx)
				}
			}
		}
	}
}

// kickOnce asks for a pass (this replica just became the leader).
func (c *clusterRoleAggregator) kickOnce() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// sync applies the aggregated rules of every ClusterRole whose rules
// differ from them, once each: the rules chains settle to.
func (c *clusterRoleAggregator) sync(ctx context.Context) {
	var roles []*rbac.ClusterRole
	for _, o := range c.roles.List() {
		if r, ok := o.(*rbac.ClusterRole); ok {
			roles = append(roles, r)
		}
	}
	settled := settleAggregatedRules(roles) // chains settle in memory (controller_aggregation_settle.go)
	for _, r := range roles {
		want, ok := settled[r.Name]
		if !ok {
			continue
		}
		body, _ := json.Marshal(map[string]any{
			"apiVersion": rbac.GroupRBAC + "/v1", "kind": "ClusterRole",
			"metadata": map[string]string{"name": r.Name}, "rules": want,
		})
		// fieldValidation=Ignore: body is encoding/json's encoding of
		// typed rules, with no unknown or duplicate field to look for
		q := url.Values{"fieldManager": {"clusterrole-aggregation-controller"}, "force": {"true"}, "fieldValidation": {"Ignore"}}.Encode()
		// body is encoding/json's: the apply takes it as its JSON form
		if err := c.client.do(rest.WithJSONApplyBody(ctx), "PATCH", "/apis/rbac.authorization.k8s.io/v1/clusterroles/"+url.PathEscape(r.Name), q, "application/apply-patch+yaml", body); err != nil {
			c.logger.Warn("aggregate ClusterRole", "name", r.Name, "err", err)
		}
	}
}
