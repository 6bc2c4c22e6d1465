package celrules

import (
	"context"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// AuthzUser is the user an authorizer check is made for: the request's
// user, or the ServiceAccount of authorizer.serviceAccount(ns, name).
type AuthzUser struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// AuthzCheck is one check() of the authorizer library: a resource check
// (ResourceRequest, APIGroup, Resource, Subresource, Namespace, Name,
// FieldSelector, LabelSelector; APIVersion is always "*") or a path check
// (Path), with the verb and user (authorizer.AttributesRecord upstream).
type AuthzCheck struct {
	User                                        AuthzUser
	Verb                                        string
	ResourceRequest                             bool
	APIGroup, APIVersion, Resource, Subresource string
	Namespace, Name                             string
	FieldSelector, LabelSelector                string
	Path                                        string
}

// AuthzFunc decides one check: allowed only for an Allow decision, with
// the authorizer's reason and error (an error is the decision's error()).
type AuthzFunc func(ctx context.Context, c AuthzCheck) (allowed bool, reason string, err error)

// The authorizer library's CEL types (apiserver/pkg/cel/library/authz.go).
var (
	authorizerType    = types.NewObjectType("kubernetes.authorization.Authorizer")
	pathCheckType     = types.NewObjectType("kubernetes.authorization.PathCheck")
	groupCheckType    = types.NewObjectType("kubernetes.authorization.GroupCheck")
	resourceCheckType = types.NewObjectType("kubernetes.authorization.ResourceCheck")
	decisionType      = types.NewObjectType("kubernetes.authorization.Decision")
)

// AuthorizerType is the CEL type of the authorizer variable;
// ResourceCheckType the type of authorizer.requestResource.
var (
	AuthorizerType    = authorizerType
	ResourceCheckType = resourceCheckType
)

// AuthzCheckCost is the estimated and runtime cost of one check() (the
// authorizer library's cost upstream: two checks fit in PerCallLimit,
// three do not).
const AuthzCheckCost = 350000

type authzCtx struct {
	ctx context.Context
	fn  AuthzFunc
}

// authzVal is one value of the library: the authorizer (user), a path
// check, a group check or a resource check (check set), or a decision.
type authzVal struct {
	t     *types.Type
	az    *authzCtx
	check AuthzCheck
	// decision
	allowed bool
	reason  string
	err     error
}

func (v *authzVal) ConvertToNative(t reflect.Type) (any, error) {
	return nil, convertErr(v.t.TypeName(), types.NewTypeValue(t.String())).(*types.Err)
}

func (v *authzVal) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return v.t
	}
	return convertErr(v.t.TypeName(), t)
}

func (v *authzVal) Equal(o ref.Val) ref.Val {
	return types.Bool(v == o)
}

func (v *authzVal) Type() ref.Type { return v.t }
func (v *authzVal) Value() any     { return v }

// NewAuthorizerVal is the authorizer variable of a request by user, whose
// checks fn decides.
func NewAuthorizerVal(ctx context.Context, fn AuthzFunc, user AuthzUser) ref.Val {
	return &authzVal{t: authorizerType, az: &authzCtx{ctx, fn}, check: AuthzCheck{User: user}}
}

// NewRequestResourceVal is authorizer.requestResource: a resource check
// of the request's own group, resource, subresource, namespace and name.
func NewRequestResourceVal(ctx context.Context, fn AuthzFunc, user AuthzUser, group, resource, subresource, namespace, name string) ref.Val {
	return &authzVal{t: resourceCheckType, az: &authzCtx{ctx, fn}, check: AuthzCheck{User: user, ResourceRequest: true,
		APIGroup: group, Resource: resource, Subresource: subresource, Namespace: namespace, Name: name}}
}

// ServiceAccountUser is the user of a ServiceAccount: its
// system:serviceaccount:<ns>:<name> name and the groups
// system:serviceaccounts and system:serviceaccounts:<ns> (no
// system:authenticated, as upstream's serviceaccount.UserInfo).
func ServiceAccountUser(namespace, name string) AuthzUser {
	return AuthzUser{Name: "system:serviceaccount:" + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace}}
}

