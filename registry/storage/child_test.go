package storage

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
)

// startChild re-executes this test binary to run only the test named test,
// with env ("NAME=value") added to its environment, and returns the child
// and a scanner of its standard output (its standard error is the
// parent's). The child is killed when t ends, a no-op once it was waited
// for; the crash tests kill it earlier with SIGKILL themselves.
func startChild(t *testing.T, test, env string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, bufio.NewScanner(out)
}
