package request

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/meta"
)

// UserKey is the context key of the request's user (UserFrom). It is
// exported so that a context node that already carries the request's state
// (the aggregator chain's) can answer it without another context layer.
type UserKey struct{}

// WithUser returns a copy of ctx that carries u.
func WithUser(ctx context.Context, u *authentication.UserInfo) context.Context {
	return context.WithValue(ctx, UserKey{}, u)
}

// UserFrom returns the user the authentication filter attached to ctx, or
// nil and false when the request was not authenticated.
func UserFrom(ctx context.Context) (*authentication.UserInfo, bool) {
	u, ok := ctx.Value(UserKey{}).(*authentication.UserInfo)
	return u, ok && u != nil
}

// RequestInfo is what the request path says about a request, mirroring
// request.RequestInfo (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go).
type RequestInfo struct {
	// IsResourceRequest is true for /api/<v>/... and /apis/<g>/<v>/...
	// paths with at least a version; everything else is a non-resource
	// request (only Path and Verb are set).
	IsResourceRequest bool
	// Path is r.URL.Path.
	Path string
	// Verb is get, list, watch, create, update, patch, delete,
	// deletecollection or proxy for resource requests, the lower-cased
	// HTTP method otherwise.
	Verb string
	// APIPrefix is "api" or "apis".
	APIPrefix   string
	APIGroup    string
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the version and namespace, e.g.
	// [flunders, foo, status].
	Parts []string
}

// RequestInfoKey is the context key of a request's RequestInfo; the
// aggregator's chain answers it from its own per-request state.
type RequestInfoKey struct{}

// WithRequestInfoContext returns a copy of ctx carrying ri.
func WithRequestInfoContext(ctx context.Context, ri *RequestInfo) context.Context {
	return context.WithValue(ctx, RequestInfoKey{}, ri)
}

// RequestInfoFrom returns the RequestInfo WithRequestInfo attached to ctx.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	ri, ok := ctx.Value(RequestInfoKey{}).(*RequestInfo)
	return ri, ok && ri != nil
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return []string{}
	}
	return strings.Split(p, "/")
}

// segments is len(splitPath(p)) without splitting.
func segments(p string) int {
	p = strings.Trim(p, "/")
	if p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// lowerMethod is strings.ToLower(m), without an allocation for the
// standard methods.
func lowerMethod(m string) string {
	switch m {
	case http.MethodGet:
		return "get"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	case http.MethodHead:
		return "head"
	case http.MethodOptions:
		return "options"
	}
	return strings.ToLower(m)
}

// NewRequestInfo parses r's method, path and query as upstream's
// RequestInfoFactory does with APIPrefixes {api, apis} and groupless prefix
// api: `/apis/<g>/<v>[/namespaces/<ns>]/<resource>[/<name>[/<subresource>]]`,
// the verb from the method (POST create, GET/HEAD get, PUT update, PATCH
// patch, DELETE delete), or `/watch/` and `/proxy/` after the version. A
// get without a name is list, or watch when ?watch is set to anything but
// "0"/"false"; a list/watch with fieldSelector metadata.name=<n> gets Name n;
// a delete without a name is deletecollection. `namespaces/<ns>/status` and
// `/finalize` are subresources of the namespace. The only error is a
// /watch/ or /proxy/ path with nothing after it.
func NewRequestInfo(r *http.Request) (*RequestInfo, error) {
	ri := new(RequestInfo)
	return ri, ParseRequestInfo(r, ri)
}

// ParseRequestInfo is NewRequestInfo into ri, which it overwrites: a
// caller that keeps the RequestInfo in a larger per-request value saves
// an allocation (the aggregator's chain, issue 21). Its error is
// NewRequestInfo's; ri holds what was parsed up to it.
func ParseRequestInfo(r *http.Request, ri *RequestInfo) error {
	*ri = RequestInfo{Path: r.URL.Path, Verb: lowerMethod(r.Method)}
	if segments(r.URL.Path) < 3 {
		return nil // what the split below would return, without it (/apis, /healthz, ...)
	}
	parts := splitPath(r.URL.Path)
	switch parts[0] {
	case "api", "apis":
	default:
		return nil
	}
	ri.APIPrefix = parts[0]
	parts = parts[1:]
	if ri.APIPrefix != "api" {
		if len(parts) < 3 {
			return nil
		}
		ri.APIGroup = parts[0]
		parts = parts[1:]
	}
	ri.IsResourceRequest = true
	ri.APIVersion = parts[0]
	parts = parts[1:]

	if parts[0] == "proxy" || parts[0] == "watch" {
		if len(parts) < 2 {
			return fmt.Errorf("unable to determine kind and namespace from url, %v", r.URL)
		}
		ri.Verb = parts[0]
		parts = parts[1:]
	} else {
		switch r.Method {
		case http.MethodPost:
			ri.Verb = "create"
		case http.MethodGet, http.MethodHead:
			ri.Verb = "get"
		case http.MethodPut:
			ri.Verb = "update"
		case http.MethodPatch:
			ri.Verb = "patch"
		case http.MethodDelete:
			ri.Verb = "delete"
		default:
			ri.Verb = ""
		}
	}

	if parts[0] == "namespaces" {
		if len(parts) > 1 {
			ri.Namespace = parts[1]
			if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
				parts = parts[2:]
			}
		}
	}
	ri.Parts = parts

	if len(parts) >= 3 && ri.Verb != "proxy" {
		ri.Subresource = parts[2]
	}
	if len(parts) >= 2 {
		ri.Name = parts[1]
	}
	if len(parts) >= 1 {
		ri.Resource = parts[0]
	}

	if ri.Name == "" && ri.Verb == "get" {
		q := r.URL.Query()
		watch := false
		if v, ok := q["watch"]; ok && len(v) > 0 {
			watch = !(v[0] == "0" || strings.EqualFold(v[0], "false"))
		}
		if watch {
			ri.Verb = "watch"
		} else {
			ri.Verb = "list"
		}
		if fs := q.Get("fieldSelector"); fs != "" {
			if name, ok := fieldSelectorExactMatch(fs, "metadata.name"); ok && validPathSegmentName(name) {
				ri.Name = name
			}
		}
	}
	if ri.Name == "" && ri.Verb == "delete" {
		ri.Verb = "deletecollection"
	}
	return nil
}

