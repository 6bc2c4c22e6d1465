package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// DebugAccessPath explains an authorization decision (ExplainAccess). Its
// query parameters are named after kubectl's flags: as (the user, required),
// as-group (repeated), verb (required), and either resource
// (RESOURCE[.GROUP] as kubectl auth can-i takes it, resolved through
// discovery) with subresource, namespace and name, or path (a non-resource
// URL). Without a namespace parameter a namespaced resource is asked in
// "default"; namespace= (empty) asks for all namespaces.
//
// Like every non-resource path, the endpoint itself is authorised as a
// `get` of the non-resource URL /debug/aggsim/access (as upstream authorises
// /debug/pprof and /debug/flags): system:masters and cluster-admin may read
// it, and no other bootstrap role grants it. It reveals what a
// SubjectAccessReview would, and more (the bindings of other users), so
// grant it as you would create on subjectaccessreviews.
const DebugAccessPath = "/debug/aggsim/access"

// AccessRequest is the request an explanation is about: the user (after
// impersonation: groups completed as kube-apiserver completes them) and
// the authorization attributes.
type AccessRequest struct {
	User            string   `json:"user"`
	Groups          []string `json:"groups"`
	Verb            string   `json:"verb"`
	ResourceRequest bool     `json:"resourceRequest"`
	APIGroup        string   `json:"apiGroup,omitempty"`
	Resource        string   `json:"resource,omitempty"`
	Subresource     string   `json:"subresource,omitempty"`
	Namespace       string   `json:"namespace,omitempty"`
	Name            string   `json:"name,omitempty"`
	Path            string   `json:"path,omitempty"`
}

// AccessExplanation is aggsim's account of one authorization decision: the
// decision and reason the server's authorizers give (as a
// SubjectAccessReview's status), the 403 message the request would get,
// which binding and rule allow it, or the near misses that almost do, and
// what would fix it. Upstream has no such thing: a user reads the 403 and
// `kubectl auth can-i --list`, and guesses.
type AccessExplanation struct {
	Request AccessRequest `json:"request"`
	// Modes are the authorizers asked, in order.
	Modes []string `json:"modes"`
	// Warnings are kubectl's (an unknown resource type) and aggsim's (a
	// namespace dropped for a cluster-scoped resource).
	Warnings []string `json:"warnings,omitempty"`
	Allowed  bool     `json:"allowed"`
	// Decision is Allow, Deny or NoOpinion; Reason the authorizer's reason
	// (a SubjectAccessReview's status.reason).
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	// AllowedBy names what allowed it: system:masters, RBAC or
	// AlwaysAllow.
	AllowedBy string `json:"allowedBy,omitempty"`
	// Grant is the RBAC binding and rule that allow it.
	Grant *AccessGrant `json:"grant,omitempty"`
	// Forbidden is the message of the 403 the request gets when denied,
	// upstream's word for word (also through the aggregation proxy).
	Forbidden  string           `json:"forbidden,omitempty"`
	NearMisses []AccessNearMiss `json:"nearMisses,omitempty"`
	Advice     []string         `json:"advice,omitempty"`
}

// AccessQuery is what DebugAccessPath is asked: the user, the verb and
// either a resource (RESOURCE[.GROUP], resolved through discovery) or a
// non-resource path.
type AccessQuery struct {
	User, Verb, Resource, Subresource, Namespace, Name, Path string
	Groups                                                   []string
	// NamespaceDefaulted is true when no namespace was given: a namespaced
	// resource is then asked in "default" (kubectl's default), a
	// cluster-scoped one without a warning.
	NamespaceDefaulted bool
}

// accessQueryOf reads an AccessQuery from DebugAccessPath's query
// parameters. Errors (a 400 StatusError): as or verb missing, or both or
// neither of resource and path.
func accessQueryOf(v url.Values) (AccessQuery, error) {
	q := AccessQuery{User: v.Get("as"), Groups: v["as-group"], Verb: v.Get("verb"), Resource: v.Get("resource"),
		Subresource: v.Get("subresource"), Namespace: v.Get("namespace"), Name: v.Get("name"), Path: v.Get("path"),
		NamespaceDefaulted: !v.Has("namespace")}
	switch {
	case q.User == "":
		return q, meta.NewBadRequest("the user is required: " + DebugAccessPath + "?as=<user>&verb=<verb>&resource=<resource>[.<group>] (or path=<url>)")
	case q.Verb == "":
		return q, meta.NewBadRequest("verb is required")
	case (q.Resource == "") == (q.Path == ""):
		return q, meta.NewBadRequest("exactly one of resource and path is required")
	case q.Path != "" && (q.Subresource != "" || q.Namespace != "" || q.Name != ""):
		return q, meta.NewBadRequest("a non-resource path takes no subresource, namespace or name")
	case q.Path != "" && !strings.HasPrefix(q.Path, "/"):
		return q, meta.NewBadRequest(fmt.Sprintf("path %q must start with \"/\"", q.Path))
	}
	return q, nil
}

