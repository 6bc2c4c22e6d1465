// Package stackstart keeps the Go runtime's starting stack size for new
// goroutines at 8 KiB in a server whose many idle goroutines would
// otherwise keep it at 2–4 KiB (issue 21).
//
// It owns one ballast goroutine and nothing else: it must not import
// aggsim packages, and nothing in it runs on a request's path.
package stackstart
