package proxy

import (
	"net"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// The front-proxy (requestheader) identity headers a backend trusts when
// the request comes with the front-proxy client certificate
// (client-go/transport/round_trippers.go SetAuthProxyHeaders).
const (
	HeaderRemoteUser        = "X-Remote-User"
	HeaderRemoteUID         = "X-Remote-Uid"
	HeaderRemoteGroup       = "X-Remote-Group"
	HeaderRemoteExtraPrefix = "X-Remote-Extra-"
)

// SetIdentityHeaders makes h carry exactly u's identity and no client
// credential: it deletes Authorization, every Impersonate-* header and
// every X-Remote-* header (whatever their case), then sets X-Remote-User
// (even when the name is empty, as upstream does), X-Remote-Uid when u has
// a UID, one X-Remote-Group field per group in order, and one
// X-Remote-Extra-<escaped key> field per extra value (keys in sorted
// order; see ExtraHeaderName for the escaping). A nil u only strips.
func SetIdentityHeaders(h http.Header, u *authentication.UserInfo) {
	for k := range h {
		if hasPrefixFold(k, "X-Remote-") || hasPrefixFold(k, "Impersonate-") || strings.EqualFold(k, "Authorization") {
			delete(h, k)
		}
	}
	if u == nil {
		return
	}
	// X-Remote-User and X-Remote-Uid share one backing array; the
	// three-index slices keep an append to one from reaching the other.
	vals := []string{u.Username, u.UID}
	h[HeaderRemoteUser] = vals[0:1:1]
	if u.UID != "" {
		h[HeaderRemoteUID] = vals[1:2:2]
	}
	if len(u.Groups) > 0 {
		h[HeaderRemoteGroup] = append([]string(nil), u.Groups...)
	}
	if len(u.Extra) == 0 {
		return
	}
	keys := make([]string, 0, len(u.Extra))
	for k := range u.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(u.Extra[k]) == 0 {
			continue
		}
		name := ExtraHeaderName(k)
		h[name] = append(h[name], u.Extra[k]...)
	}
}

// ExtraHeaderName returns the canonical header name that carries the user
// extra key: "X-Remote-Extra-" + the key with every byte that is not an
// RFC 7230 token character, and '%' itself, written as %XX (upper-case
// hex), then put in Go's canonical form, which lower-cases letters not
// following '-' (so "/" ends up as "%2f"):
// "authentication.kubernetes.io/credential-id" →
// "X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id".
// Mirrors headerKeyEscape in client-go/transport/round_trippers.go.
func ExtraHeaderName(key string) string {
	var b strings.Builder
	b.Grow(len(HeaderRemoteExtraPrefix) + len(key) + 8)
	b.WriteString(HeaderRemoteExtraPrefix)
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '%' || !isTokenByte(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return http.CanonicalHeaderKey(b.String())
}

// isTokenByte reports whether c is an RFC 7230 tchar.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// setForwardedHeaders sets the X-Forwarded-* headers upstream's proxy sends
// (apimachinery/pkg/util/proxy/transport.go and httputil):
// X-Forwarded-For = client-sent values + the client IP; and, except on an
// upgrade request, X-Forwarded-Host = the dialled host:port,
// X-Forwarded-Proto = https and X-Forwarded-Uri = the cleaned, escaped
// target path. Client-sent X-Forwarded-Host/Proto/Uri never survive.
func setForwardedHeaders(out http.Header, in *http.Request, host, targetPath string, upgrade bool) {
	// The single values share one backing array (one allocation instead of
	// four); the three-index slices keep an append to one header from
	// reaching the next.
	vals := make([]string, 4)
	if ip, _, err := net.SplitHostPort(in.RemoteAddr); err == nil {
		if prior := in.Header["X-Forwarded-For"]; len(prior) > 0 {
			ip = strings.Join(prior, ", ") + ", " + ip
		}
		vals[0] = ip
		out["X-Forwarded-For"] = vals[0:1:1]
	} else {
		delete(out, "X-Forwarded-For")
	}
	delete(out, "X-Forwarded-Uri")
	if upgrade {
		delete(out, "X-Forwarded-Host")
		delete(out, "X-Forwarded-Proto")
		return
	}
	vals[1], vals[2], vals[3] = forwardedURI(targetPath), host, "https"
	out["X-Forwarded-Uri"] = vals[1:2:2]
	out["X-Forwarded-Host"] = vals[2:3:3]
	out["X-Forwarded-Proto"] = vals[3:4:4]
}

// forwardedURI returns the X-Forwarded-Uri value for a decoded path: the
// escaped path, cleaned, with a trailing '/' kept (upstream joins it with
// path.Join, so "/" becomes "//").
func forwardedURI(p string) string {
	u := url.URL{Path: p}
	s := u.EscapedPath()
	if s != "" {
		s = path.Clean(s) // path.Join("", s) without its copies
	}
	if strings.HasSuffix(p, "/") {
		s += "/"
	}
	return s
}

// encodeQuery re-encodes a raw query as upstream forwards it: parsed and
// re-encoded with sorted keys and form encoding; pairs Go's parser rejects
// (such as ones containing ';') are dropped (FINDINGS §3, c10).
func encodeQuery(raw string) string {
	if raw == "" {
		return ""
	}
	v, _ := url.ParseQuery(raw)
	return v.Encode()
}

// corsHeaders are removed from backend responses
// (apimachinery/pkg/util/proxy/transport.go corsRemovingTransport).
var corsHeaders = [...]string{
	"Access-Control-Allow-Credentials",
	"Access-Control-Allow-Headers",
	"Access-Control-Allow-Methods",
	"Access-Control-Allow-Origin",
}

// rewriteLocation returns the Location value upstream sends on: an
// absolute path with no host, or a URL on the backend's own host, is
// pointed at https://<backend host><path>; other hosts, relative references
// and unparsable values are left alone.
func rewriteLocation(loc, backendHost string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	if u.Host != "" && u.Host != backendHost {
		return loc
	}
	if !strings.HasPrefix(u.Path, "/") {
		return loc
	}
	u.Scheme = "https"
	u.Host = backendHost
	return u.String()
}
