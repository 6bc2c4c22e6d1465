//go:build race

package aggregatortest

// raceEnabled: the race detector slows CEL evaluation about fourteenfold
// (TestPolicyCELMatchesReference: 5.9 s without it, 82 s with it).
const raceEnabled = true
