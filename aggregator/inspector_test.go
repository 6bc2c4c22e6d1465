package aggregator

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

func TestRedactHeader(t *testing.T) {
	in := http.Header{
		"Authorization":       {"Bearer abc.def"},
		"Proxy-Authorization": {"Basic Zm9vOmJhcg==", "opaque"},
		"Cookie":              {"session=1"},
		"X-Api-Token":         {"t"},
		"X-Client-Secret":     {"s"},
		"X-Remote-User":       {"jane"},
	}
	want := http.Header{
		"Authorization":       {"Bearer <redacted>"},
		"Proxy-Authorization": {"Basic <redacted>", "<redacted>"},
		"Cookie":              {"<redacted>"},
		"X-Api-Token":         {"<redacted>"},
		"X-Client-Secret":     {"<redacted>"},
		"X-Remote-User":       {"jane"},
	}
	orig := in.Clone()
	if got := redactHeader(in, false); !reflect.DeepEqual(got, want) {
		t.Errorf("redactHeader = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Errorf("redactHeader(own=false) changed its input: %v", in)
	}
	clean := http.Header{"Accept": {"application/json"}}
	if got := redactHeader(clean, false); reflect.ValueOf(got).Pointer() != reflect.ValueOf(clean).Pointer() {
		t.Error("a header without secrets was copied")
	}
	if got := redactHeader(in, true); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(in, want) {
		t.Errorf("redactHeader(own=true) = %v, input %v", got, in)
	}
	if got := redactQuery("watch=1&access_token=abc&x=y"); got != "watch=1&access_token=%3Credacted%3E&x=y" {
		t.Errorf("redactQuery = %q", got)
	}
}

func TestRequestFilter(t *testing.T) {
	rec := &InspectedRequest{ID: 7, GroupVersion: "wardle.example.com/v1alpha1", Code: 403,
		Authentication: InspectedAuthentication{User: &InspectedUser{Username: "admin"}},
		Impersonation:  &InspectedImpersonation{User: &InspectedUser{Username: "jane"}}}
	for q, want := range map[string]bool{
		"":                                   true,
		"user=jane":                          true,
		"user=admin":                         true,
		"user=bob":                           false,
		"groupVersion=wardle.example.com":    true,
		"groupVersion=wardle.example.com/v1": false,
		"code=403":                           true,
		"code=4xx":                           true,
		"code=2xx":                           false,
		"after=6":                            true,
		"after=7":                            false,
		"user=jane&code=403&groupVersion=wardle.example.com/v1alpha1": true,
	} {
		v, _ := url.ParseQuery(q)
		if got := ParseRequestFilter(v).Match(rec); got != want {
			t.Errorf("%q: Match = %v, want %v", q, got, want)
		}
	}
}
