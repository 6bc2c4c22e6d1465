//go:build race

package rest

// raceAllocFactor widens the allocation bounds of bounded_test.go under the
// race detector, which allocates on its own for what it tracks.
const raceAllocFactor = 3
