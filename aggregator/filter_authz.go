package aggregator

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

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
		if authorizeRequest(w, r, ri, a, logger) {
			h.ServeHTTP(w, r)
		}
	})
}

// authorizeRequest is the authorization step of the chain (and of
// WithAuthorization): true when a allows r; otherwise it has answered.
func authorizeRequest(w http.ResponseWriter, r *http.Request, ri *request.RequestInfo, a Authorizer, logger *slog.Logger) bool {
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
	if decision == DecisionAllow {
		return true
	}
	if err != nil {
		internalError(w, r, err)
		return false
	}
	negotiation.WriteStatus(w, r, forbiddenStatus(attrs, reason))
	return false
}
