package aggregator

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aggsim/aggsim/aggregator/request"
	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/authorization"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
	"github.com/aggsim/aggsim/registry/rest"
)

// DefaultAPIAudiences are the audiences a TokenReview without
// spec.audiences is checked against and answered with: kube-apiserver's
// --api-audiences default, its --service-account-issuer as kubeadm sets
// it.
var DefaultAPIAudiences = []string{"https://kubernetes.default.svc.cluster.local"}

// Paths of the review resources aggsim answers itself.
const (
	pathTokenReviews             = "/apis/authentication.k8s.io/v1/tokenreviews"
	pathSelfSubjectReviews       = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	pathSubjectAccessReviews     = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	pathSelfSubjectAccessReviews = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	pathSelfSubjectRulesReviews  = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	// pathAuthorizationNamespaces prefixes
	// namespaces/<ns>/localsubjectaccessreviews.
	pathAuthorizationNamespaces = "/apis/authorization.k8s.io/v1/namespaces/"
)

// reviewHandler answers POSTs of the authentication.k8s.io/v1 and
// authorization.k8s.io/v1 review resources, as kube-apiserver's
// pkg/registry/authentication/{tokenreview,selfsubjectreview} and
// pkg/registry/authorization/{subjectaccessreview,localsubjectaccessreview,
// selfsubjectaccessreview,selfsubjectrulesreview} REST storages do:
// 201 Created with the request object and its status filled in, nothing
// stored. TokenReviews look the token up in the --token-auth-file tokens;
// every access review is decided by the Authorizer that guards aggsim's own
// API. Requests and decisions are logged at debug level. It is immutable
// and safe for concurrent use.
type reviewHandler struct {
	tokens    *TokenFile            // nil: no token authenticates
	saTokens  *serviceAccountTokens // nil: no ServiceAccount tokens
	authz     Authorizer            // never nil
	audiences []string
	logger    *slog.Logger
	now       func() time.Time
}

var _ http.Handler = (*reviewHandler)(nil)

