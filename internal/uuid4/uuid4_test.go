package uuid4

import (
	"regexp"
	"testing"
)

func TestFormat(t *testing.T) {
	var b [16]byte
	for i := range b {
		b[i] = byte(0xf0 + i%16)
	}
	// Version nibble 4 at byte 6, variant 10xx at byte 8.
	const want = "f0f1f2f3-f4f5-46f7-b8f9-fafbfcfdfeff"
	if got := Format(b); got != want {
		t.Fatalf("Format = %q, want %q", got, want)
	}
	if got := Format([16]byte{}); got != "00000000-0000-4000-8000-000000000000" {
		t.Fatalf("Format(zero) = %q", got)
	}
}

func TestNew(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		u := New()
		if !re.MatchString(u) {
			t.Fatalf("New() = %q, not a version 4 UUID", u)
		}
		if seen[u] {
			t.Fatalf("New() repeated %q", u)
		}
		seen[u] = true
	}
}
