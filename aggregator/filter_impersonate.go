package aggregator

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/negotiation"
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
			negotiation.WriteStatus(w, r, forbiddenStatus(attrs, reason))
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
