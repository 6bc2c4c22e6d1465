package proxy

import (
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/registry/apis/authentication"
)

// checkStringFunc calls f on each key of cases and fails for every result
// that is not the key's value; name is f's name in the messages.
func checkStringFunc(t *testing.T, name string, f func(string) string, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		if got := f(in); got != want {
			t.Errorf("%s(%q) = %q, want %q", name, in, got, want)
		}
	}
}

func TestExtraHeaderName(t *testing.T) {
	checkStringFunc(t, "ExtraHeaderName", ExtraHeaderName, map[string]string{
		"authentication.kubernetes.io/credential-id": "X-Remote-Extra-Authentication.kubernetes.io%2fcredential-Id",
		"acme.com/project":                           "X-Remote-Extra-Acme.com%2fproject",
		"reason":                                     "X-Remote-Extra-Reason",
		"example.com/Key x":                          "X-Remote-Extra-Example.com%2fkey%20x",
		"a%b":                                        "X-Remote-Extra-A%25b",
		"é":                                          "X-Remote-Extra-%c3%a9",
	})
}

// TestSetIdentityHeaders: client-sent credentials and identity headers of
// any case are gone; the identity is set with one field per group and per
// extra value; other headers are untouched.
func TestSetIdentityHeaders(t *testing.T) {
	h := http.Header{
		"Authorization":         {"Bearer t"},
		"authorization":         {"Basic x"},
		"Impersonate-User":      {"root"},
		"Impersonate-Extra-Foo": {"x"},
		"X-Remote-User":         {"system:admin"},
		"x-remote-group":        {"system:masters"},
		"X-Remote-Extra-Scopes": {"all"},
		"X-Remote-Uid":          {"0"},
		"X-Remoteuser":          {"kept"},
		"Accept":                {"application/json"},
		"X-Forwarded-For":       {"192.0.2.1"},
	}
	SetIdentityHeaders(h, &authentication.UserInfo{
		Username: "jane", UID: "u-1", Groups: []string{"devs", "qa", "system:authenticated"},
		Extra: map[string][]string{"scopes": {"a", "b"}, "acme.com/project": {"p1"}, "empty": nil},
	})
	want := http.Header{
		"X-Remoteuser":                      {"kept"},
		"Accept":                            {"application/json"},
		"X-Forwarded-For":                   {"192.0.2.1"},
		"X-Remote-User":                     {"jane"},
		"X-Remote-Uid":                      {"u-1"},
		"X-Remote-Group":                    {"devs", "qa", "system:authenticated"},
		"X-Remote-Extra-Scopes":             {"a", "b"},
		"X-Remote-Extra-Acme.com%2fproject": {"p1"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("headers:\n%s", headerDiff(h, want))
	}
}

func TestForwardedURIAndQuery(t *testing.T) {
	checkStringFunc(t, "forwardedURI", forwardedURI, map[string]string{
		"/apis/g/v/ns/x/encoded path": "/apis/g/v/ns/x/encoded%20path",
		"/apis/g/v/":                  "/apis/g/v/",
		"/apis/g/v/./a//b":            "/apis/g/v/a/b",
		"/":                           "//",
	})
	checkStringFunc(t, "encodeQuery", encodeQuery, map[string]string{
		"":                  "",
		"b=2&a=1&a=0&z=%2F": "a=1&a=0&b=2&z=%2F",
		"zeta=1&alpha=a%20b&labelSelector=app%3Dx,tier!%3Dfe&empty=&dup=2&dup=1&plus=a+b&semi=x;y": "alpha=a+b&dup=2&dup=1&empty=&labelSelector=app%3Dx%2Ctier%21%3Dfe&plus=a+b&zeta=1",
		"watch": "watch=",
	})
}

// FuzzSetIdentityHeaders checks, for any client header and any user, that
// after SetIdentityHeaders no credential or client identity header is
// left, the identity headers carry exactly the user (every extra key
// round-trips through the escaping), and every other header is untouched.
func FuzzSetIdentityHeaders(f *testing.F) {
	f.Add("X-Remote-User", "system:admin", "jane", "u", "devs,qa", "acme.com/Project x", "v1")
	f.Add("impersonate-group", "system:masters", "", "", "", "a%b", "")
	f.Add("Authorization", "Bearer x", "bob", "", "system:authenticated", "authentication.kubernetes.io/credential-id", "X509SHA256=00")
	f.Add("X-Custom", "kept", "é", "", ",", "\x00\xff/:", "v")
	f.Fuzz(func(t *testing.T, hk, hv, name, uid, groups, extraKey, extraVal string) {
		h := http.Header{hk: {hv}, "X-Remote-Extra-" + extraKey: {"spoof"}}
		orig := h.Clone()
		u := &authentication.UserInfo{Username: name, UID: uid, Extra: map[string][]string{extraKey: {extraVal, extraVal + "2"}}}
		if groups != "" {
			u.Groups = strings.Split(groups, ",")
		}
		SetIdentityHeaders(h, u)

		identity := map[string]bool{}
		for k := range h {
			lk := strings.ToLower(k)
			if strings.HasPrefix(lk, "impersonate-") || lk == "authorization" {
				t.Fatalf("credential header %q survived", k)
			}
			if strings.HasPrefix(lk, "x-remote-") {
				identity[k] = true
				continue
			}
			if !reflect.DeepEqual(h[k], orig[k]) {
				t.Fatalf("unrelated header %q changed: %q -> %q", k, orig[k], h[k])
			}
		}
		if !reflect.DeepEqual(h["X-Remote-User"], []string{name}) {
			t.Fatalf("X-Remote-User = %q", h["X-Remote-User"])
		}
		wantIDs := []string{"X-Remote-User"}
		if uid != "" {
			wantIDs = append(wantIDs, "X-Remote-Uid")
			if !reflect.DeepEqual(h["X-Remote-Uid"], []string{uid}) {
				t.Fatalf("X-Remote-Uid = %q", h["X-Remote-Uid"])
			}
		}
		if len(u.Groups) > 0 {
			wantIDs = append(wantIDs, "X-Remote-Group")
			if !reflect.DeepEqual(h["X-Remote-Group"], u.Groups) {
				t.Fatalf("X-Remote-Group = %q", h["X-Remote-Group"])
			}
		}
		en := ExtraHeaderName(extraKey)
		wantIDs = append(wantIDs, en)
		if !reflect.DeepEqual(h[en], []string{extraVal, extraVal + "2"}) {
			t.Fatalf("%s = %q", en, h[en])
		}
		var got []string
		for k := range identity {
			got = append(got, k)
		}
		sort.Strings(got)
		sort.Strings(wantIDs)
		if !reflect.DeepEqual(got, wantIDs) {
			t.Fatalf("identity headers %q, want %q", got, wantIDs)
		}
		// The extra header name is a valid token and decodes to the key.
		suffix := strings.TrimPrefix(en, HeaderRemoteExtraPrefix)
		for i := 0; i < len(suffix); i++ {
			if !isTokenByte(suffix[i]) {
				t.Fatalf("header name %q has non-token byte %q", en, suffix[i])
			}
		}
		dec, err := url.PathUnescape(suffix)
		if err != nil || !strings.EqualFold(dec, extraKey) {
			t.Fatalf("%q decodes to %q (%v), want %q", en, dec, err, extraKey)
		}
	})
}
