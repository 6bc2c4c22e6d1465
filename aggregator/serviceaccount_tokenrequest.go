package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/core"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/rest"
)

// pathCoreNamespaces prefixes namespaces/<ns>/serviceaccounts/<name>/token.
const pathCoreNamespaces = "/api/v1/namespaces/"

// tokenRequestPath splits /api/v1/namespaces/<ns>/serviceaccounts/<name>/token.
func tokenRequestPath(p string) (namespace, name string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSuffix(p, "/"), pathCoreNamespaces)
	if !found {
		return "", "", false
	}
	segs := strings.Split(rest, "/")
	if len(segs) != 4 || segs[0] == "" || segs[1] != "serviceaccounts" || segs[2] == "" || segs[3] != registry.SubresourceToken {
		return "", "", false
	}
	return segs[0], segs[2], true
}

// tokenRequestInfo describes the TokenRequest kind for decoding.
var tokenRequestInfo = registry.ResourceInfo{
	Group: authentication.GroupAuthentication, Version: "v1", Kind: "TokenRequest",
	Resource: "serviceaccounts", Namespaced: true, NotStored: true,
}

// tokenRequestHandler answers POST serviceaccounts/<name>/token as
// kube-apiserver 1.33's TokenREST (pkg/registry/core/serviceaccount/
// storage/token.go): 201 with the request (its metadata set to the
// ServiceAccount's, creationTimestamp now, audiences defaulted) and
// status {token, expirationTimestamp}.
type tokenRequestHandler struct {
	tokens *serviceAccountTokens
	now    func() time.Time
}

func (h *tokenRequestHandler) ServeHTTP(w http.ResponseWriter, r *http.Request, namespace, name string) {
	f, ok := createOnlyOutput(w, r)
	if !ok {
		return
	}
	out, err := h.create(w, r, namespace, name)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	negotiation.WriteObject(w, f, http.StatusCreated, out)
}

// boundKinds are the kinds a token may be bound to and their resources;
// aggsim serves none of them, so a bound token is refused as upstream
// refuses one for a missing object.
var boundKinds = map[string]string{"Pod": "pods", "Secret": "secrets", "Node": "nodes"}

// create runs upstream's steps in its order: decode and default
// (expirationSeconds 3600), managedFields (subresource token), the name
// and namespace of the body, the ServiceAccount, validation, the bound
// object, the audiences and the maximum lifetime, then the token.
func (h *tokenRequestHandler) create(w http.ResponseWriter, r *http.Request, namespace, name string) (*authentication.TokenRequest, error) {
	var tr authentication.TokenRequest
	if err := rest.DecodeCreate(w, r, tokenRequestInfo, &tr); err != nil {
		return nil, err
	}
	// The create handler's namespace rule comes first: a different
	// metadata.namespace is 400 (captured), an empty one takes the path's.
	if err := ensureNamespace(&tr.ObjectMeta, namespace); err != nil {
		return nil, err
	}
	tr.TypeMeta = meta.TypeMeta{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}
	if tr.Spec.ExpirationSeconds == nil {
		d := int64(tokenDefaultExpirationSeconds)
		tr.Spec.ExpirationSeconds = &d
	}
	now := h.now()
	if err := rest.TrackSubresourceCreate(r, &tr, tr.APIVersion, registry.SubresourceToken, now); err != nil {
		return nil, meta.NewInternalError(err)
	}
	if tr.Name != "" && tr.Name != name {
		return nil, meta.NewInvalid(authentication.GroupAuthentication, "TokenRequest", name,
			meta.FieldErrors{meta.Invalid("metadata.name", tr.Name, "must match the service account name if specified")})
	}
	sa, err := h.tokens.getServiceAccount(r.Context(), namespace, name)
	if err != nil {
		return nil, err
	}
	if errs := validateTokenRequest(&tr); len(errs) > 0 {
		return nil, meta.NewInvalid(authentication.GroupAuthentication, "TokenRequest", tr.Name, errs)
	}
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		resource, ok := boundKinds[ref.Kind]
		if !ok {
			group, version, found := strings.Cut(ref.APIVersion, "/")
			if !found {
				group, version = "", ref.APIVersion
			}
			return nil, meta.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s/%s, Kind=%s", group, version, ref.Kind))
		}
		if ref.Name == "" {
			return nil, meta.NewBadRequest("Name parameter required.")
		}
		return nil, meta.NewNotFound(meta.GroupResource{Resource: resource}, ref.Name)
	}
	if len(tr.Spec.Audiences) == 0 {
		tr.Spec.Audiences = h.tokens.opts.APIAudiences
	}
	tr.Name, tr.Namespace = sa.Name, sa.Namespace
	tr.CreationTimestamp = meta.NewTime(now)
	if max := int64(h.tokens.opts.MaxExpiration / time.Second); max > 0 && *tr.Spec.ExpirationSeconds > max {
		*tr.Spec.ExpirationSeconds = max
	}
	token, err := h.tokens.issue(sa, tr.Spec.Audiences, *tr.Spec.ExpirationSeconds, now)
	if err != nil {
		return nil, meta.NewInternalError(err)
	}
	tr.Status = authentication.TokenRequestStatus{
		Token:               token,
		ExpirationTimestamp: meta.NewTime(now.Add(time.Duration(*tr.Spec.ExpirationSeconds) * time.Second)),
	}
	return &tr, nil
}

// validateTokenRequest is upstream's ValidateTokenRequest
// (pkg/apis/authentication/validation): the lifetime lies within 10
// minutes and 2^32 seconds.
func validateTokenRequest(tr *authentication.TokenRequest) meta.FieldErrors {
	var errs meta.FieldErrors
	switch s := *tr.Spec.ExpirationSeconds; {
	case s < tokenMinExpirationSeconds:
		errs = append(errs, meta.Invalid("spec.expirationSeconds", s, "may not specify a duration less than 10 minutes"))
	case s > tokenMaxExpirationSeconds:
		errs = append(errs, meta.Invalid("spec.expirationSeconds", s, "may not specify a duration larger than 2^32 seconds"))
	}
	return errs
}

// serviceAccountGetter returns the ServiceAccount getter over api's store.
func serviceAccountGetter(api *rest.API) func(ctx context.Context, namespace, name string) (*core.ServiceAccount, error) {
	store := api.Store(meta.GroupResource{Resource: "serviceaccounts"})
	return func(ctx context.Context, namespace, name string) (*core.ServiceAccount, error) {
		o, err := store.Get(ctx, namespace, name)
		if err != nil {
			return nil, err
		}
		return o.(*core.ServiceAccount), nil
	}
}
