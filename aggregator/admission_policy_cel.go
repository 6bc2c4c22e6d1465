package aggregator

import (
	"context"

	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// NamespaceObject gives ValidatingAdmissionPolicies their namespaceObject
// (admission.NamespaceObjectSource) from the server's namespace store.
func (a serverAdmissionSource) NamespaceObject(ctx context.Context, name string) (map[string]any, bool, error) {
	return a.stores().NamespaceObject(ctx, name)
}

// AuthorizeCEL decides one check of admission CEL's authorizer library
// (admission.CELAuthorizer) with the server's authorizer, as upstream
// binds its own authorizer to policies and match conditions.
func (a serverAdmissionSource) AuthorizeCEL(ctx context.Context, c celrules.AuthzCheck) (bool, string, error) {
	u := &authentication.UserInfo{Username: c.User.Name, UID: c.User.UID, Groups: c.User.Groups, Extra: c.User.Extra}
	d, reason, err := a.s.reviews.authz.Authorize(ctx, Attributes{User: u, Verb: c.Verb, Namespace: c.Namespace,
		APIGroup: c.APIGroup, APIVersion: c.APIVersion, Resource: c.Resource, Subresource: c.Subresource, Name: c.Name,
		Path: c.Path, ResourceRequest: c.ResourceRequest})
	return d == DecisionAllow, reason, err
}
