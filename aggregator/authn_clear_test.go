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
// everything else stays.
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
		want []string
	}{
		{name: "no front proxy", want: []string{"Accept", "Audit-Id", "X-My-Extra-A", "X-My-User", "X-Remote-Other",
			"authorization", "x-my-extra-b", "x-remote-user"}},
		{name: "front proxy, default names", rh: &RequestHeaderOptions{}, want: []string{"Accept", "Audit-Id", "X-My-Extra-A",
			"X-My-User", "X-Remote-Other", "authorization", "x-my-extra-b", "x-remote-user"}},
		{name: "front proxy, own names", rh: &RequestHeaderOptions{UsernameHeaders: []string{"x-my-user"},
			ExtraHeaderPrefixes: []string{"X-My-Extra-"}}, want: []string{"Accept", "Audit-Id", "X-Remote-Other",
			"authorization", "x-remote-user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuthenticator(AuthnOptions{RequestHeader: tc.rh}, nil)
			h := header()
			a.credentials.clear(h)
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
