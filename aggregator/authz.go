package aggregator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
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

// Impersonation request headers (k8s.io/api/authentication/v1/types.go).
const (
	HeaderImpersonateUser        = "Impersonate-User"
	HeaderImpersonateGroup       = "Impersonate-Group"
	HeaderImpersonateUID         = "Impersonate-Uid"
	HeaderImpersonateExtraPrefix = "Impersonate-Extra-"
)

// impersonationRequest is one thing the caller asks to act as; fields follow
// the v1.ObjectReference upstream builds, so the 500 message for a group
// without a user prints the same `{Group  devs    }` shape.
type impersonationRequest struct {
	kind, namespace, name, apiVersion, fieldPath string
}

// String prints r as fmt prints upstream's ObjectReference, for messages.
func (r impersonationRequest) String() string {
	// ObjectReference fields: Kind Namespace Name UID APIVersion ResourceVersion FieldPath.
	return "{" + r.kind + " " + r.namespace + " " + r.name + " " + "" + " " + r.apiVersion + " " + "" + " " + r.fieldPath + "}"
}

const serviceAccountUsernamePrefix = "system:serviceaccount:"

// splitServiceAccount parses `system:serviceaccount:<ns>:<name>`.
func splitServiceAccount(username string) (ns, name string, ok bool) {
	rest, found := strings.CutPrefix(username, serviceAccountUsernamePrefix)
	if !found {
		return "", "", false
	}
	ns, name, found = strings.Cut(rest, ":")
	if !found || ns == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return ns, name, true
}

// buildImpersonationRequests reads the Impersonate-* headers in upstream's
// order: user, groups, extras, uid.
func buildImpersonationRequests(h http.Header) ([]impersonationRequest, error) {
	var reqs []impersonationRequest
	user := h.Get(HeaderImpersonateUser)
	hasUser := user != ""
	if hasUser {
		if ns, name, ok := splitServiceAccount(user); ok {
			reqs = append(reqs, impersonationRequest{kind: "ServiceAccount", namespace: ns, name: name})
		} else {
			reqs = append(reqs, impersonationRequest{kind: "User", name: user})
		}
	}
	hasGroups := false
	for _, g := range h[HeaderImpersonateGroup] {
		hasGroups = true
		reqs = append(reqs, impersonationRequest{kind: "Group", name: g})
	}
	hasExtra := false
	for name, values := range h {
		if !strings.HasPrefix(name, HeaderImpersonateExtraPrefix) {
			continue
		}
		hasExtra = true
		key := unescapeExtraKey(strings.ToLower(name[len(HeaderImpersonateExtraPrefix):]))
		for _, v := range values {
			reqs = append(reqs, impersonationRequest{kind: "UserExtra", name: v, apiVersion: "authentication.k8s.io/v1", fieldPath: key})
		}
	}
	uid := h.Get(HeaderImpersonateUID)
	hasUID := uid != ""
	if hasUID {
		reqs = append(reqs, impersonationRequest{kind: "UID", name: uid, apiVersion: "authentication.k8s.io/v1"})
	}
	if (hasGroups || hasExtra || hasUID) && !hasUser {
		parts := make([]string, len(reqs))
		for i, r := range reqs {
			parts[i] = r.String()
		}
		return nil, fmt.Errorf("requested [%s] without impersonating a user", strings.Join(parts, " "))
	}
	return reqs, nil
}

// WithImpersonation applies Impersonate-User, Impersonate-Group (repeatable),
// Impersonate-Uid and Impersonate-Extra-<key> (key lower-cased and
// %-unescaped), mirroring apiserver/pkg/endpoints/filters/impersonation.go.
// Each requested item is authorized with verb "impersonate" on users,
// groups, serviceaccounts (core group), or uids / userextras (group
// authentication.k8s.io, the extra key as subresource); the first refusal
// answers 403 with upstream's message, e.g.
// `users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope`.
// The new user has exactly the requested groups (a service account without
// groups gets system:serviceaccounts and system:serviceaccounts:<ns>), plus
// system:authenticated unless it is already there, system:unauthenticated
// is, or the user is system:anonymous (who gets system:unauthenticated); the
// caller's extra is not kept. Impersonate-* headers are removed afterwards.
// Groups, extra or uid without Impersonate-User answer 500 text as upstream.
func WithImpersonation(h http.Handler, a Authorizer, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r, ok := impersonateRequest(w, r, a, logger); ok {
			h.ServeHTTP(w, r)
		}
	})
}

