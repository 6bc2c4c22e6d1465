package request

import (
	"strings"
	"testing"
)

// TestSegmentsAndLowerMethod checks NewRequestInfo's shortcuts against
// what they stand for: segments(p) is len(splitPath(p)), lowerMethod(m)
// is strings.ToLower(m).
func TestSegmentsAndLowerMethod(t *testing.T) {
	for _, p := range []string{"", "/", "//", "/apis", "/apis/", "apis", "/apis/g", "/apis/g/", "/apis//g", "/apis/g/v",
		"/apis/g/v/", "//apis/g/v//", "/api/v1/namespaces/default/pods/x", "/healthz", "/readyz/etcd", "/a//b"} {
		if got, want := segments(p), len(splitPath(p)); got != want {
			t.Errorf("segments(%q) = %d, want %d", p, got, want)
		}
	}
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE", "get", "Foo", ""} {
		if got, want := lowerMethod(m), strings.ToLower(m); got != want {
			t.Errorf("lowerMethod(%q) = %q, want %q", m, got, want)
		}
	}
}
