//go:build !race

package celrules

const raceEnabled = false
