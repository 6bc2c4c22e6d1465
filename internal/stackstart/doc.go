// Package stackstart spares goroutines the cost of growing their stacks
// (issue 21): Keep holds a ballast goroutine that keeps the Go runtime's
// starting stack size for new goroutines at 8 KiB in a server whose many
// idle goroutines would otherwise keep it at 2 KiB, and Grow takes one
// goroutine that is about to go deep to 16 KiB in a single step.
//
// It imports no aggsim package and holds no state but Keep's ballast
// (and its size, for tests).
package stackstart