// AuthzLibrary declares the authorizer library (Authz and AuthzSelectors
// of apiserver/pkg/cel/library): path, group, serviceAccount, resource,
// subresource, namespace, name, fieldSelector, labelSelector, check, and a
// decision's allowed, reason, errored and error.
func AuthzLibrary() []cel.EnvOption {
	str := func(t *types.Type, set func(in *authzVal, s string) *authzVal) cel.OverloadOpt {
		return cel.BinaryBinding(func(a, b ref.Val) ref.Val {
			v, ok := a.(*authzVal)
			s, ok2 := b.(types.String)
			if !ok || !ok2 || v.t != t {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return set(v, string(s))
		})
	}
	with := func(v *authzVal, t *types.Type, f func(c *AuthzCheck)) *authzVal {
		out := &authzVal{t: t, az: v.az, check: v.check}
		f(&out.check)
		return out
	}
	check := func(a, b ref.Val) ref.Val {
		v, ok := a.(*authzVal)
		verb, ok2 := b.(types.String)
		if !ok || !ok2 || v.az == nil {
			return types.MaybeNoSuchOverloadErr(a)
		}
		c := v.check
		c.Verb = string(verb)
		if c.ResourceRequest {
			c.APIVersion = "*"
		}
		allowed, reason, err := v.az.fn(v.az.ctx, c)
		return &authzVal{t: decisionType, allowed: allowed, reason: reason, err: err}
	}
	dec := func(f func(d *authzVal) ref.Val) cel.OverloadOpt {
		return cel.UnaryBinding(func(a ref.Val) ref.Val {
			d, ok := a.(*authzVal)
			if !ok || d.t != decisionType {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return f(d)
		})
	}
	S := cel.StringType
	// the ResourceCheck builders that set one field from a string
	setters := []struct {
		name, overload string
		set            func(c *AuthzCheck, s string)
	}{
		{"subresource", "resourcecheck_subresource", func(c *AuthzCheck, s string) { c.Subresource = s }},
		{"namespace", "resourcecheck_namespace", func(c *AuthzCheck, s string) { c.Namespace = s }},
		{"name", "resourcecheck_name", func(c *AuthzCheck, s string) { c.Name = s }},
		{"fieldSelector", "authorizer_fieldselector", func(c *AuthzCheck, s string) { c.FieldSelector = s }},
		{"labelSelector", "authorizer_labelselector", func(c *AuthzCheck, s string) { c.LabelSelector = s }},
	}
	opts := make([]cel.EnvOption, 0, len(setters))
	for _, st := range setters {
		opts = append(opts, cel.Function(st.name, cel.MemberOverload(st.overload, []*cel.Type{resourceCheckType, S}, resourceCheckType,
			str(resourceCheckType, func(v *authzVal, s string) *authzVal {
				return with(v, resourceCheckType, func(c *AuthzCheck) { st.set(c, s) })
			}))))
	}
	return append(opts,
		cel.Function("path", cel.MemberOverload("authorizer_path", []*cel.Type{authorizerType, S}, pathCheckType,
			str(authorizerType, func(v *authzVal, s string) *authzVal {
				return with(v, pathCheckType, func(c *AuthzCheck) { c.Path = s })
			}))),
		cel.Function("group", cel.MemberOverload("authorizer_group", []*cel.Type{authorizerType, S}, groupCheckType,
			str(authorizerType, func(v *authzVal, s string) *authzVal {
				return with(v, groupCheckType, func(c *AuthzCheck) { c.ResourceRequest, c.APIGroup = true, s })
			}))),
		cel.Function("serviceAccount", cel.MemberOverload("authorizer_serviceaccount", []*cel.Type{authorizerType, S, S}, authorizerType,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val {
				v, ok := args[0].(*authzVal)
				ns, ok2 := args[1].(types.String)
				name, ok3 := args[2].(types.String)
				if !ok || !ok2 || !ok3 {
					return types.MaybeNoSuchOverloadErr(args[0])
				}
				return &authzVal{t: authorizerType, az: v.az, check: AuthzCheck{User: ServiceAccountUser(string(ns), string(name))}}
			}))),
		cel.Function("resource", cel.MemberOverload("groupcheck_resource", []*cel.Type{groupCheckType, S}, resourceCheckType,
			str(groupCheckType, func(v *authzVal, s string) *authzVal {
				return with(v, resourceCheckType, func(c *AuthzCheck) { c.Resource = s })
			}))),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*cel.Type{pathCheckType, S}, decisionType, cel.BinaryBinding(check)),
			cel.MemberOverload("resourcecheck_check", []*cel.Type{resourceCheckType, S}, decisionType, cel.BinaryBinding(check))),
		cel.Function("errored", cel.MemberOverload("decision_errored", []*cel.Type{decisionType}, cel.BoolType,
			dec(func(d *authzVal) ref.Val { return types.Bool(d.err != nil) }))),
		cel.Function("error", cel.MemberOverload("decision_error", []*cel.Type{decisionType}, cel.StringType,
			dec(func(d *authzVal) ref.Val {
				if d.err == nil {
					return types.String("")
				}
				return types.String(d.err.Error())
			}))),
		cel.Function("allowed", cel.MemberOverload("decision_allowed", []*cel.Type{decisionType}, cel.BoolType,
			dec(func(d *authzVal) ref.Val { return types.Bool(d.allowed) }))),
		cel.Function("reason", cel.MemberOverload("decision_reason", []*cel.Type{decisionType}, cel.StringType,
			dec(func(d *authzVal) ref.Val { return types.String(d.reason) }))),
	)
}
