package meta

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The hand-written name matchers accept exactly what the regular
// expressions upstream's messages quote accept: every string of up to 4
// characters over an alphabet with each character class (and '/', a
// newline, a space, a non-ASCII byte), and 50,000 random longer ones.
func TestNameMatchersAgreeWithRegexps(t *testing.T) {
	for _, c := range []struct {
		name  string
		re    *regexp.Regexp
		match func(string) bool
	}{
		{"dns1123Label", regexp.MustCompile("^" + dns1123LabelFmt + "$"), matchDNS1123Label},
		{"dns1123Subdomain", regexp.MustCompile("^" + dns1123SubdomainFmt + "$"), matchDNS1123Subdomain},
		{"qualifiedName", regexp.MustCompile("^" + qualifiedNameFmt + "$"), matchQualifiedNamePart},
		{"labelValue", regexp.MustCompile("^" + labelValueFmt + "$"), func(s string) bool { return s == "" || matchQualifiedNamePart(s) }},
	} {
		const alphabet = "a9Z-._/\n \xc3"
		check := func(s string) bool {
			if got, want := c.match(s), c.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, the regexp says %v", c.name, s, got, want)
				return false
			}
			return true
		}
		var all func(prefix string, n int) bool
		all = func(prefix string, n int) bool {
			if !check(prefix) {
				return false
			}
			if n == 0 {
				return true
			}
			for i := 0; i < len(alphabet); i++ {
				if !all(prefix+alphabet[i:i+1], n-1) {
					return false
				}
			}
			return true
		}
		all("", 4)
		r := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, 0, 64)
		for i := 0; i < 50000; i++ {
			b = b[:0]
			for n := r.IntN(40); n > 0; n-- {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
			if !check(string(b)) {
				break
			}
		}
	}
}

// BenchmarkNameMatch checks a bootstrap object's name and label key by
// hand (hand) and with the regular expressions (regexp).
func BenchmarkNameMatch(b *testing.B) {
	sub := regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	qual := regexp.MustCompile("^" + qualifiedNameFmt + "$")
	const name, key = "system.controller.clusterrole-aggregation-controller", "bootstrapping"
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			if !matchDNS1123Subdomain(name) || !matchQualifiedNamePart(key) {
				b.Fatal("no match")
			}
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			if !sub.MatchString(name) || !qual.MatchString(key) {
				b.Fatal("no match")
			}
		}
	})
}
