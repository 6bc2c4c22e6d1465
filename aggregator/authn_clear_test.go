package aggregator

import (
	"net/http"
	"slices"
	"testing"
)

// TestCredentialFieldsClear pins which fields an authenticated request
// loses: Authorization and the front-proxy fields by canonical name (as
// http.Header.Del removes them, so a non-canonical key such as
// "x-remote-user" set directly in the map stays), extra prefixes in any
// case, the configured --requestheader-* names besides the standard ones;
// everything else stays. clear also tells whether an Impersonate-* field
// is left, as asksImpersonation would after it.
func TestCredentialFieldsClear(t *testing.T) {
	header := func() http.Header {
		return http.Header{
			"Accept":             {"application/json"},
			"Authorization":      {"Bearer x"},
			"authorization":      {"lower, not canonical"},
			"X-Remote-User":      {"evil"},
			"x-remote-user":      {"lower, not canonical"},
			"X-Remote-Uid":       {"1"},
			"X-Remote-Group":     {"system:masters"},
			"X-Remote-Extra-Foo": {"bar"},
			"x-remote-extra-bar": {"baz"},
			"X-Remote-Other":     {"kept"},
			"X-My-User":          {"configured"},
			"X-My-Extra-A":       {"configured extra"},
			"x-my-extra-b":       {"configured extra, lower"},
			"Audit-Id":           {"id"},
		}
	}
	for _, tc := range []struct {
		name string
		rh   *RequestHeaderOptions
		add  http.Header
		want []string
		// impersonates is what clear and asksImpersonation must say.
		impersonates bool
	}{
		{name: "no front proxy", want: []string{"Accept", "Audit-Id", "X-My-Extra-A", "X-My-User", "X-Remote-Other",
			"authorization", "x-my-extra-b", "x-remote-user"}},
		{name: "front proxy, default names", rh: &RequestHeaderOptions{}, want: []string{"Accept", "Audit-Id", "X-My-Extra-A",
			"X-My-User", "X-Remote-Other", "authorization", "x-my-extra-b", "x-remote-user"}},
		{name: "front proxy, own names", rh: &RequestHeaderOptions{UsernameHeaders: []string{"x-my-user"},
			ExtraHeaderPrefixes: []string{"X-My-Extra-"}}, want: []string{"Accept", "Audit-Id", "X-Remote-Other",
			"authorization", "x-remote-user"}},
		{name: "impersonation asked", add: http.Header{"Impersonate-User": {"bob"}}, want: []string{"Accept", "Audit-Id",
			"Impersonate-User", "X-My-Extra-A", "X-My-User", "X-Remote-Other", "authorization", "x-my-extra-b", "x-remote-user"},
			impersonates: true},
		{name: "impersonation field removed as a credential", rh: &RequestHeaderOptions{ExtraHeaderPrefixes: []string{"Impersonate-"}},
			add: http.Header{"Impersonate-User": {"bob"}}, want: []string{"Accept", "Audit-Id", "X-My-Extra-A",
				"X-My-User", "X-Remote-Other", "authorization", "x-my-extra-b", "x-remote-user"}},
		{name: "lower-case impersonation field is not asked", add: http.Header{"impersonate-user": {"bob"}}, want: []string{"Accept", "Audit-Id",
			"X-My-Extra-A", "X-My-User", "X-Remote-Other", "authorization", "impersonate-user", "x-my-extra-b", "x-remote-user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthenticator(AuthnOptions{RequestHeader: tc.rh}, nil)
			h := header()
			for k, v := range tc.add {
				h[k] = v
			}
			impersonates := a.credentials.clear(h)
			if impersonates != tc.impersonates || asksImpersonation(h) != tc.impersonates {
				t.Errorf("clear says impersonates %v, asksImpersonation after it %v; want %v", impersonates, asksImpersonation(h), tc.impersonates)
			}
			var got []string
			for k := range h {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("fields left:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
