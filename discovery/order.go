package discovery

import (
	"cmp"
	"strconv"
	"strings"
)

// versionType ranks the kind of a kube-like version: GA above beta above alpha.
type versionType int

const (
	versionAlpha versionType = iota
	versionBeta
	versionGA
)

// parseKubeVersion splits a version that fully matches
// ^v(\d+)(?:(alpha|beta)(\d+))?$ into its major number, type and minor
// number. ok is false for every other string ("v1beta", "v1.0", "foo1"),
// and when a number does not fit an int (as strconv.Atoi fails upstream).
func parseKubeVersion(v string) (major int, typ versionType, minor int, ok bool) {
	if len(v) < 2 || v[0] != 'v' {
		return 0, 0, 0, false
	}
	rest := v[1:]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, 0, 0, false
	}
	major, err := strconv.Atoi(rest[:i])
	if err != nil {
		return 0, 0, 0, false
	}
	rest = rest[i:]
	if rest == "" {
		return major, versionGA, 0, true
	}
	switch {
	case strings.HasPrefix(rest, "alpha"):
		typ, rest = versionAlpha, rest[len("alpha"):]
	case strings.HasPrefix(rest, "beta"):
		typ, rest = versionBeta, rest[len("beta"):]
	default:
		return 0, 0, 0, false
	}
	if rest == "" {
		return 0, 0, 0, false
	}
	for j := 0; j < len(rest); j++ {
		if rest[j] < '0' || rest[j] > '9' {
			return 0, 0, 0, false
		}
	}
	minor, err = strconv.Atoi(rest)
	if err != nil {
		return 0, 0, 0, false
	}
	return major, typ, minor, true
}

// CompareKubeAwareVersionStrings compares two version names the way
// Kubernetes orders versions (k8s.io/apimachinery/pkg/version/helpers.go).
// It returns a positive number when a sorts before b (a is "newer"), a
// negative one when b sorts first, and 0 when they are equal.
//
// Kube-like versions (v<major>, v<major>beta<minor>, v<major>alpha<minor>)
// come before every other string; among them GA > beta > alpha, then the
// higher major, then the higher minor ("v10" > "v2"). Other strings sort
// lexicographically, smaller string first ("bar1" before "foo1"). As
// upstream, "v01" and "v1" compare equal.
func CompareKubeAwareVersionStrings(a, b string) int {
	if a == b {
		return 0
	}
	aMajor, aType, aMinor, aOK := parseKubeVersion(a)
	bMajor, bType, bMinor, bOK := parseKubeVersion(b)
	switch {
	case !aOK && !bOK:
		return strings.Compare(b, a)
	case !aOK:
		return -1
	case !bOK:
		return 1
	}
	if aType != bType {
		return int(aType) - int(bType)
	}
	if aMajor != bMajor {
		return cmp.Compare(aMajor, bMajor)
	}
	return cmp.Compare(aMinor, bMinor)
}

// compareVersions orders two APIServices of one group: higher
// versionPriority first, then kube-aware version order. It returns a
// negative number when a sorts first, as slices.SortFunc expects.
func compareVersions(a, b *APIService) int {
	if a.VersionPriority != b.VersionPriority {
		return cmp.Compare(b.VersionPriority, a.VersionPriority)
	}
	return -CompareKubeAwareVersionStrings(a.Version, b.Version)
}

// compareLegacyGroups orders groups in legacy /apis
// (kube-aggregator helper.SortedByGroupAndVersion): a group sits where its
// first APIService sits in the list sorted by groupPriorityMinimum desc, then
// APIService name asc. So the key is the group's highest
// groupPriorityMinimum, then the smallest APIService name at that priority.
func compareLegacyGroups(a, b *groupState) int {
	if a.maxGPM != b.maxGPM {
		return cmp.Compare(b.maxGPM, a.maxGPM)
	}
	return strings.Compare(a.legacyTieName, b.legacyTieName)
}

// compareAggregatedGroups orders groups in aggregated discovery
// (apiserver endpoints/discovery/aggregated/handler.go): the highest
// groupPriorityMinimum of the group's contributing versions first, ties by
// group name.
func compareAggregatedGroups(a, b *aggGroup) int {
	if a.maxGPM != b.maxGPM {
		return cmp.Compare(b.maxGPM, a.maxGPM)
	}
	return strings.Compare(a.name, b.name)
}
