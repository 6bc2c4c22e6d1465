package aggregator

import (
	"net/http/httptest"
	"testing"
)

func TestCodeLabel(t *testing.T) {
	for code, want := range map[int]string{100: "100", 200: "200", 504: "504", 599: "599", 600: "600", 42: "42", -1: "-1"} {
		if got := codeLabel(code); got != want {
			t.Errorf("codeLabel(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestDryRunLabelSkipsQueryWithoutDryRun(t *testing.T) {
	for q, want := range map[string]string{
		"":                           "",
		"limit=500":                  "",
		"dryRun=All":                 "All",
		"dryRun=b&dryRun=a&dryRun=b": "a,b",
	} {
		r := httptest.NewRequest("GET", "/api/v1/pods?"+q, nil)
		if got := dryRunLabel(r); got != want {
			t.Errorf("dryRunLabel(%q) = %q, want %q", q, got, want)
		}
	}
}
