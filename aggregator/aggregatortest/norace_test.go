//go:build !race

package aggregatortest

const raceEnabled = false
