package aggregator

import (
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// credentialFields is the set of request header fields authentication
// removes from every authenticated request (WithAuthentication): Authorization,
// the standard front-proxy fields (X-Remote-User, -Uid, -Group, and every
// field starting with X-Remote-Extra- in any case) and the configured
// --requestheader-* ones, as upstream's authentication filter and
// requestheader authenticator remove them. It is resolved once per chain,
// so a request costs one pass over its own few fields instead of a
// deletion per configured name and a pass per prefix (issue 21).
type credentialFields struct {
	// names are removed as http.Header.Del removes them: by canonical key.
	names []string
	// prefixes remove every field whose name starts with one, in any case.
	prefixes []string
}

// newCredentialFields returns the fields removed for a chain whose
// front-proxy options are rh (nil: none configured; rh's names must be
// resolved, as newAuthenticator does).
func newCredentialFields(rh *RequestHeaderOptions) *credentialFields {
	c := &credentialFields{}
	addNames := func(lists ...[]string) {
		for _, l := range lists {
			for _, n := range l {
				n = textproto.CanonicalMIMEHeaderKey(n)
				if !slices.Contains(c.names, n) {
					c.names = append(c.names, n)
				}
			}
		}
	}
	addPrefixes := func(l []string) {
		for _, p := range l {
			if !slices.Contains(c.prefixes, p) {
				c.prefixes = append(c.prefixes, p)
			}
		}
	}
	std := &standardRequestHeaders
	addNames([]string{"Authorization"}, std.UsernameHeaders, std.UIDHeaders, std.GroupHeaders)
	addPrefixes(std.ExtraHeaderPrefixes)
	if rh != nil {
		u, uid, g, e := rh.names()
		addNames(u, uid, g)
		addPrefixes(e)
	}
	return c
}

// clear removes c's fields from h and reports whether a field that
// asks for impersonation (asksImpersonation) is left, so that the chain
// need not look for one in a second pass.
func (c *credentialFields) clear(h http.Header) (impersonates bool) {
	for k := range h {
		if c.matches(k) {
			delete(h, k)
		} else if strings.HasPrefix(k, impersonatePrefix) {
			impersonates = true
		}
	}
	return impersonates
}

// matches reports whether the field named k is one of c's.
func (c *credentialFields) matches(k string) bool {
	for _, n := range c.names {
		if k == n {
			return true
		}
	}
	for _, p := range c.prefixes {
		if len(k) >= len(p) && strings.EqualFold(k[:len(p)], p) {
			return true
		}
	}
	return false
}