// newReviewHandler builds the handler; authz nil means AlwaysAllow. The
// authorizer is wrapped like the impersonation filter's, so that
// "impersonate" reviews get the answer an Impersonate-User request would.
func newReviewHandler(tokens *TokenFile, authz Authorizer, logger *slog.Logger, now func() time.Time) *reviewHandler {
	if authz == nil {
		authz = AlwaysAllow{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &reviewHandler{
		tokens:    tokens,
		authz:     ImpersonationAuthorizer{Delegate: authz},
		audiences: DefaultAPIAudiences,
		logger:    logger,
		now:       now,
	}
}

// reviewPaths lists the exact paths of the review resources; the
// namespaced localsubjectaccessreviews live under pathAuthorizationNamespaces.
var reviewPaths = []string{
	pathTokenReviews, pathSelfSubjectReviews,
	pathSubjectAccessReviews, pathSelfSubjectAccessReviews, pathSelfSubjectRulesReviews,
}

// isReviewPath reports whether p (with or without a trailing slash) is a
// review resource's path, or lies under the namespaced prefix of
// localsubjectaccessreviews.
func isReviewPath(p string) bool {
	return slices.Contains(reviewPaths, strings.TrimSuffix(p, "/")) || strings.HasPrefix(p, pathAuthorizationNamespaces)
}

// builtinAPI serves aggsim's own group/versions: the review resources
// (TokenReview, SubjectAccessReview and their siblings) by the review
// handler, everything else by the REST API. The router routes it like any
// APIService's handler, so a review path answers only while its group's
// APIService is local, as upstream's aggregator serves them through the
// local delegate.
type builtinAPI struct {
	*rest.API
	reviews http.Handler
	// tokenRequests answers serviceaccounts/<name>/token; nil without
	// token keys.
	tokenRequests *tokenRequestHandler
}

// ServeHTTP sends review paths to the review handler, the rest to the API.
func (b *builtinAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isReviewPath(r.URL.Path) {
		b.reviews.ServeHTTP(w, r)
		return
	}
	if b.tokenRequests != nil {
		if ns, name, ok := tokenRequestPath(r.URL.Path); ok {
			b.tokenRequests.ServeHTTP(w, r, ns, name)
			return
		}
	}
	b.API.ServeHTTP(w, r)
}

// ServeHTTP dispatches on the path; only POST is served.
func (h *reviewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	namespace := ""
	if strings.HasPrefix(p, pathAuthorizationNamespaces) {
		segs := strings.Split(strings.TrimPrefix(p, pathAuthorizationNamespaces), "/")
		if len(segs) != 2 || segs[0] == "" || segs[1] != "localsubjectaccessreviews" {
			negotiation.WriteStatus(w, r, meta.NewPathNotFound())
			return
		}
		namespace, p = segs[0], "localsubjectaccessreviews"
	}
	f, ok := createOnlyOutput(w, r)
	if !ok {
		return
	}
	var out any
	var err error
	switch p {
	case pathTokenReviews:
		out, err = h.tokenReview(w, r)
	case pathSelfSubjectReviews:
		out, err = h.selfSubjectReview(w, r)
	case pathSubjectAccessReviews:
		out, err = h.subjectAccessReview(w, r, "SubjectAccessReview", "")
	case "localsubjectaccessreviews":
		out, err = h.subjectAccessReview(w, r, "LocalSubjectAccessReview", namespace)
	case pathSelfSubjectAccessReviews:
		out, err = h.selfSubjectAccessReview(w, r)
	case pathSelfSubjectRulesReviews:
		out, err = h.selfSubjectRulesReview(w, r)
	default:
		err = meta.NewPathNotFound()
	}
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	negotiation.WriteObject(w, f, http.StatusCreated, out)
}

// createOnlyOutput checks a request to a create-only endpoint (the
// reviews, serviceaccounts/<name>/token) before its body is read and
// returns the negotiated output format; false: it has answered. Only
// POST is allowed (405 otherwise); such objects have no table or
// metadata-only form: upstream's create handler fails to negotiate such
// an Accept and writes its 406 raw.
func createOnlyOutput(w http.ResponseWriter, r *http.Request) (negotiation.Format, bool) {
	if r.Method != http.MethodPost {
		negotiation.WriteStatus(w, r, meta.NewPathMethodNotAllowed())
		return negotiation.Format{}, false
	}
	if err := negotiation.RouteAccept(r, negotiation.ObjectMediaTypes); err != nil {
		negotiation.WriteStatus(w, r, err)
		return negotiation.Format{}, false
	}
	f, err := negotiation.Output(r, negotiation.TargetObject)
	if err == nil && f.As != "" {
		negotiation.WriteRawStatus(w, meta.NewNotAcceptable(negotiation.SupportedMediaTypes))
		return negotiation.Format{}, false
	}
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return negotiation.Format{}, false
	}
	return f, true
}

// reviewInfos are the ResourceInfos of the review kinds by kind, from
// registry.ReviewStrategies.
var reviewInfos = func() map[string]registry.ResourceInfo {
	m := map[string]registry.ResourceInfo{}
	for _, s := range registry.ReviewStrategies() {
		m[s.Info().Kind] = s.Info()
	}
	return m
}()

// decodeReview decodes the request body into into, an object of the review
// kind kind, as upstream's create handler decodes it (rest.DecodeCreate:
// JSON, YAML or protobuf, CreateOptions, field validation with warnings on
// w, upstream's 400/413/415/422 Status errors).
func decodeReview(w http.ResponseWriter, r *http.Request, into meta.Object, kind string) error {
	return rest.DecodeCreate(w, r, reviewInfos[kind], into)
}

// ensureNamespace applies the create handler's namespace rule: an empty
// metadata.namespace takes the request's, a cluster-scoped request clears
// it, and a different one is 400.
func ensureNamespace(om *meta.ObjectMeta, requestNamespace string) error {
	switch {
	case om.Namespace == requestNamespace:
	case om.Namespace == "":
		om.Namespace = requestNamespace
	case requestNamespace == "":
		om.Namespace = ""
	default:
		return meta.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// tokenReview mirrors tokenreview/storage.go: empty token is 400; the
// token is looked up in the token file (groups get system:authenticated),
// then checked as a ServiceAccount token;
// audiences default to the API audiences and must intersect them. The
// answer keeps the request's spec and metadata (with the create handler's
// managedFields); a token that does not authenticate gets
// status.error "invalid bearer token", the union authenticator's error.
func (h *reviewHandler) tokenReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var tr authentication.TokenReview
	if err := decodeReview(w, r, &tr, "TokenReview"); err != nil {
		return nil, err
	}
	_ = ensureNamespace(&tr.ObjectMeta, "")
	tr.TypeMeta = meta.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"}
	if err := rest.TrackCreate(r, &tr, tr.APIVersion, h.now()); err != nil {
		return nil, meta.NewInternalError(err)
	}
	if tr.Spec.Token == "" {
		return nil, meta.NewBadRequest("token is required for TokenReview in authentication")
	}
	auds := tr.Spec.Audiences
	if len(auds) == 0 {
		auds = h.audiences
	}
	var matched []string
	for _, a := range h.audiences {
		if slices.Contains(auds, a) {
			matched = append(matched, a)
		}
	}
	tr.Status = authentication.TokenReviewStatus{Error: "invalid bearer token"}
	if len(matched) > 0 {
		if u, ok := h.tokens.Lookup(tr.Spec.Token); ok {
			u = addAuthenticatedGroup(u)
			tr.Status = authentication.TokenReviewStatus{Authenticated: true, User: *u, Audiences: matched}
		}
	}
	if !tr.Status.Authenticated {
		// A ServiceAccount token is checked against the audiences asked
		// for, not the API's (serviceaccount_token.go); its error joins
		// the union's, as kube-apiserver 1.33 answers
		// ("[invalid bearer token, <error>]", captured).
		u, tokenAuds, handled, err := h.saTokens.authenticate(r.Context(), tr.Spec.Token, auds)
		switch {
		case err != nil:
			tr.Status.Error = "[invalid bearer token, " + err.Error() + "]"
		case handled:
			tr.Status = authentication.TokenReviewStatus{Authenticated: true, User: *addAuthenticatedGroup(u), Audiences: tokenAuds}
		}
	}
	h.logger.Debug("TokenReview", "authenticated", tr.Status.Authenticated, "user", tr.Status.User.Username,
		"groups", tr.Status.User.Groups, "audiences", auds)
	return &tr, nil
}

// selfSubjectReview mirrors selfsubjectreview/rest.go: the requesting
// user's attributes, creationTimestamp now.
func (h *reviewHandler) selfSubjectReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var sr authentication.SelfSubjectReview
	if err := decodeReview(w, r, &sr, "SelfSubjectReview"); err != nil {
		return nil, err
	}
	u, ok := request.UserFrom(r.Context())
	if !ok {
		return nil, meta.NewBadRequest("no user present on request")
	}
	out := &authentication.SelfSubjectReview{
		TypeMeta:   meta.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{CreationTimestamp: meta.NewTime(h.now())},
		Status:     authentication.SelfSubjectReviewStatus{UserInfo: *u},
	}
	return out, nil
}

// validateAccessSpec mirrors ValidateSelfSubjectAccessReviewSpec (the
// attribute half of ValidateSubjectAccessReviewSpec).
func validateAccessSpec(res *authorization.ResourceAttributes, nonRes *authorization.NonResourceAttributes) meta.FieldErrors {
	var errs meta.FieldErrors
	if res != nil && nonRes != nil {
		// Upstream prints its internal struct with %#v; aggsim's type has
		// the same package name, field names and types.
		errs = append(errs, meta.Invalid("spec.nonResourceAttributes", meta.GoSyntax(fmt.Sprintf("%#v", *nonRes)), "cannot be specified in combination with resourceAttributes"))
	}
	if res == nil && nonRes == nil {
		errs = append(errs, meta.Invalid("spec.resourceAttributes", nonRes, "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	return errs
}

// accessAttributes mirrors authorizationutil.ResourceAttributesFrom and
// NonResourceAttributesFrom: an empty version means "*".
func accessAttributes(u *authentication.UserInfo, res *authorization.ResourceAttributes, nonRes *authorization.NonResourceAttributes) Attributes {
	if res != nil {
		version := res.Version
		if version == "" {
			version = "*"
		}
		return Attributes{
			User: u, Verb: res.Verb, Namespace: res.Namespace, APIGroup: res.Group, APIVersion: version,
			Resource: res.Resource, Subresource: res.Subresource, Name: res.Name, ResourceRequest: true,
		}
	}
	return Attributes{User: u, Verb: nonRes.Verb, Path: nonRes.Path}
}

// decide runs the authorizer and builds upstream's status: allowed on
// Allow, denied on Deny, the reason, and the error as evaluationError.
func (h *reviewHandler) decide(r *http.Request, kind string, a Attributes) authorization.SubjectAccessReviewStatus {
	d, reason, err := h.authz.Authorize(r.Context(), a)
	st := authorization.SubjectAccessReviewStatus{Allowed: d == DecisionAllow, Denied: d == DecisionDeny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	h.logger.Debug(kind, "user", a.User.Username, "groups", a.User.Groups, "verb", a.Verb,
		"namespace", a.Namespace, "group", a.APIGroup, "version", a.APIVersion, "resource", a.Resource,
		"subresource", a.Subresource, "name", a.Name, "path", a.Path,
		"decision", d.String(), "reason", reason, "err", err)
	return st
}

// subjectAccessReview serves SubjectAccessReview (namespace "") and
// LocalSubjectAccessReview, mirroring their rest.go and validation.
func (h *reviewHandler) subjectAccessReview(w http.ResponseWriter, r *http.Request, kind, namespace string) (any, error) {
	var sar authorization.SubjectAccessReview
	if err := decodeReview(w, r, &sar, kind); err != nil {
		return nil, err
	}
	if err := ensureNamespace(&sar.ObjectMeta, namespace); err != nil {
		return nil, err
	}
	sar.TypeMeta = meta.TypeMeta{Kind: kind, APIVersion: "authorization.k8s.io/v1"}
	spec := sar.Spec
	errs := validateAccessSpec(spec.ResourceAttributes, spec.NonResourceAttributes)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, meta.Invalid("spec.user", spec.User, "at least one of user or group must be specified"))
	}
	om := sar.ObjectMeta
	om.Namespace, om.ManagedFields = "", nil
	if kind == "LocalSubjectAccessReview" {
		if !isEmptyMeta(om) {
			errs = append(errs, meta.Invalid("metadata", sar.ObjectMeta, "must be empty except for namespace"))
		}
		if spec.ResourceAttributes != nil && spec.ResourceAttributes.Namespace != sar.Namespace {
			errs = append(errs, meta.Invalid("spec.resourceAttributes.namespace", spec.ResourceAttributes.Namespace, "must match metadata.namespace"))
		}
		if spec.NonResourceAttributes != nil {
			errs = append(errs, meta.Invalid("spec.nonResourceAttributes", spec.NonResourceAttributes, "disallowed on this kind of request"))
		}
	} else if !isEmptyMeta(om) {
		errs = append(errs, meta.Invalid("metadata", sar.ObjectMeta, "must be empty"))
	}
	if len(errs) > 0 {
		return nil, meta.NewInvalid("authorization.k8s.io", "", "", errs) // upstream names no kind here
	}
	if err := rest.TrackCreate(r, &sar, sar.APIVersion, h.now()); err != nil {
		return nil, meta.NewInternalError(err)
	}
	u := &authentication.UserInfo{Username: spec.User, UID: spec.UID, Groups: spec.Groups, Extra: spec.Extra}
	sar.Status = h.decide(r, kind, accessAttributes(u, spec.ResourceAttributes, spec.NonResourceAttributes))
	return &sar, nil
}

// isEmptyMeta reports whether m (namespace and managedFields already
// cleared) is the zero ObjectMeta.
func isEmptyMeta(m meta.ObjectMeta) bool {
	return m.Name == "" && m.GenerateName == "" && m.UID == "" && m.ResourceVersion == "" && m.Generation == 0 &&
		m.CreationTimestamp.IsZero() && m.DeletionTimestamp == nil && m.DeletionGracePeriodSeconds == nil &&
		len(m.Labels) == 0 && len(m.Annotations) == 0 && len(m.OwnerReferences) == 0 && len(m.Finalizers) == 0 && m.SelfLink == ""
}

// selfSubjectAccessReview mirrors selfsubjectaccessreview/rest.go: the
// requesting user is checked.
func (h *reviewHandler) selfSubjectAccessReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var ssar authorization.SelfSubjectAccessReview
	if err := decodeReview(w, r, &ssar, "SelfSubjectAccessReview"); err != nil {
		return nil, err
	}
	_ = ensureNamespace(&ssar.ObjectMeta, "")
	ssar.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	if errs := validateAccessSpec(ssar.Spec.ResourceAttributes, ssar.Spec.NonResourceAttributes); len(errs) > 0 {
		return nil, meta.NewInvalid("authorization.k8s.io", "", "", errs) // upstream names no kind here
	}
	u, ok := request.UserFrom(r.Context())
	if !ok {
		return nil, meta.NewBadRequest("no user present on request")
	}
	if err := rest.TrackCreate(r, &ssar, ssar.APIVersion, h.now()); err != nil {
		return nil, meta.NewInternalError(err)
	}
	ssar.Status = h.decide(r, "SelfSubjectAccessReview", accessAttributes(u, ssar.Spec.ResourceAttributes, ssar.Spec.NonResourceAttributes))
	return &ssar, nil
}

// selfSubjectRulesReview mirrors selfsubjectrulesreview/rest.go with the
// rules the authorizers list (RuleResolver): AlwaysAllow "*" for
// everything, AlwaysDeny nothing, RBAC the rules of the caller's roles;
// an Authorizer that cannot list rules adds nothing and makes the answer
// incomplete. As
// upstream, the answer is a new object: empty metadata (no managedFields)
// and `spec: {}`, whatever the request carried.
func (h *reviewHandler) selfSubjectRulesReview(w http.ResponseWriter, r *http.Request) (any, error) {
	var rr authorization.SelfSubjectRulesReview
	if err := decodeReview(w, r, &rr, "SelfSubjectRulesReview"); err != nil {
		return nil, err
	}
	_ = ensureNamespace(&rr.ObjectMeta, "")
	rr.TypeMeta = meta.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: "authorization.k8s.io/v1"}
	if _, ok := request.UserFrom(r.Context()); !ok {
		return nil, meta.NewBadRequest("no user present on request")
	}
	if rr.Spec.Namespace == "" {
		return nil, meta.NewBadRequest("no namespace on request")
	}
	u, _ := request.UserFrom(r.Context())
	res, nonRes, incomplete, err := rulesOf(h.authz, u, rr.Spec.Namespace)
	if res == nil {
		res = []authorization.ResourceRule{}
	}
	if nonRes == nil {
		nonRes = []authorization.NonResourceRule{}
	}
	st := authorization.SubjectRulesReviewStatus{ResourceRules: res, NonResourceRules: nonRes, Incomplete: incomplete}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	return &authorization.SelfSubjectRulesReview{
		TypeMeta: meta.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: "authorization.k8s.io/v1"},
		Status:   st,
	}, nil
}
