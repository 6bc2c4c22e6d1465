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
	names := refsuite.Names(scenarios)
	for name := range known {
		if !slices.Contains(allNames, name) {
			t.Errorf("known-differences.txt lists %q, which is no scenario", name)
		}
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
	srv := startServe(t, dataDir)
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

	equal := 0
	for _, r := range refsuite.Compare(scenarios, want, got) {
		name := r.Scenario.Name
		reason, listed := known[name]
		switch {
		case r.Equal() && listed:
			t.Errorf("scenario %s now answers as the reference: remove it from %s (was: %s)", name, refsuite.KnownDifferencesFile, reason)
		case r.Equal():
			equal++
		case !listed:
			t.Errorf("scenario %s differs from the reference (capture %s):\n%s", name,
				filepath.Join("testdata", "reference", name+refsuite.CaptureExt), r.Diff)
		}
	}
	t.Logf("%d/%d scenarios equal to the reference; %d known differences", equal, len(scenarios), len(known))
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
