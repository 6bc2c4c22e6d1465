//go:build !race

package rest

// raceAllocFactor is 1 without the race detector (see race_on_test.go).
const raceAllocFactor = 1