// impersonatedGroups completes the groups of user as kube-apiserver's
// impersonation does: a ServiceAccount without groups gets
// system:serviceaccounts and system:serviceaccounts:<ns>; every user but
// system:anonymous gets system:authenticated (system:anonymous
// system:unauthenticated) unless already there.
func impersonatedGroups(user string, groups []string) []string {
	out := slices.Clone(groups)
	if rest, ok := strings.CutPrefix(user, "system:serviceaccount:"); ok && len(groups) == 0 {
		if ns, _, ok := strings.Cut(rest, ":"); ok {
			out = append(out, "system:serviceaccounts", "system:serviceaccounts:"+ns)
		}
	}
	add := GroupAuthenticated
	if user == UserAnonymous {
		add = GroupUnauthenticated
	}
	if !slices.Contains(out, GroupAuthenticated) && !slices.Contains(out, GroupUnauthenticated) {
		out = append(out, add)
	}
	return out
}

// ExplainAccess explains whether q's user may do what q describes: it asks
// the server's authorizers (as a SubjectAccessReview does) and, with RBAC,
// finds the binding and rule that allow it or the near misses. The
// resource is resolved through aggregated discovery (aggregated APIs
// included) as kubectl's REST mapper does. Errors: a discovery failure.
func (s *Server) ExplainAccess(ctx context.Context, q AccessQuery) (*AccessExplanation, error) {
	e := &AccessExplanation{Request: AccessRequest{User: q.User, Groups: impersonatedGroups(q.User, q.Groups), Verb: q.Verb,
		Path: q.Path, ResourceRequest: q.Path == ""}}
	if e.Request.ResourceRequest {
		rr, err := s.resolveResource(ctx, q.Resource)
		if err != nil {
			return nil, err
		}
		e.Request.APIGroup, e.Request.Resource = rr.group, rr.resource
		e.Request.Subresource, e.Request.Namespace, e.Request.Name = q.Subresource, q.Namespace, q.Name
		switch {
		case q.NamespaceDefaulted && rr.namespaced:
			e.Request.Namespace = "default"
		case q.NamespaceDefaulted:
			e.Request.Namespace = ""
		}
		switch {
		case !rr.found:
			e.Warnings = append(e.Warnings, fmt.Sprintf("the server doesn't have a resource type '%s'", q.Resource))
		case !rr.namespaced && e.Request.Namespace != "":
			e.Warnings = append(e.Warnings, fmt.Sprintf("%s is cluster-scoped: its requests name no namespace, so %q is ignored", rr.groupResource(), q.Namespace))
			e.Request.Namespace = ""
		}
	}
	e.Modes = s.authorizationModes()
	u := &authentication.UserInfo{Username: e.Request.User, Groups: e.Request.Groups}
	attrs := Attributes{User: u, Verb: e.Request.Verb, Namespace: e.Request.Namespace, APIGroup: e.Request.APIGroup,
		Resource: e.Request.Resource, Subresource: e.Request.Subresource, Name: e.Request.Name, Path: e.Request.Path,
		ResourceRequest: e.Request.ResourceRequest}
	d, reason, err := s.reviews.authz.Authorize(ctx, attrs)
	e.Decision, e.Reason, e.Allowed = d.String(), reason, d == DecisionAllow
	if err != nil && e.Reason == "" {
		e.Reason = err.Error()
	}
	req := &rbac.RequestAttributes{Verb: attrs.Verb, APIGroup: attrs.APIGroup, Resource: attrs.Resource,
		Subresource: attrs.Subresource, Name: attrs.Name, Path: attrs.Path, ResourceRequest: attrs.ResourceRequest}
	var grant *AccessGrant
	if s.rbac != nil {
		grant, e.NearMisses = s.rbac.explainAccess(u.Username, u.Groups, attrs.Namespace, req)
	}
	if e.Allowed {
		e.NearMisses = nil
		switch {
		case slices.Contains(u.Groups, GroupMasters) && len(e.Modes) > 0 && e.Modes[0] == GroupMasters:
			e.AllowedBy = GroupMasters
		case grant != nil:
			e.AllowedBy, e.Grant = ModeRBAC, grant
		default:
			e.AllowedBy = ModeAlwaysAllow
		}
		return e, nil
	}
	e.Forbidden = forbiddenStatus(attrs, reason).Status.Message
	e.Advice = s.accessAdvice(e, req)
	return e, nil
}

