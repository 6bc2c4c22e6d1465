package meta

import "strings"

// The name checks that run for every object written (metadata names,
// label keys and values, annotation keys) match by hand what their
// regular expressions (dns1123LabelFmt, dns1123SubdomainFmt,
// qualifiedNameFmt, labelValueFmt) match, without the regexp package's
// backtracker (BenchmarkNameMatch). TestNameMatchersAgreeWithRegexps
// compares them.

// isAlnumLower reports whether c is in [a-z0-9].
func isAlnumLower(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// isAlnum reports whether c is in [A-Za-z0-9].
func isAlnum(c byte) bool { return isAlnumLower(c) || c >= 'A' && c <= 'Z' }

// matchDNS1123Label reports whether s matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$.
func matchDNS1123Label(s string) bool {
	if s == "" || !isAlnumLower(s[0]) || !isAlnumLower(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnumLower(c) && c != '-' {
			return false
		}
	}
	return true
}

// matchDNS1123Subdomain reports whether s is DNS-1123 labels joined by
// dots (dns1123SubdomainFmt).
func matchDNS1123Subdomain(s string) bool {
	for {
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return matchDNS1123Label(s)
		}
		if !matchDNS1123Label(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

// matchQualifiedNamePart reports whether s matches
// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$.
func matchQualifiedNamePart(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
