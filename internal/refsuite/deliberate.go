package refsuite

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DeliberateDifferencesFile is the file in the capture folder that lists
// the scenarios on which aggsim differs from the reference on purpose, each
// naming the README paragraph (under DeliberateREADMESection) that says so.
const DeliberateDifferencesFile = "deliberate-differences.txt"

// DeliberateDir is the folder, inside the capture folder, that holds
// aggsim's own normalised transcript of each deliberate scenario
// (deliberate/<scenario>.txt): what aggsim is expected to answer, so that a
// change of aggsim's answer still fails the comparison.
const DeliberateDir = "deliberate"

// DeliberateREADMESection is the README heading under which every
// deliberate difference must be described.
const DeliberateREADMESection = "## How aggsim differs from kube-apiserver"

// Deliberate is one entry of deliberate-differences.txt.
type Deliberate struct {
	// Name is the scenario's name.
	Name string
	// README is a phrase of the README paragraph that describes the
	// difference; it must occur in DeliberateREADMESection (compared with
	// runs of white space folded to one space, as README wraps its lines).
	README string
	// Reason says in one line what differs.
	Reason string
}

// ReadDeliberateDifferences reads dir/deliberate-differences.txt: one
// scenario a line, `<name> "<README phrase>" <reason>` (the phrase in Go
// string syntax); blank lines and lines starting with # are ignored. A
// missing file is an empty list. It returns an error for a line without a
// quoted phrase or a reason, and for a name given twice.
func ReadDeliberateDifferences(dir string) (map[string]Deliberate, error) {
	out := map[string]Deliberate{}
	f, err := os.Open(filepath.Join(dir, DeliberateDifferencesFile))
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %q: want <name> \"<README phrase>\" <reason>", DeliberateDifferencesFile, ln, name)
		}
		phrase, _ := strconv.Unquote(quoted)
		reason := strings.TrimSpace(rest[len(quoted):])
		if strings.TrimSpace(phrase) == "" || reason == "" {
			return nil, fmt.Errorf("%s:%d: %q has no README phrase or no reason", DeliberateDifferencesFile, ln, name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s:%d: %q listed twice", DeliberateDifferencesFile, ln, name)
		}
		out[name] = Deliberate{Name: name, README: phrase, Reason: reason}
	}
	return out, sc.Err()
}

// CheckREADME returns an error unless d's phrase occurs in readme's
// DeliberateREADMESection (up to the next "## " heading).
func (d Deliberate) CheckREADME(readme string) error {
	_, section, ok := strings.Cut(readme, DeliberateREADMESection+"\n")
	if !ok {
		return fmt.Errorf("README has no section %q", DeliberateREADMESection)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	if !strings.Contains(strings.Join(strings.Fields(section), " "), strings.Join(strings.Fields(d.README), " ")) {
		return fmt.Errorf("deliberate difference %s: README section %q does not say %q", d.Name, DeliberateREADMESection, d.README)
	}
	return nil
}

// ReadDeliberateCapture returns aggsim's expected transcript of one
// deliberate scenario (dir/deliberate/<name>.txt).
func ReadDeliberateCapture(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, DeliberateDir, name+CaptureExt))
	return string(b), err
}

// WriteDeliberateCapture writes aggsim's transcript of one deliberate
// scenario to dir/deliberate/<name>.txt.
func WriteDeliberateCapture(dir, name, transcript string) error {
	d := filepath.Join(dir, DeliberateDir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, name+CaptureExt), []byte(transcript), 0o644)
}

// Verdict is how one scenario came out against the captures.
type Verdict int

const (
	// Same: aggsim answered as the reference.
	Same Verdict = iota
	// DeliberatelyDifferent: aggsim differs from the reference as README
	// documents, and answered exactly as its expected transcript.
	DeliberatelyDifferent
	// Differs: aggsim differs from the reference and, for a deliberate
	// scenario, from its expected transcript too (Judgement.Diff says how).
	Differs
	// NoLongerDeliberate: a deliberate scenario now answers as the
	// reference; it belongs off the deliberate list.
	NoLongerDeliberate
)

// Judgement is a Result weighed against the deliberate list.
type Judgement struct {
	Result
	Verdict Verdict
	// Diff is the diff that matters for the verdict: from the reference
	// for an ordinary scenario, from aggsim's expected transcript for a
	// deliberate one; empty for Same and DeliberatelyDifferent.
	Diff string
}

// Judge weighs r: a scenario on the deliberate list must differ from the
// reference and equal expected (aggsim's captured transcript); any other
// scenario must equal the reference. aggsim is the transcript r was
// computed from.
func Judge(r Result, deliberate bool, expected, aggsim string) Judgement {
	j := Judgement{Result: r}
	switch {
	case !deliberate && r.Equal():
		j.Verdict = Same
	case !deliberate:
		j.Verdict, j.Diff = Differs, r.Diff
	case r.Equal():
		j.Verdict = NoLongerDeliberate
	default:
		j.Diff = Diff(DeliberateDir+"/"+r.Scenario.Name, "aggsim/"+r.Scenario.Name, expected, aggsim)
		j.Verdict = DeliberatelyDifferent
		if j.Diff != "" {
			j.Verdict = Differs
		}
	}
	return j
}

// Summary is the closing line of a comparison: `N/M scenarios equal to
// the reference or deliberately different (E equal, D deliberate, see
// README "How aggsim differs from kube-apiserver")` followed by the number
// of known differences when there are any.
func Summary(equal, deliberate, total, known int) string {
	s := fmt.Sprintf("%d/%d scenarios equal to the reference or deliberately different (%d equal, %d deliberate, see README %q)",
		equal+deliberate, total, equal, deliberate, strings.TrimPrefix(DeliberateREADMESection, "## "))
	if known > 0 {
		s += fmt.Sprintf("; %d known differences", known)
	}
	return s
}