// authorizationModes lists the authorizers the server asks, in order:
// system:masters first unless the mode is AlwaysAllow alone.
func (s *Server) authorizationModes() []string {
	if s.opts.Authorizer != nil {
		return []string{"custom"}
	}
	modes, err := ParseAuthorizationModes(s.opts.AuthorizationMode)
	if err != nil {
		return nil
	}
	if len(modes) == 1 && modes[0] == ModeAlwaysAllow {
		return modes
	}
	return append([]string{GroupMasters}, modes...)
}

// accessAdvice says what would allow a denied request.
func (s *Server) accessAdvice(e *AccessExplanation, req *rbac.RequestAttributes) []string {
	r := &e.Request
	if s.rbac == nil {
		modes := slices.DeleteFunc(slices.Clone(e.Modes), func(m string) bool { return m == GroupMasters })
		return []string{fmt.Sprintf("authorization mode %q decides without roles: only system:masters is allowed", strings.Join(modes, ","))}
	}
	var out []string
	for _, m := range e.NearMisses {
		switch m.Kind {
		case NearMissMissingRole:
			out = append(out, "create the missing "+m.Role+", or point the binding at one that exists (roleRef cannot change: delete and re-create the binding)")
		case NearMissAggregation:
			out = append(out, "label the ClusterRole as the aggregated role's selectors ask (e.g. rbac.authorization.k8s.io/aggregate-to-view: \"true\"), or bind it directly")
		}
	}
	subject := "--user=" + r.User
	if ns, name, ok := strings.Cut(strings.TrimPrefix(r.User, "system:serviceaccount:"), ":"); ok && strings.HasPrefix(r.User, "system:serviceaccount:") {
		subject = "--serviceaccount=" + ns + ":" + name
	}
	if !r.ResourceRequest {
		out = append(out, fmt.Sprintf("kubectl create clusterrole <name> --verb=%s --non-resource-url=%s && kubectl create clusterrolebinding <name> --clusterrole=<name> %s", r.Verb, r.Path, subject))
		return out
	}
	resource := r.Resource
	if r.APIGroup != "" {
		resource += "." + r.APIGroup
	}
	if r.Subresource != "" {
		resource = r.Resource + "/" + r.Subresource
		if r.APIGroup != "" {
			resource += "." + r.APIGroup
		}
	}
	if r.Namespace != "" {
		if cr := s.rbac.suggestClusterRole(req); cr != "" {
			out = append(out, fmt.Sprintf("kubectl create rolebinding <name> --clusterrole=%s %s -n %s (ClusterRole %q allows it)", cr, subject, r.Namespace, cr))
		}
		out = append(out, fmt.Sprintf("kubectl create role <name> --verb=%s --resource=%s -n %s && kubectl create rolebinding <name> --role=<name> %s -n %s", r.Verb, resource, r.Namespace, subject, r.Namespace))
		return out
	}
	out = append(out, fmt.Sprintf("kubectl create clusterrole <name> --verb=%s --resource=%s && kubectl create clusterrolebinding <name> --clusterrole=<name> %s", r.Verb, resource, subject))
	return out
}

// resolvedResource is RESOURCE[.GROUP] resolved through discovery.
type resolvedResource struct {
	group, resource   string
	namespaced, found bool
}

func (r resolvedResource) groupResource() string {
	return meta.GroupResource{Group: r.group, Resource: r.resource}.String()
}

