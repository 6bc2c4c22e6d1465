package rest

import (
	"testing"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// TestOpenAPIAcceptsJSON: the Accept headers /openapi/v2 answers with JSON
// (aggregator and demo share this check).
func TestOpenAPIAcceptsJSON(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"", true},
		{"application/json", true},
		{"application/json;q=0.9", true},
		{" application/* ", true},
		{"*/*", true},
		{"application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json;q=0.5", true},
		{"application/yaml", false},
		{"text/*", false},
		{"application/jsonx", false},
		{",", false},
	} {
		if got := registry.OpenAPIAcceptsJSON(tc.accept); got != tc.want {
			t.Errorf("OpenAPIAcceptsJSON(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}

// TestAcceptNames: exact media-range match, parameters ignored, wildcards
// only match themselves.
func TestAcceptNames(t *testing.T) {
	types := []string{"application/a", "application/b"}
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"application/b;g=x", true},
		{"text/plain, application/a", true},
		{"application/*", false},
		{"*/*", false},
		{"", false},
	} {
		if got := negotiation.Names(tc.accept, types...); got != tc.want {
			t.Errorf("negotiation.Names(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}
