package refsuite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// CaptureExt is the file name extension of a captured transcript:
// testdata/reference/<scenario>.txt.
const CaptureExt = ".txt"

// KnownDifferencesFile is the file in the capture folder that lists the
// scenarios on which aggsim still differs from the reference.
const KnownDifferencesFile = "known-differences.txt"

// RunAll plays every scenario against t, at most parallel at a time (each
// scenario's own steps run in order), and returns the normalised
// transcripts by scenario name.
func RunAll(ctx context.Context, t *Target, scenarios []Scenario, parallel int) map[string]string {
	parallel = max(1, parallel)
	out := make(map[string]string, len(scenarios))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for _, s := range scenarios {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tr := Transcript(t, s, Run(ctx, t, s))
			mu.Lock()
			out[s.Name] = tr
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// WriteCaptures writes each transcript to dir/<name>.txt and removes
// other .txt captures in dir (scenarios that no longer exist).
func WriteCaptures(dir string, transcripts map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*"+CaptureExt))
	for _, f := range old {
		name := strings.TrimSuffix(filepath.Base(f), CaptureExt)
		if _, ok := transcripts[name]; !ok && filepath.Base(f) != KnownDifferencesFile && filepath.Base(f) != DeliberateDifferencesFile {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for name, tr := range transcripts {
		if err := os.WriteFile(filepath.Join(dir, name+CaptureExt), []byte(tr), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadCapture returns the captured transcript of one scenario.
func ReadCapture(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name+CaptureExt))
	return string(b), err
}

// ReadKnownDifferences reads dir/known-differences.txt: one scenario a
// line, its name, a space and a one-line reason; blank lines and lines
// starting with # are ignored. It returns an error for a line without a
// reason or a name given twice.
func ReadKnownDifferences(dir string) (map[string]string, error) {
	f, err := os.Open(filepath.Join(dir, KnownDifferencesFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, reason, ok := strings.Cut(l, " ")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: %q has no reason", KnownDifferencesFile, ln, name)
		}
		if _, dup := known[name]; dup {
			return nil, fmt.Errorf("%s:%d: %q listed twice", KnownDifferencesFile, ln, name)
		}
		known[name] = strings.TrimSpace(reason)
	}
	return known, sc.Err()
}

// Result is the comparison of one scenario.
type Result struct {
	Scenario Scenario
	// Diff is the unified diff from the reference's transcript to aggsim's;
	// empty when equal.
	Diff string
}

// Equal reports whether the two servers answered alike.
func (r Result) Equal() bool { return r.Diff == "" }

// Compare compares aggsim's transcripts with the reference's, scenario by
// scenario in catalogue order. A scenario missing on either side differs.
func Compare(scenarios []Scenario, reference, aggsim map[string]string) []Result {
	out := make([]Result, 0, len(scenarios))
	for _, s := range scenarios {
		ref, ok1 := reference[s.Name]
		got, ok2 := aggsim[s.Name]
		r := Result{Scenario: s}
		switch {
		case !ok1:
			r.Diff = "no reference transcript\n"
		case !ok2:
			r.Diff = "no aggsim transcript\n"
		default:
			r.Diff = Diff("reference/"+s.Name, "aggsim/"+s.Name, ref, got)
		}
		out = append(out, r)
	}
	return out
}

// Themes returns the themes of scenarios with their scenario counts, in
// first-seen order, formatted "theme (n)".
func Themes(scenarios []Scenario) []string {
	var order []string
	count := map[string]int{}
	for _, s := range scenarios {
		if count[s.Theme] == 0 {
			order = append(order, s.Theme)
		}
		count[s.Theme]++
	}
	out := make([]string, 0, len(order))
	for _, th := range order {
		out = append(out, fmt.Sprintf("%s (%d)", th, count[th]))
	}
	return out
}

// Validate checks a catalogue: names unique, lower-case DNS labels short
// enough that "rs-<name>" is a namespace name, every scenario has a theme
// and a step. It returns the first problem found.
func Validate(scenarios []Scenario) error {
	seen := map[string]bool{}
	for _, s := range scenarios {
		if seen[s.Name] {
			return fmt.Errorf("scenario %q defined twice", s.Name)
		}
		seen[s.Name] = true
		if len(s.Namespace()) > 63 || strings.Trim(s.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" ||
			strings.HasPrefix(s.Name, "-") || strings.HasSuffix(s.Name, "-") {
			return fmt.Errorf("scenario name %q is not a short lower-case DNS label", s.Name)
		}
		if s.Theme == "" || len(s.Steps) == 0 {
			return fmt.Errorf("scenario %q has no theme or no steps", s.Name)
		}
		for i, st := range s.Steps {
			if (st.Kubectl == nil) == (st.Method == "") {
				return fmt.Errorf("scenario %q step %d must be either kubectl or HTTP", s.Name, i+1)
			}
		}
	}
	return nil
}

// Names returns the scenario names in catalogue order.
func Names(scenarios []Scenario) []string {
	out := make([]string, 0, len(scenarios))
	for _, s := range scenarios {
		out = append(out, s.Name)
	}
	return slices.Clip(out)
}
