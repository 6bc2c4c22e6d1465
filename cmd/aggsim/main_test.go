package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the aggsim binary that aggsimBinary built (a 20 MB
// temporary folder per test run) once every test has finished.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}
