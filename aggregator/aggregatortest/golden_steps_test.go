package aggregatortest

import (
	"bufio"
	"os"
	"strings"
	"sync"
	"testing"
)

// goldenStep is one line of a golden steps file:
// name|method|path|content type|body (the body may hold "|").
type goldenStep struct{ name, method, path, ct, body string }

// readGoldenSteps reads the steps file at path; a missing file or a line
// with fewer than five fields fails the test.
func readGoldenSteps(t *testing.T, path string) []goldenStep {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var steps []goldenStep
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "|", 5)
		if len(parts) != 5 {
			t.Fatalf("bad step line %q", sc.Text())
		}
		steps = append(steps, goldenStep{parts[0], parts[1], parts[2], parts[3], parts[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

// armedMode is the fault a golden webhook answers with, as the steps'
// "arm" lines set it ("" answers correctly). Safe for concurrent use.
type armedMode struct {
	mu   sync.Mutex
	mode string
}

func (a *armedMode) arm(mode string) {
	a.mu.Lock()
	a.mode = mode
	a.mu.Unlock()
}

func (a *armedMode) current() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mode
}
