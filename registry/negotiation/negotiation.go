package negotiation

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

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

// Clause is one media range of an Accept header: type and subtype lower
// case ("*" for wildcards), its quality (1 when absent) and its other
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
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
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
	// As is "", "Table", "PartialObjectMetadata" or
	// "PartialObjectMetadataList"; MetaVersion is "v1" or "v1beta1" when
	// As is set.
	As, MetaVersion string
	// Pretty asks for indented JSON (see IsPrettyPrint).
	Pretty bool
}

// Output picks the response format of a resource request from its Accept
// header as upstream's negotiation does: the first acceptable clause in
// preference order wins; protobuf is skipped (aggsim writes JSON and YAML
// only); YAML does not fit a watch. An empty header is JSON. When nothing
// fits it returns a 406 meta.NewNotAcceptable error.
func Output(r *http.Request, target Target) (Format, error) {
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
		default:
			continue
		}
		if isYAML && target == TargetWatch {
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

// WriteObject writes v in format f with the status code; an object that
// cannot be encoded is answered as a 500 Status instead.
func WriteObject(w http.ResponseWriter, f Format, code int, v any) {
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
// The body is YAML when the request's Accept header picks YAML (see
// Output), else JSON: compact plus "\n", or indented without a newline when
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
		if f, ferr := Output(r, TargetObject); ferr == nil && f.YAML {
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
