package registry

import (
	"encoding/json"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"net/http"
	"strconv"
	"strings"
)

// WriteStatus answers err as a metav1.Status JSON with its HTTP code, as
// upstream's responsewriters.ErrorNegotiated does for JSON: ToStatus turns
// err into the Status (a *StatusError is used as is, anything else is 500
// InternalError); kind/apiVersion default to Status/v1 and status to
// Failure; Content-Type application/json and X-Content-Type-Options nosniff
// are set, and Retry-After when the details carry retryAfterSeconds. The
// body is compact JSON plus "\n", or indented JSON without a trailing
// newline when the client asks for pretty output (?pretty=true, or a curl,
// Wget or browser User-Agent, as upstream's isPrettyPrint decides). r may be
// nil (never pretty). It is the one place aggsim writes a Status error.
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
	h.Set("Content-Type", MediaJSON)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	var body []byte
	if IsPrettyPrint(r) {
		body, _ = json.MarshalIndent(&st, "", "  ")
	} else {
		body, _ = json.Marshal(&st)
		body = append(body, '\n')
	}
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