// impersonateRequest is the impersonation step of the chain (and of
// WithImpersonation): it returns r, or r as the impersonated user, or
// false when it has answered a refusal.
func impersonateRequest(w http.ResponseWriter, r *http.Request, a Authorizer, logger *slog.Logger) (*http.Request, bool) {
	if !asksImpersonation(r.Header) {
		return r, true
	}
	reqs, err := buildImpersonationRequests(r.Header)
	if err != nil {
		logger.Debug("impersonation", "err", err)
		internalError(w, r, err)
		return r, false
	}
	if len(reqs) == 0 {
		return r, true
	}
	return impersonateAs(w, r, reqs, a, logger)
}

// impersonatePrefix starts the canonical names of the fields
// buildImpersonationRequests reads.
const impersonatePrefix = "Impersonate-"

// asksImpersonation reports whether h has an Impersonate-* field (the
// canonical names buildImpersonationRequests reads).
func asksImpersonation(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(k, impersonatePrefix) {
			return true
		}
	}
	return false
}

// impersonateAs authorizes and applies reqs (kept out of impersonateRequest so the
// common no-impersonation path has a small stack frame).
func impersonateAs(w http.ResponseWriter, r *http.Request, reqs []impersonationRequest, a Authorizer, logger *slog.Logger) (*http.Request, bool) {
	ctx := r.Context()
	requestor, ok := request.UserFrom(ctx)
	if !ok {
		internalError(w, r, errors.New("no user found for request"))
		return r, false
	}
	groupsSpecified := len(r.Header[HeaderImpersonateGroup]) > 0
	username, uid := "", ""
	groups := []string{}
	extra := map[string][]string{}
	for _, ir := range reqs {
		attrs := Attributes{User: requestor, Verb: "impersonate", Namespace: ir.namespace, Name: ir.name, ResourceRequest: true}
		switch ir.kind {
		case "ServiceAccount":
			attrs.Resource = "serviceaccounts"
			username = serviceAccountUsernamePrefix + ir.namespace + ":" + ir.name
			if !groupsSpecified {
				groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ir.namespace}
			}
		case "User":
			attrs.Resource = "users"
			username = ir.name
		case "Group":
			attrs.Resource = "groups"
			groups = append(groups, ir.name)
		case "UserExtra":
			attrs.APIGroup, attrs.APIVersion = "authentication.k8s.io", "v1"
			attrs.Resource, attrs.Subresource = "userextras", ir.fieldPath
			extra[ir.fieldPath] = append(extra[ir.fieldPath], ir.name)
		case "UID":
			attrs.APIGroup, attrs.APIVersion = "authentication.k8s.io", "v1"
			attrs.Resource = "uids"
			uid = ir.name
		}
		decision, reason, err := a.Authorize(ctx, attrs)
		if err != nil || decision != DecisionAllow {
			logger.Debug("impersonation forbidden", "user", requestor.Username, "resource", attrs.Resource, "name", attrs.Name, "reason", reason, "err", err)
			writeForbidden(w, r, attrs, reason)
			return r, false
		}
	}
	if username != UserAnonymous {
		add := true
		for _, g := range groups {
			if g == GroupAuthenticated || g == GroupUnauthenticated {
				add = false
				break
			}
		}
		if add {
			groups = append(groups, GroupAuthenticated)
		}
	} else {
		add := true
		for _, g := range groups {
			if g == GroupUnauthenticated {
				add = false
				break
			}
		}
		if add {
			groups = append(groups, GroupUnauthenticated)
		}
	}
	nu := &authentication.UserInfo{Username: username, UID: uid, Groups: groups, Extra: extra}
	logger.Debug("impersonating", "user", requestor.Username, "as", username, "groups", groups)
	r.Header.Del(HeaderImpersonateUser)
	r.Header.Del(HeaderImpersonateGroup)
	r.Header.Del(HeaderImpersonateUID)
	for name := range r.Header {
		if strings.HasPrefix(name, HeaderImpersonateExtraPrefix) {
			delete(r.Header, name)
		}
	}
	ctx = request.WithUser(ctx, nu)
	noteUser(ctx, nu, true)
	return r.WithContext(ctx), true
}

