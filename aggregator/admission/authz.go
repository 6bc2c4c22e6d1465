package admission

import (
	"context"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
)

// CELAuthorizer is what a Source also implements to bind the authorizer
// and authorizer.requestResource variables of admission CEL (policies'
// expressions and webhook matchConditions): one check of the authorizer
// library, decided by the server's authorizer (allowed only on Allow,
// with its reason and error). Without it the variables are unbound and an
// expression using them fails to evaluate.
type CELAuthorizer interface {
	AuthorizeCEL(ctx context.Context, c celrules.AuthzCheck) (allowed bool, reason string, err error)
}

// addAuthorizer binds authorizer and authorizer.requestResource in vars
// for the user of ctx (upstream's admission CEL activation): checks are
// made for that user, or a ServiceAccount's, and requestResource is a's
// own group, resource, subresource, namespace and name.
func (d *Dispatcher) addAuthorizer(ctx context.Context, a *registry.AdmissionAttributes, vars map[string]any) {
	if _, ok := vars["authorizer"]; ok {
		return
	}
	az, ok := d.opts.Source.(CELAuthorizer)
	if !ok {
		return
	}
	var user celrules.AuthzUser
	if u, ok := request.UserFrom(ctx); ok {
		user = celrules.AuthzUser{Name: u.Username, UID: u.UID, Groups: u.Groups, Extra: u.Extra}
	}
	fn := celrules.AuthzFunc(az.AuthorizeCEL)
	vars["authorizer"] = celrules.NewAuthorizerVal(ctx, fn, user)
	vars["authorizer.requestResource"] = celrules.NewRequestResourceVal(ctx, fn, user, a.Info.Group, a.Info.Resource, a.Subresource, a.Namespace, a.Name)
}