// discoveryResources is the part of an aggregated discovery document
// (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) resolution reads.
type discoveryResources struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource         string   `json:"resource"`
				SingularResource string   `json:"singularResource"`
				ShortNames       []string `json:"shortNames"`
				Scope            string   `json:"scope"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// resolveResource resolves arg (resource, singular or short name,
// optionally followed by ".group" or ".version.group") as kubectl's REST
// mapper does, through aggregated discovery of /api and /apis read as
// system:masters. Not found: the parsed resource and group, found false.
func (s *Server) resolveResource(ctx context.Context, arg string) (resolvedResource, error) {
	name, rest, _ := strings.Cut(strings.ToLower(arg), ".")
	client := loopback{api: s.handler, user: &authentication.UserInfo{Username: "system:apiserver", Groups: []string{GroupMasters}}}
	for _, root := range []string{"/api", "/apis"} {
		code, body, err := client.send(ctx, http.MethodGet, root, "", "", aggregatedDiscoveryAccept, nil)
		if err != nil {
			return resolvedResource{}, err
		}
		if code != http.StatusOK {
			return resolvedResource{}, statusErrorOf(code, body)
		}
		var doc discoveryResources
		if err := json.Unmarshal(body, &doc); err != nil {
			return resolvedResource{}, fmt.Errorf("%s: %w", root, err)
		}
		for _, g := range doc.Items {
			for _, v := range g.Versions {
				if rest != "" && rest != g.Metadata.Name && rest != v.Version+"."+g.Metadata.Name {
					continue
				}
				for _, r := range v.Resources {
					if strings.Contains(r.Resource, "/") {
						continue
					}
					if r.Resource == name || r.SingularResource == name || slices.Contains(r.ShortNames, name) {
						return resolvedResource{group: g.Metadata.Name, resource: r.Resource, namespaced: r.Scope == "Namespaced", found: true}, nil
					}
				}
			}
		}
	}
	return resolvedResource{group: rest, resource: name, namespaced: true}, nil
}

// WriteText writes e for a human.
func (e *AccessExplanation) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	r := &e.Request
	for _, warn := range e.Warnings {
		p("Warning: %s\n", warn)
	}
	p("User:         %s (groups %q)\n", r.User, r.Groups)
	if r.ResourceRequest {
		gr := meta.GroupResource{Group: r.APIGroup, Resource: r.Resource}.String()
		if r.Subresource != "" {
			gr = r.Resource + "/" + r.Subresource
			if r.APIGroup != "" {
				gr += "." + r.APIGroup
			}
		}
		what := r.Verb + " " + gr
		if r.Name != "" {
			what += " " + fmt.Sprintf("%q", r.Name)
		}
		if r.Namespace != "" {
			what += fmt.Sprintf(" in namespace %q", r.Namespace)
		} else {
			what += " at the cluster scope"
		}
		p("Request:      %s\n", what)
	} else {
		p("Request:      %s %s (non-resource URL)\n", r.Verb, r.Path)
	}
	p("Authorizers:  %s\n", strings.Join(e.Modes, ", then "))
	if e.Allowed {
		p("Decision:     allowed (by %s)\n", e.AllowedBy)
	} else {
		p("Decision:     denied (%s)\n", e.Decision)
	}
	if e.Reason != "" {
		p("Reason:       %s\n", strings.ReplaceAll(e.Reason, "\n", "\n              "))
	}
	if g := e.Grant; g != nil {
		p("Binding:      %s\n", g.Via)
		p("Rule:         %s rule %d: %s\n", g.Role, g.RuleIndex, g.RuleString)
	}
	if e.Forbidden != "" {
		p("Response:     403 Forbidden: %s\n", e.Forbidden)
	}
	if !e.Allowed {
		if len(e.NearMisses) == 0 {
			p("Near misses:  none (no binding of this user or its groups comes close)\n")
		} else {
			p("Near misses:\n")
			for _, m := range e.NearMisses {
				p("  - [%s] %s\n", m.Kind, m.Message)
				if m.Rule != "" {
					p("      rule: %s\n", m.Rule)
				}
			}
		}
	}
	if len(e.Advice) > 0 {
		p("To allow it:\n")
		for _, a := range e.Advice {
			p("  - %s\n", a)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// serveDebugAccess answers DebugAccessPath: text/plain, or JSON when
// Accept names application/json. Bad parameters answer a 400 Status.
func (s *Server) serveDebugAccess(w http.ResponseWriter, r *http.Request) {
	if !debugReadOnly(w, r) {
		return
	}
	q, err := accessQueryOf(r.URL.Query())
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	e, err := s.ExplainAccess(r.Context(), q)
	if err != nil {
		negotiation.WriteStatus(w, r, err)
		return
	}
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(e)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_ = e.WriteText(w)
}