// internalError answers like upstream's responsewriters.InternalError: 500
// text/plain `Internal Server Error: "<request URI>": <err>` with &, <, >
// HTML-escaped.
func internalError(w http.ResponseWriter, r *http.Request, err error) {
	msg := fmt.Sprintf("Internal Server Error: %q: %v", r.RequestURI, err)
	msg = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(msg)
	http.Error(w, msg, http.StatusInternalServerError)
}

// attributesOf returns the authorization attributes of request ri for u.
func attributesOf(ri *request.RequestInfo, u *authentication.UserInfo) Attributes {
	return Attributes{
		User: u, Verb: ri.Verb, Namespace: ri.Namespace, APIGroup: ri.APIGroup, APIVersion: ri.APIVersion,
		Resource: ri.Resource, Subresource: ri.Subresource, Name: ri.Name, Path: ri.Path,
		ResourceRequest: ri.IsResourceRequest,
	}
}

// WithRequestInfo parses every request with NewRequestInfo and attaches the
// result to its context (apiserver/pkg/endpoints/filters/requestinfo.go). A
// parse error answers 500 text
// `Internal Server Error: "<uri>": failed to create RequestInfo: <err>`.
func WithRequestInfo(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri, err := request.NewRequestInfo(r)
		if err != nil {
			internalError(w, r, fmt.Errorf("failed to create RequestInfo: %w", err))
			return
		}
		h.ServeHTTP(w, r.WithContext(request.WithRequestInfoContext(r.Context(), ri)))
	})
}

// forbiddenMessage is upstream's responsewriters.forbiddenMessage.
func forbiddenMessage(a Attributes) string {
	username := ""
	if a.User != nil {
		username = a.User.Username
	}
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", username, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", username, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", username, a.Verb, resource, a.APIGroup)
}

// writeForbidden answers the 403 of the impersonation and authorization
// steps as upstream's responsewriters.Forbidden does: the Status of
// forbiddenStatus, with X-Content-Type-Options: nosniff (which no other
// Status answer carries).
func writeForbidden(w http.ResponseWriter, r *http.Request, a Attributes, reason string) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	negotiation.WriteStatus(w, r, forbiddenStatus(a, reason))
}

// forbiddenStatus mirrors responsewriters.Forbidden + apierrors.NewForbidden:
// 403 `<resource>.<group> "<name>" is forbidden: <message>[: <reason>]`, or
// `forbidden: ...` for non-resource requests, details {name, group, kind}.
func forbiddenStatus(a Attributes, reason string) *meta.StatusError {
	msg := forbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	gr := meta.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	var full string
	switch {
	case gr.Group == "" && gr.Resource == "":
		full = "forbidden: " + msg
	case a.Name == "":
		full = fmt.Sprintf("%s is forbidden: %s", gr, msg)
	default:
		full = fmt.Sprintf("%s %q is forbidden: %s", gr, a.Name, msg)
	}
	se := meta.NewStatusError(http.StatusForbidden, meta.StatusReasonForbidden, full)
	se.Status.Details = &meta.StatusDetails{Name: a.Name, Group: a.APIGroup, Kind: a.Resource}
	return se
}

// WithAuthorization asks a about every request (user from the context,
// attributes from RequestInfo) and answers 403 Status unless it allows, as
// apiserver/pkg/endpoints/filters/authorization.go does: an error without
// Allow answers 500 text; the decision is logged at debug level. Requests
// without a user or RequestInfo in the context answer 500 text.
func WithAuthorization(h http.Handler, a Authorizer, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri, ok := request.RequestInfoFrom(r.Context())
		if !ok {
			internalError(w, r, fmt.Errorf("no RequestInfo found in the context"))
			return
		}
		if authorizeRequest(w, r, ri, a, logger, nil) {
			h.ServeHTTP(w, r)
		}
	})
}

