package refsuite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDeliberateDifferences(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, DeliberateDifferencesFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := ReadDeliberateDifferences(dir); err != nil || len(got) != 0 {
		t.Fatalf("missing file: %v, %v; want an empty list", got, err)
	}
	write("# comment\n\nep-loopback \"Endpoints may hold \\\"loopback\\\" addresses\" accepted (201)\n")
	got, err := ReadDeliberateDifferences(dir)
	want := Deliberate{Name: "ep-loopback", README: `Endpoints may hold "loopback" addresses`, Reason: "accepted (201)"}
	if err != nil || len(got) != 1 || got["ep-loopback"] != want {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{
		"ep-loopback no quoted phrase\n",
		"ep-loopback \"phrase\"\n",
		"ep-loopback \"\" reason\n",
		"a \"p\" r\na \"p\" r\n",
	} {
		write(bad)
		if _, err := ReadDeliberateDifferences(dir); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDeliberateCheckREADME(t *testing.T) {
	readme := "# x\n## Other\nEndpoints may hold loopback addresses\n" + DeliberateREADMESection + "\n- Endpoints may hold\n  loopback addresses (upstream refuses them)\n## Next\nonly here\n"
	if err := (Deliberate{Name: "a", README: "Endpoints may hold loopback addresses (upstream"}).CheckREADME(readme); err != nil {
		t.Errorf("wrapped phrase in the section: %v", err)
	}
	if err := (Deliberate{Name: "a", README: "only here"}).CheckREADME(readme); err == nil {
		t.Error("a phrase from the next section was accepted")
	}
	if err := (Deliberate{Name: "a", README: "x"}).CheckREADME("# no section\n"); err == nil {
		t.Error("a README without the section was accepted")
	}
}

func TestJudge(t *testing.T) {
	s := Scenario{Name: "ep-loopback"}
	same := Result{Scenario: s}
	differs := Result{Scenario: s, Diff: "-status: 422\n+status: 201\n"}
	const aggsim = "status: 201\n"
	tests := []struct {
		name       string
		r          Result
		deliberate bool
		expected   string
		want       Verdict
		wantDiff   bool
	}{
		{"equal", same, false, "", Same, false},
		{"differs", differs, false, "", Differs, true},
		{"deliberate as captured", differs, true, aggsim, DeliberatelyDifferent, false},
		{"deliberate answer changed", differs, true, "status: 200\n", Differs, true},
		{"deliberate now equal", same, true, aggsim, NoLongerDeliberate, false},
	}
	for _, tc := range tests {
		j := Judge(tc.r, tc.deliberate, tc.expected, aggsim)
		if j.Verdict != tc.want || (j.Diff != "") != tc.wantDiff {
			t.Errorf("%s: verdict %d diff %q, want %d (diff %v)", tc.name, j.Verdict, j.Diff, tc.want, tc.wantDiff)
		}
	}
	if j := Judge(differs, true, "status: 200\n", aggsim); !strings.Contains(j.Diff, "-status: 200") || !strings.Contains(j.Diff, "+status: 201") {
		t.Errorf("a changed deliberate answer diffs against the capture: %q", j.Diff)
	}
	want := `216/217 scenarios equal to the reference or deliberately different (215 equal, 1 deliberate, see README "How aggsim differs from kube-apiserver"); 1 known differences`
	if got := Summary(215, 1, 217, 1); got != want {
		t.Errorf("Summary:\n got %s\nwant %s", got, want)
	}
}
