package aggregator

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// policyRules returns the rules of every role bound to the user in
// namespace (cluster-wide ones included) and the errors of missing roles,
// as upstream's DefaultRuleResolver.RulesFor.
func (a *RBACAuthorizer) policyRules(username string, groups []string, namespace string) ([]rbac.PolicyRule, []string) {
	var rules []rbac.PolicyRule
	var errs []string
	a.visit(username, groups, namespace, func(_ rbacSource, r []rbac.PolicyRule, err string) bool {
		if err != "" {
			errs = append(errs, err)
		} else {
			rules = append(rules, r...)
		}
		return true
	})
	return rules, errs
}

// roleRefRules returns the rules of ref (in namespace for a Role) or
// upstream's lister error text.
func (a *RBACAuthorizer) roleRefRules(ref rbac.RoleRef, namespace string) ([]rbac.PolicyRule, string) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.roleRules(ref, namespace)
}

// rbacEscalationCheck returns the registry.StoreOptions.Admit of the RBAC
// kinds, upstream's policy-based RBAC storage
// (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased):
// a write without a user (aggsim's own) or by a member of system:masters
// passes; so does a Role or ClusterRole write the user may "escalate"
// (authz), an aggregated ClusterRole (new or old), and a binding whose
// role the user may "bind" (in the binding's namespace). Otherwise the
// user's own RBAC rules in the request's namespace must cover every
// permission the role grants (for a binding, its role's, 404 when that
// role does not exist: `rolebindings.rbac.authorization.k8s.io "<role name>"
// not found`, as upstream's), or the write is refused with 403 `<resource>
// "<name>" is forbidden: user "bob" (groups=[...]) is attempting to grant
// RBAC permissions not currently held:` and the missing permissions
// (rbac.EscalationMessage).
func rbacEscalationCheck(authz Authorizer, r *RBACAuthorizer) func(ctx context.Context, info registry.ResourceInfo, obj, old meta.Object) error {
	return func(ctx context.Context, info registry.ResourceInfo, obj, old meta.Object) error {
		if info.Group != rbac.GroupRBAC {
			return nil
		}
		u, ok := request.UserFrom(ctx)
		if !ok || slices.Contains(u.Groups, GroupMasters) {
			return nil
		}
		m := obj.GetObjectMeta()
		allowed := func(verb, resource, name, ns string) bool {
			d, _, _ := authz.Authorize(ctx, Attributes{User: u, Verb: verb, APIGroup: rbac.GroupRBAC, APIVersion: "v1",
				Resource: resource, Name: name, Namespace: ns, ResourceRequest: true})
			return d == DecisionAllow
		}
		var rules []rbac.PolicyRule
		switch o := obj.(type) {
		case *rbac.Role:
			if allowed("escalate", info.Resource, m.Name, m.Namespace) {
				return nil
			}
			rules = o.Rules
		case *rbac.ClusterRole:
			if allowed("escalate", info.Resource, m.Name, "") || o.AggregationRule != nil {
				return nil
			}
			if oc, ok := old.(*rbac.ClusterRole); ok && oc.AggregationRule != nil {
				return nil
			}
			rules = o.Rules
		case *rbac.RoleBinding, *rbac.ClusterRoleBinding:
			var ref rbac.RoleRef
			if b, ok := o.(*rbac.RoleBinding); ok {
				ref = b.RoleRef
			} else {
				ref = o.(*rbac.ClusterRoleBinding).RoleRef
			}
			resource := "clusterroles"
			if ref.Kind == "Role" {
				resource = "roles"
			}
			if (ref.Kind == "Role" || ref.Kind == "ClusterRole") && allowed("bind", resource, ref.Name, m.Namespace) {
				return nil
			}
			var msg string
			if rules, msg = r.roleRefRules(ref, m.Namespace); msg != "" {
				// upstream answers the lister's NotFound in the binding's
				// resource: rolebindings.rbac.authorization.k8s.io "<role>" not found
				return meta.NewNotFound(info.GroupResource(), ref.Name)
			}
		default:
			return nil
		}
		owner, errs := r.policyRules(u.Username, u.Groups, m.Namespace)
		msg := rbac.EscalationMessage(u.Username, u.Groups, owner, rules, errs)
		if msg == "" {
			return nil
		}
		se := meta.NewStatusError(http.StatusForbidden, meta.StatusReasonForbidden,
			info.GroupResource().String()+" "+strconv.Quote(m.Name)+" is forbidden: "+msg)
		se.Status.Details = &meta.StatusDetails{Name: m.Name, Group: rbac.GroupRBAC, Kind: info.Resource}
		return se
	}
}
