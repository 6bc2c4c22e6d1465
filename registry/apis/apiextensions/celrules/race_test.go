//go:build race

package celrules

// raceEnabled: the race detector slows CEL evaluation about tenfold.
const raceEnabled = true
