package negotiation

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"sigs.k8s.io/yaml"
)

// Media types aggsim reads and writes.
const (
	MediaJSON     = "application/json"
	MediaYAML     = "application/yaml"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// SupportedMediaTypes is the list upstream names in its 406 and 415 errors
// for resource requests.
const SupportedMediaTypes = "application/json, application/yaml, application/vnd.kubernetes.protobuf"

// Clause is one media range of an Accept header: type and subtype as sent
// (compared case-sensitively, as upstream's negotiation compares them:
// kube-apiserver 1.33.13 does not take "Application/JSON" for JSON;
// "*" for wildcards), its quality (1 when absent) and its other
// parameters (names lower case, values trimmed and unquoted).
type Clause struct {
	Type, Subtype string
	Q             float64
	Params        map[string]string
}

// MediaType is "<type>/<subtype>".
func (c Clause) MediaType() string { return c.Type + "/" + c.Subtype }

// ParseAccept splits an Accept header into clauses ordered by q (highest
// first), then by specificity (a wildcard type or subtype after a concrete
// one), keeping header order otherwise, as goautoneg.ParseAccept does for
// upstream's negotiation (apiserver pkg/endpoints/handlers/negotiation).
// A bare "*" is "*/*"; a range without a subtype is skipped. It is the one
// Accept parser of aggsim.
func ParseAccept(header string) []Clause {
	var out []Clause
	for part := range strings.SplitSeq(header, ",") {
		fields := strings.Split(part, ";")
		mt := strings.TrimSpace(fields[0]) // case-sensitive, as goautoneg: "Application/JSON" is no JSON (measured)
		c := Clause{Q: 1}
		if mt == "*" {
			c.Type, c.Subtype = "*", "*"
		} else {
			t, s, ok := strings.Cut(mt, "/")
			if !ok || t == "" || s == "" {
				continue
			}
			c.Type, c.Subtype = t, s
		}
		for _, p := range fields[1:] {
			k, v, _ := strings.Cut(p, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			if k == "" {
				continue
			}
			if k == "q" {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					c.Q = f
				}
				continue
			}
			if c.Params == nil {
				c.Params = map[string]string{}
			}
			c.Params[k] = v
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Clause) int {
		switch {
		case a.Q > b.Q:
			return -1
		case a.Q < b.Q:
			return 1
		}
		return wildness(a) - wildness(b)
	})
	return out
}

func wildness(c Clause) int {
	switch {
	case c.Type == "*":
		return 2
	case c.Subtype == "*":
		return 1
	}
	return 0
}

// Names reports whether one of the media ranges of an Accept header, its
// parameters ignored, is exactly one of types ("application/json",
// "*/*", ...). Wildcards in the header match only themselves, as
// kube-openapi's handler compares them.
func Names(accept string, types ...string) bool {
	for _, c := range ParseAccept(accept) {
		if slices.Contains(types, c.MediaType()) {
			return true
		}
	}
	return false
}

// Target is what a response carries, which decides the `as=` clauses
// that fit it.
type Target int

// The targets of Output.
const (
	TargetObject Target = iota
	TargetList
	TargetWatch
)

// Format is the negotiated form of a resource response.
type Format struct {
	// YAML selects application/yaml instead of JSON.
	YAML bool
	// Protobuf selects application/vnd.kubernetes.protobuf (never together
	// with YAML or As); WriteObject falls back to JSON for an object whose
	// kind has no protobuf encoding.
	Protobuf bool
	// As is "", "Table", "PartialObjectMetadata" or
	// "PartialObjectMetadataList"; MetaVersion is "v1" or "v1beta1" when
	// As is set.
	As, MetaVersion string
	// Pretty asks for indented JSON (see IsPrettyPrint).
	Pretty bool
}

// Output picks the response format of a resource request from its Accept
// header as upstream's negotiation does: the first acceptable clause in
// preference order wins; YAML does not fit a watch; protobuf fits objects
// and lists (not watches, not Tables or PartialObjectMetadata) once a
// ProtobufEncoder is registered. An empty header is JSON. When nothing
// fits it returns a 406 meta.NewNotAcceptable error.
func Output(r *http.Request, target Target) (Format, error) {
	return output(r, target, false)
}

// output is Output; anyTarget accepts every `as=` transformation upstream's
// request scope allows (AllowsMediaTypeTransform), whatever the response
// is, as upstream negotiates the format of an error response.
func output(r *http.Request, target Target, anyTarget bool) (Format, error) {
	f := Format{Pretty: IsPrettyPrint(r)}
	h := r.Header.Get("Accept")
	if strings.TrimSpace(h) == "" {
		return f, nil
	}
	for _, c := range ParseAccept(h) {
		if c.Q <= 0 {
			continue
		}
		var isYAML bool
		switch c.MediaType() {
		case "*/*", "application/*", MediaJSON:
		case MediaYAML:
			isYAML = true
		case MediaProtobuf:
			if target == TargetWatch || c.Params["as"] != "" || protobufEncoder.Load() == nil {
				continue
			}
			f.Protobuf = true
			return f, nil
		default:
			continue
		}
		if isYAML && target == TargetWatch && !anyTarget {
			continue
		}
		as := c.Params["as"]
		if as == "" {
			f.YAML = isYAML
			return f, nil
		}
		if c.Params["g"] != "meta.k8s.io" || (c.Params["v"] != "v1" && c.Params["v"] != "v1beta1") {
			continue
		}
		switch {
		case as == "Table":
		case anyTarget && (as == "PartialObjectMetadata" || as == "PartialObjectMetadataList"):
		case as == "PartialObjectMetadata" && target != TargetList:
		case as == "PartialObjectMetadataList" && target == TargetList:
		default:
			continue
		}
		f.YAML, f.As, f.MetaVersion = isYAML, as, c.Params["v"]
		return f, nil
	}
	return f, meta.NewNotAcceptable(SupportedMediaTypes)
}

// EncodeJSON is the JSON serialisation of v as upstream's serializer
// writes it: compact with a trailing newline (json.Encoder), or, when
// pretty, indented by two spaces without one (json.MarshalIndent). It
// returns json.Marshal's error.
func EncodeJSON(v any, pretty bool) ([]byte, error) {
	if pretty {
		return json.MarshalIndent(v, "", "  ")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ProtobufEncoder converts the JSON encoding of an object (its kind and
// apiVersion included) into its Kubernetes protobuf body ("k8s\x00" and a
// runtime.Unknown); it reports false for a kind it has no protobuf
// encoding of. registry/rest registers one (RegisterProtobufEncoder).
type ProtobufEncoder func(jsonBytes []byte) ([]byte, bool)

// protobufEncoder is the registered ProtobufEncoder (nil: protobuf is never
// negotiated).
var protobufEncoder atomic.Pointer[ProtobufEncoder]

// RegisterProtobufEncoder makes Output negotiate protobuf and WriteObject
// and WriteStatus write it with enc. The negotiation package cannot know
// the protobuf schemas (they live above it, in registry/rest); the REST
// layer registers its encoder when it is initialised.
func RegisterProtobufEncoder(enc ProtobufEncoder) { protobufEncoder.Store(&enc) }

// encodeProtobuf returns the protobuf body of v, or false when no encoder
// is registered or v's kind has no protobuf encoding.
func encodeProtobuf(v any) ([]byte, bool) {
	enc := protobufEncoder.Load()
	if enc == nil {
		return nil, false
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return (*enc)(j)
}

// ProtobufAvailable reports whether a ProtobufEncoder is registered, so
// that protobuf may be negotiated.
func ProtobufAvailable() bool { return protobufEncoder.Load() != nil }

// EncodeProtobufJSON returns the protobuf body ("k8s\x00" envelope) of the
// object whose JSON encoding, kind and apiVersion included, is jsonBytes,
// through the registered ProtobufEncoder. It is the seam through which
// packages that must not link the REST layer (discovery) write protobuf
// documents. ok is false when no encoder is registered or the kind has no
// protobuf encoding.
func EncodeProtobufJSON(jsonBytes []byte) (b []byte, ok bool) {
	enc := protobufEncoder.Load()
	if enc == nil {
		return nil, false
	}
	return (*enc)(jsonBytes)
}

// WriteObject writes v in format f with the status code; an object that
// cannot be encoded is answered as a 500 Status instead. With f.Protobuf
// an object whose kind has no protobuf encoding is written as JSON (with
// its JSON Content-Type), which every client that accepts protobuf for a
// built-in kind also reads.
func WriteObject(w http.ResponseWriter, f Format, code int, v any) {
	if f.Protobuf {
		if b, ok := encodeProtobuf(v); ok {
			w.Header().Set("Content-Type", MediaProtobuf)
			w.WriteHeader(code)
			_, _ = w.Write(b)
			return
		}
	}
	b, err := EncodeJSON(v, f.Pretty)
	if err != nil {
		WriteStatus(w, nil, meta.NewInternalError(err))
		return
	}
	ct := MediaJSON
	if f.YAML {
		y, err := yaml.JSONToYAML(b)
		if err != nil {
			WriteStatus(w, nil, meta.NewInternalError(err))
			return
		}
		b, ct = y, MediaYAML
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// AddWarning adds a `Warning: 299 - "<text>"` header (RFC 7234 warn-code
// 299, agent "-"), as upstream's warning recorder does.
func AddWarning(w http.ResponseWriter, text string) {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(text)
	w.Header().Add("Warning", `299 - "`+esc+`"`)
}

// WriteStatus answers err as a metav1.Status with its HTTP code, as
// upstream's responsewriters.ErrorNegotiated does: meta.ToStatus turns err
// into the Status (a *meta.StatusError is used as is, anything else is 500
// InternalError); kind/apiVersion default to Status/v1 and status to
// Failure; Retry-After is set when the details carry retryAfterSeconds.
// The body is protobuf or YAML when the request's Accept header picks it
// (see Output), indented JSON without a newline when no format fits the
// header (upstream's WriteRawJSON), else JSON: compact plus "\n", or indented without a newline when
// the client asks for pretty output (IsPrettyPrint). r may be nil (JSON,
// never pretty). Like upstream's, it sets no X-Content-Type-Options: the
// refusals that carry nosniff upstream (authorization's Forbidden) set it
// themselves. It is the one place aggsim writes a Status error.
func WriteStatus(w http.ResponseWriter, r *http.Request, err error) {
	st := meta.ToStatus(err).Status
	if st.Kind == "" {
		st.Kind, st.APIVersion = "Status", "v1"
	}
	if st.Status == "" {
		st.Status = "Failure"
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	h := w.Header()
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	if r != nil {
		f, ferr := output(r, TargetObject, true)
		if ferr != nil {
			// No format fits the Accept header: upstream's
			// WriteObjectNegotiated writes the Status with WriteRawJSON.
			WriteRawStatus(w, err)
			return
		}
		if f.Protobuf {
			if b, ok := encodeProtobuf(&st); ok {
				h.Set("Content-Type", MediaProtobuf)
				w.WriteHeader(code)
				_, _ = w.Write(b)
				return
			}
		}
		if f.YAML {
			if b, err := EncodeJSON(&st, false); err == nil {
				if y, err := yaml.JSONToYAML(b); err == nil {
					h.Set("Content-Type", MediaYAML)
					w.WriteHeader(code)
					_, _ = w.Write(y)
					return
				}
			}
		}
	}
	h.Set("Content-Type", MediaJSON)
	w.WriteHeader(code)
	body, _ := EncodeJSON(&st, IsPrettyPrint(r))
	_, _ = w.Write(body)
}

// WriteRawStatus answers err as a Status the way upstream's
// responsewriters.WriteRawJSON does when no output format could be
// negotiated: application/json, indented by two spaces, no trailing
// newline, whatever the Accept header and User-Agent.
func WriteRawStatus(w http.ResponseWriter, err error) {
	st := meta.ToStatus(err).Status
	if st.Kind == "" {
		st.Kind, st.APIVersion = "Status", "v1"
	}
	if st.Status == "" {
		st.Status = "Failure"
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", MediaJSON)
	w.WriteHeader(code)
	body, _ := EncodeJSON(&st, true)
	_, _ = w.Write(body)
}

// IsPrettyPrint mirrors upstream's responsewriters.isPrettyPrint: an
// explicit ?pretty=<bool> wins (unparsable means false), else curl, Wget
// and browsers (User-Agent Mozilla/5.0) get indented output. A nil request
// is never pretty.
func IsPrettyPrint(r *http.Request) bool {
	if r == nil {
		return false
	}
	if r.URL != nil && strings.Contains(r.URL.RawQuery, "pretty") {
		if pp := r.URL.Query().Get("pretty"); pp != "" {
			b, _ := strconv.ParseBool(pp)
			return b
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// ObjectMediaTypes are the media types a kube-apiserver route that answers
// one object produces (go-restful Produces of get, create, update, patch,
// delete, deletecollection and discovery routes: the serializer's types).
var ObjectMediaTypes = []string{MediaJSON, MediaYAML, MediaProtobuf}

// ListMediaTypes are what a list route produces: ObjectMediaTypes and the
// watch stream types (installer.go's allMediaTypes).
var ListMediaTypes = []string{MediaJSON, MediaYAML, MediaProtobuf, "application/json;stream=watch", MediaProtobuf + ";stream=watch"}

// RouteAccept mirrors the Accept check of go-restful's route selection
// (RouterJSR311.detectRoute and Route.matchesAccept), which kube-apiserver
// runs before any handler: a request whose Accept header names neither
// "*/*" nor, parameters cut and compared case-sensitively, one of the
// route's produces media types is refused with 406 NotAcceptable
// "406: Not Acceptable\n\nAvailable representations: <produces>" and empty
// details; a POST, PUT or PATCH without a Content-Length header gets the
// same as 415 UnsupportedMediaType "415: Unsupported Media Type...". An
// empty Accept header is "*/*". It returns nil when the route matches.
func RouteAccept(r *http.Request, produces []string) error {
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		mt = strings.TrimSpace(mt)
		if mt == "*/*" || slices.Contains(produces, mt) {
			return nil
		}
	}
	available := strings.Join(produces, ", ")
	if (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch) && r.Header.Get("Content-Length") == "" {
		return routeError(http.StatusUnsupportedMediaType, meta.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type", available)
	}
	return routeError(http.StatusNotAcceptable, meta.StatusReasonNotAcceptable, "406: Not Acceptable", available)
}

// routeError is a go-restful ServiceError as upstream's serviceErrorHandler
// answers it (apierrors.NewGenericServerResponse with no group, kind or
// name: details present and empty).
func routeError(code int, reason, text, available string) error {
	e := meta.NewStatusError(code, reason, text+"\n\nAvailable representations: "+available)
	e.Status.Details = &meta.StatusDetails{}
	return e
}
