package aggregator

import (
	"context"
	"slices"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// Well-known user and group names (k8s.io/apiserver/pkg/authentication/user/user.go).
const (
	// UserAnonymous is the name given to requests without credentials.
	UserAnonymous = "system:anonymous"
	// GroupAuthenticated is added to every authenticated, non-anonymous user.
	GroupAuthenticated = "system:authenticated"
	// GroupUnauthenticated is the group of the anonymous user.
	GroupUnauthenticated = "system:unauthenticated"
	// GroupMasters is the privileged group (kubeadm's admin cert has O=system:masters).
	GroupMasters = "system:masters"
	// ExtraCredentialID is the extra key naming the credential that
	// authenticated a user, e.g. `X509SHA256=<hex>` for client certificates.
	ExtraCredentialID = "authentication.kubernetes.io/credential-id"
)

// Decision is an authorizer's verdict, mirroring authorizer.Decision
// (k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go); the numeric
// values match upstream's.
type Decision int

const (
	// DecisionDeny refuses the request.
	DecisionDeny Decision = iota
	// DecisionAllow lets the request through.
	DecisionAllow
	// DecisionNoOpinion neither allows nor refuses; the filter treats it as a
	// refusal when it is the final answer.
	DecisionNoOpinion
)

// String returns "Deny", "Allow" or "NoOpinion".
func (d Decision) String() string {
	switch d {
	case DecisionDeny:
		return "Deny"
	case DecisionAllow:
		return "Allow"
	case DecisionNoOpinion:
		return "NoOpinion"
	}
	return "Unknown"
}

// Attributes describes one request (or one impersonation step) to an
// Authorizer, mirroring authorizer.AttributesRecord. For non-resource requests
// only User, Verb and Path are set.
type Attributes struct {
	User            *authentication.UserInfo
	Verb            string
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	Path            string
	ResourceRequest bool
}

// Authorizer decides whether a user may do what Attributes describes. The
// reason is appended to the 403 message when non-empty; an error with a
// non-Allow decision answers 500 (mirrors authorizer.Authorizer).
// Implementations are called concurrently and must be safe for that.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Decision, string, error)
}

// AuthorizerFunc adapts a function to Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// AlwaysAllow allows every request, like --authorization-mode=AlwaysAllow
// (k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go). It is
// aggsim's default.
type AlwaysAllow struct{}

// Authorize returns DecisionAllow.
func (AlwaysAllow) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionAllow, "", nil
}

// AlwaysDeny refuses every request with upstream's reason
// "Everything is forbidden." (authorizerfactory/builtin.go, which answers
// NoOpinion).
type AlwaysDeny struct{}

// Authorize returns DecisionNoOpinion and "Everything is forbidden.".
func (AlwaysDeny) Authorize(context.Context, Attributes) (Decision, string, error) {
	return DecisionNoOpinion, "Everything is forbidden.", nil
}

// SystemMastersAuthorizer allows every request of a member of
// system:masters and hands everything else to Delegate, as kube-apiserver
// puts its privileged-group authorizer ahead of whatever
// --authorization-mode names (kubernetes pkg/kubeapiserver/authorizer/
// config.go). So with AlwaysDeny the admin still reaches /readyz and the
// API, and only other users are refused.
type SystemMastersAuthorizer struct {
	// Delegate decides for everyone outside system:masters; nil means
	// AlwaysAllow.
	Delegate Authorizer
}

// Authorize allows members of system:masters and asks Delegate otherwise.
func (a SystemMastersAuthorizer) Authorize(ctx context.Context, attrs Attributes) (Decision, string, error) {
	if attrs.User != nil && slices.Contains(attrs.User.Groups, GroupMasters) {
		return DecisionAllow, "", nil
	}
	if a.Delegate == nil {
		return DecisionAllow, "", nil
	}
	return a.Delegate.Authorize(ctx, attrs)
}

// ImpersonationAuthorizer restricts the verb "impersonate" to members of
// ImpersonatorGroups and hands every other decision to Delegate. It stands in
// for the RBAC rule that, in a fresh cluster, only system:masters may
// impersonate.
type ImpersonationAuthorizer struct {
	// ImpersonatorGroups are the groups allowed to impersonate. nil means
	// [system:masters]; an empty non-nil slice lets Delegate decide alone.
	ImpersonatorGroups []string
	// Delegate decides everything else; nil means AlwaysAllow.
	Delegate Authorizer
}

// Authorize allows "impersonate" for members of ImpersonatorGroups and denies
// it (with no reason, as RBAC does) for everyone else.
func (a ImpersonationAuthorizer) Authorize(ctx context.Context, attrs Attributes) (Decision, string, error) {
	groups := a.ImpersonatorGroups
	if groups == nil {
		groups = []string{GroupMasters}
	}
	if attrs.Verb == "impersonate" && len(groups) > 0 {
		if attrs.User != nil && slices.ContainsFunc(attrs.User.Groups, func(g string) bool { return slices.Contains(groups, g) }) {
			return DecisionAllow, "", nil
		}
		return DecisionDeny, "", nil
	}
	if a.Delegate == nil {
		return DecisionAllow, "", nil
	}
	return a.Delegate.Authorize(ctx, attrs)
}

var (
	_ Authorizer = AlwaysAllow{}
	_ Authorizer = AlwaysDeny{}
	_ Authorizer = ImpersonationAuthorizer{}
	_ Authorizer = AuthorizerFunc(nil)
)
