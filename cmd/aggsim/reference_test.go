package main

// TestReferenceCaptures plays the differential suite (internal/refsuite)
// against a fresh `aggsim serve` and compares every transcript with the
// real kube-apiserver 1.33's, captured by `make capture-reference` into
// testdata/reference/. No reference server, etcd or ../shared is needed.
//
// testdata/reference/known-differences.txt lists the scenarios on which
// aggsim still differs (issue 20 is being worked on). The test fails when a
// scenario not on the list differs (printing the diff) and when a listed
// scenario is now equal (remove it from the list: the list only shrinks).
//
// testdata/reference/deliberate-differences.txt lists the scenarios on which
// aggsim differs on purpose, each naming the paragraph of README's "How
// aggsim differs from kube-apiserver" that says so (the test checks the
// paragraph is there). Such a scenario must still differ from the
// reference and answer exactly as aggsim's own transcript in
// testdata/reference/deliberate/; it counts as "deliberate" in the summary.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/aggsim/aggsim/internal/refsuite"
)

// referenceCaptures is the folder make capture-reference writes.
var referenceCaptures = filepath.Join("..", "..", "testdata", "reference")

func TestReferenceCaptures(t *testing.T) {
	kubectl, err := refsuite.FindKubectl()
	if err != nil {
		t.Skipf("no kubectl on PATH: %v", err)
	}
	// The captures hold kubectl 1.33's output; another version prints
	// other texts, which would not be aggsim's difference.
	out, err := exec.Command(kubectl, "version", "--client", "-o", "json").Output()
	var v struct {
		ClientVersion struct{ Major, Minor string } `json:"clientVersion"`
	}
	if err != nil || json.Unmarshal(out, &v) != nil || v.ClientVersion.Major != "1" || strings.TrimSuffix(v.ClientVersion.Minor, "+") != "33" {
		t.Skipf("the captures need kubectl 1.33; %s is %s.%s (%v)", kubectl, v.ClientVersion.Major, v.ClientVersion.Minor, err)
	}
	scenarios := refsuite.Scenarios()
	if err := refsuite.Validate(scenarios); err != nil {
		t.Fatal(err)
	}
	allNames := refsuite.Names(scenarios)
	// AGGSIM_REFSUITE_RUN=<regexp> plays only the scenarios whose names
	// match (while working on a few); the list checks then skip the others.
	if pat := os.Getenv("AGGSIM_REFSUITE_RUN"); pat != "" {
		re, err := regexp.Compile(pat)
		if err != nil {
			t.Fatalf("AGGSIM_REFSUITE_RUN: %v", err)
		}
		scenarios = slices.DeleteFunc(scenarios, func(s refsuite.Scenario) bool { return !re.MatchString(s.Name) })
	}
	known, err := refsuite.ReadKnownDifferences(referenceCaptures)
	if err != nil {
		t.Fatal(err)
	}
	deliberate, err := refsuite.ReadDeliberateDifferences(referenceCaptures)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := refsuite.Names(scenarios)
	for name := range known {
		if !slices.Contains(allNames, name) {
			t.Errorf("%s lists %q, which is no scenario", refsuite.KnownDifferencesFile, name)
		}
	}
	for name, d := range deliberate {
		if !slices.Contains(allNames, name) {
			t.Errorf("%s lists %q, which is no scenario", refsuite.DeliberateDifferencesFile, name)
		}
		if _, ok := known[name]; ok {
			t.Errorf("%q is listed in both %s and %s", name, refsuite.KnownDifferencesFile, refsuite.DeliberateDifferencesFile)
		}
		if err := d.CheckREADME(string(readme)); err != nil {
			t.Error(err)
		}
	}
	// AGGSIM_REFSUITE_WRITE_DELIBERATE=1 writes aggsim's transcripts of the
	// deliberate scenarios to testdata/reference/deliberate/ (after a change
	// to what aggsim answers there on purpose; review the diff).
	writeDeliberate := os.Getenv("AGGSIM_REFSUITE_WRITE_DELIBERATE") != ""
	expected := map[string]string{}
	for _, name := range names {
		if _, ok := deliberate[name]; !ok || writeDeliberate {
			continue
		}
		tr, err := refsuite.ReadDeliberateCapture(referenceCaptures, name)
		if err != nil {
			t.Fatalf("no aggsim transcript for deliberate scenario %s (run with AGGSIM_REFSUITE_WRITE_DELIBERATE=1): %v", name, err)
		}
		expected[name] = tr
	}
	want := map[string]string{}
	for _, name := range names {
		tr, err := refsuite.ReadCapture(referenceCaptures, name)
		if err != nil {
			t.Fatalf("no capture for scenario %s (run make capture-reference): %v", name, err)
		}
		want[name] = tr
	}

	dataDir := t.TempDir()
	// The reference is a bare kube-apiserver, without
	// kube-controller-manager: a deleted namespace stays Terminating there
	// (scenario ns-delete reads it back after the DELETE). aggsim runs the
	// namespace controller by default, which removes an empty namespace
	// within milliseconds, so the suite turns it off, as the reference had
	// it off.
	// The reference runs --authorization-mode=RBAC (shared/reference/up.sh).
	srv := startServe(t, dataDir, "--controllers=-namespace", "--authorization-mode=RBAC")
	target := &refsuite.Target{
		Name: "aggsim", URL: srv.URL, Kubeconfig: srv.Kubeconfig,
		CAFile:   filepath.Join(dataDir, "pki", "ca.crt"),
		CertFile: filepath.Join(dataDir, "pki", "admin.crt"),
		KeyFile:  filepath.Join(dataDir, "pki", "admin.key"),
		Kubectl:  kubectl, HomeDir: filepath.Join(t.TempDir(), "home"),
	}
	if err := target.Prepare(); err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	// Scenarios are independent (own namespace, own cluster-scoped names);
	// kubectl start-up dominates, so run several at once.
	parallel := max(4, 2*runtime.NumCPU())
	got := refsuite.RunAll(context.Background(), target, scenarios, parallel)

	equal, deliberateCount := 0, 0
	for _, r := range refsuite.Compare(scenarios, want, got) {
		name := r.Scenario.Name
		reason, listed := known[name]
		d, isDeliberate := deliberate[name]
		if isDeliberate && writeDeliberate {
			if err := refsuite.WriteDeliberateCapture(referenceCaptures, name, got[name]); err != nil {
				t.Fatal(err)
			}
			expected[name] = got[name]
		}
		j := refsuite.Judge(r, isDeliberate, expected[name], got[name])
		switch {
		case j.Verdict == refsuite.NoLongerDeliberate:
			t.Errorf("deliberate scenario %s now answers as the reference: remove it from %s and README (was: %s)", name, refsuite.DeliberateDifferencesFile, d.Reason)
		case j.Verdict == refsuite.DeliberatelyDifferent:
			deliberateCount++
		case j.Verdict == refsuite.Differs && isDeliberate:
			t.Errorf("deliberate scenario %s no longer answers as aggsim's capture %s (README: %q):\n%s", name,
				filepath.Join("testdata", "reference", refsuite.DeliberateDir, name+refsuite.CaptureExt), d.README, j.Diff)
		case j.Verdict == refsuite.Same && listed:
			t.Errorf("scenario %s now answers as the reference: remove it from %s (was: %s)", name, refsuite.KnownDifferencesFile, reason)
		case j.Verdict == refsuite.Same:
			equal++
		case !listed:
			t.Errorf("scenario %s differs from the reference (capture %s):\n%s", name,
				filepath.Join("testdata", "reference", name+refsuite.CaptureExt), j.Diff)
		}
	}
	t.Log(refsuite.Summary(equal, deliberateCount, len(scenarios), len(known)))
	if os.Getenv("AGGSIM_REFSUITE_LIST") != "" {
		// AGGSIM_REFSUITE_LIST=1 prints the differing scenarios in the
		// known-differences format, to start a new list.
		var lines []string
		for _, r := range refsuite.Compare(scenarios, want, got) {
			if !r.Equal() {
				lines = append(lines, r.Scenario.Name+" "+known[r.Scenario.Name])
			}
		}
		t.Logf("differing:\n%s", strings.Join(lines, "\n"))
	}
}