// fieldSelectorExactMatch returns the value a field selector requires field
// to equal (`field=v` or `field==v`), as fields.Selector.RequiresExactMatch
// does; a selector that does not parse matches nothing.
func fieldSelectorExactMatch(sel, field string) (string, bool) {
	reqs, err := meta.ParseFieldSelector(sel)
	if err != nil {
		return "", false
	}
	for _, r := range reqs {
		if r.Field == field && !r.Not {
			return r.Value, true
		}
	}
	return "", false
}

// validPathSegmentName mirrors path.IsValidPathSegmentName.
func validPathSegmentName(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, "/%")
}

// StatusRecorder is an http.ResponseWriter that passes everything on to
// the ResponseWriter it embeds and notes the status code of the response:
// the first final code (>= 200, or 101, which is final: the connection
// switches protocols) given to WriteHeader, 200 for a Write or Flush before
// any, and whether the connection was hijacked before any. Flush, Hijack
// and Unwrap pass through, so watches (flushed streams) and upgrades
// (hijacked connections) still work through it, with
// http.NewResponseController too. It plays the part of the status-keeping
// writers of upstream's handler chain (apiserver/pkg/server/httplog/httplog.go
// respLogger, apiserver/pkg/endpoints/metrics/metrics.go
// ResponseWriterDelegator). The aggregator's handler chain wraps every
// request in one (access log, request metrics), the proxy Handler every
// proxied request when Options.OnRequest is set.
//
// Set ResponseWriter before use; the zero value of the rest records
// nothing yet. It is not safe for concurrent use (neither is the
// ResponseWriter it wraps).
type StatusRecorder struct {
	http.ResponseWriter

	written  int  // first final code written (WriteHeader, Write, Flush)
	hijacked bool // hijacked while written was still 0
}

// WriteHeader notes code if it is the first final code and passes it on.
func (s *StatusRecorder) WriteHeader(code int) {
	if s.written == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		s.written = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write notes an implicit 200 and passes p on.
func (s *StatusRecorder) Write(p []byte) (int, error) {
	if s.written == 0 {
		s.written = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// Flush notes an implicit 200 and flushes the wrapped writer if it can;
// see FlushError.
func (s *StatusRecorder) Flush() { _ = s.FlushError() }

// FlushError notes an implicit 200 and flushes the wrapped writer through
// http.NewResponseController. Errors: the wrapped writer's flush error, or
// one matching http.ErrNotSupported when it cannot flush.
func (s *StatusRecorder) FlushError() error {
	if s.written == 0 {
		s.written = http.StatusOK
	}
	return http.NewResponseController(s.ResponseWriter).Flush()
}

// Hijack hijacks the wrapped writer's connection through
// http.NewResponseController and, when that succeeds before any final code
// was written, notes the hijack. Errors: the wrapped writer's, or one
// matching http.ErrNotSupported when it cannot be hijacked.
func (s *StatusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err == nil && s.written == 0 {
		s.hijacked = true
	}
	return c, rw, err
}

// Unwrap returns the wrapped writer (for http.NewResponseController).
func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Code returns the status the client got: the first final code written,
// or 101 when the connection was hijacked before one (what is written to
// a hijacked connection's writer afterwards never reaches the client);
// 0 when nothing was written yet.
func (s *StatusRecorder) Code() int {
	if s.hijacked {
		return http.StatusSwitchingProtocols
	}
	return s.written
}

// WrittenCode returns the first final code written through WriteHeader,
// Write or Flush, ignoring a hijack: the answer the handler gave, even one
// written after a hijack (such as the proxy's 503 when a protocol switch
// could not be completed); 0 when nothing was written.
func (s *StatusRecorder) WrittenCode() int { return s.written }

var (
	_ http.Flusher  = (*StatusRecorder)(nil)
	_ http.Hijacker = (*StatusRecorder)(nil)
)