// authorizeRequest is the authorization step of the chain (and of
// WithAuthorization): true when a allows r; otherwise it has answered.
func authorizeRequest(w http.ResponseWriter, r *http.Request, ri *request.RequestInfo, a Authorizer, logger *slog.Logger, note *InspectedAuthorization) bool {
	ctx := r.Context()
	u, ok := request.UserFrom(ctx)
	if !ok {
		internalError(w, r, fmt.Errorf("no user found for request"))
		return false
	}
	attrs := attributesOf(ri, u)
	decision, reason, err := a.Authorize(ctx, attrs)
	if logger.Enabled(ctx, slog.LevelDebug) { // the arguments allocate; skip them when not logged
		logger.Debug("authorization", "user", u.Username, "verb", attrs.Verb, "resource", attrs.Resource,
			"namespace", attrs.Namespace, "name", attrs.Name, "path", attrs.Path, "decision", decision.String(), "reason", reason)
	}
	if note != nil { // the inspector records (inspector.go)
		note.Decision, note.Reason = decision.String(), reason
		if err != nil && reason == "" {
			note.Reason = err.Error()
		}
	}
	if decision == DecisionAllow {
		return true
	}
	if err != nil {
		internalError(w, r, err)
		return false
	}
	writeForbidden(w, r, attrs, reason)
	return false
}

// Authorization modes of --authorization-mode (kube-apiserver's names,
// pkg/kubeapiserver/authorizer/modes).
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeRBAC        = "RBAC"
)

// ParseAuthorizationModes splits kube-apiserver's comma-separated
// --authorization-mode list ("" means AlwaysAllow). Errors: an unknown
// mode, or one named twice.
func ParseAuthorizationModes(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return []string{ModeAlwaysAllow}, nil
	}
	var modes []string
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case ModeAlwaysAllow, ModeAlwaysDeny, ModeRBAC:
		default:
			return nil, fmt.Errorf("aggregator: unknown authorization mode %q (want a comma list of RBAC, AlwaysAllow, AlwaysDeny)", m)
		}
		if slices.Contains(modes, m) {
			return nil, fmt.Errorf("aggregator: authorization-mode %q has mode specified more than once", list)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// authorizerFor builds the authorizer of modes: AlwaysAllow alone is
// AlwaysAllow; otherwise system:masters is allowed first (kube-apiserver's
// privileged-group authorizer), then the modes are asked in order
// (UnionAuthorizer). rbac is the RBAC authorizer when modes name RBAC.
func authorizerFor(modes []string, rbac *RBACAuthorizer) Authorizer {
	if len(modes) == 1 && modes[0] == ModeAlwaysAllow {
		return AlwaysAllow{}
	}
	var chain UnionAuthorizer
	for _, m := range modes {
		switch m {
		case ModeAlwaysAllow:
			chain = append(chain, AlwaysAllow{})
		case ModeAlwaysDeny:
			chain = append(chain, AlwaysDeny{})
		case ModeRBAC:
			chain = append(chain, rbac)
		}
	}
	if len(chain) == 1 {
		return SystemMastersAuthorizer{Delegate: chain[0]}
	}
	return SystemMastersAuthorizer{Delegate: chain}
}

// UnionAuthorizer asks its authorizers in order: the first Allow or Deny
// is the answer (with its reason and error); when all have no opinion,
// the answer is NoOpinion with their non-empty reasons joined by newlines
// and their errors joined, as upstream's union authorizer
// (k8s.io/apiserver/pkg/authorization/union).
type UnionAuthorizer []Authorizer

// Authorize returns the first decision other than NoOpinion.
func (u UnionAuthorizer) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var reasons []string
	var errs []error
	for _, z := range u {
		d, reason, err := z.Authorize(ctx, a)
		if d == DecisionAllow || d == DecisionDeny {
			return d, reason, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	return DecisionNoOpinion, strings.Join(reasons, "\n"), errors.Join(errs...)
}

var _ Authorizer = UnionAuthorizer(nil)
