// Package archtest holds the tests that keep aggsim's package layering:
// which package may import which (ARCHITECTURE.md's "imports point down"),
// and that the request path's packages never link the store. It owns no
// production code and must not be imported.
package archtest
