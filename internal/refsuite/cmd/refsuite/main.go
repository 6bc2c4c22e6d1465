package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aggsim/aggsim/internal/refsuite"
)

func main() {
	refRun := flag.String("reference-run", "", "the RUN folder of ../shared/reference/up.sh (kubeconfig, pki/)")
	refURL := flag.String("reference-url", "", "the reference's base URL, https://127.0.0.1:<API_PORT>")
	aggData := flag.String("aggsim-data-dir", "", "aggsim's --data-dir (kubeconfig, pki/)")
	aggURL := flag.String("aggsim-url", "", "aggsim's base URL")
	capture := flag.String("capture", "", "write the reference's transcripts to this folder (with -run, only those scenarios')")
	work := flag.String("work", "", "folder for the kubectl HOMEs (default: a temporary folder)")
	parallel := flag.Int("parallel", 4, "scenarios played at once against each server")
	run := flag.String("run", "", "only scenarios whose name contains this")
	maxDiff := flag.Int("max-diff-lines", 80, "lines of each diff printed")
	captures := flag.String("captures", filepath.Join("testdata", "reference"), "the capture folder whose deliberate-differences.txt and deliberate/ say where aggsim differs on purpose")
	flag.Parse()
	if err := mainErr(*refRun, *refURL, *aggData, *aggURL, *capture, *work, *parallel, *run, *maxDiff, *captures); err != nil {
		fmt.Fprintln(os.Stderr, "refsuite:", err)
		os.Exit(2)
	}
}

func mainErr(refRun, refURL, aggData, aggURL, capture, work string, parallel int, run string, maxDiff int, captures string) error {
	deliberate, err := refsuite.ReadDeliberateDifferences(captures)
	if err != nil {
		return err
	}
	if refRun == "" || refURL == "" || aggData == "" || aggURL == "" {
		return fmt.Errorf("-reference-run, -reference-url, -aggsim-data-dir and -aggsim-url are required")
	}
	if work == "" {
		d, err := os.MkdirTemp("", "refsuite")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	kubectl, err := refsuite.FindKubectl()
	if err != nil {
		return err
	}
	ref := &refsuite.Target{Name: "reference", URL: refURL, Kubeconfig: filepath.Join(refRun, "kubeconfig"),
		CAFile: filepath.Join(refRun, "pki", "ca.crt"), CertFile: filepath.Join(refRun, "pki", "admin.crt"),
		KeyFile: filepath.Join(refRun, "pki", "admin.key"), Kubectl: kubectl, HomeDir: filepath.Join(work, "reference")}
	agg := &refsuite.Target{Name: "aggsim", URL: aggURL, Kubeconfig: filepath.Join(aggData, "kubeconfig"),
		CAFile: filepath.Join(aggData, "pki", "ca.crt"), CertFile: filepath.Join(aggData, "pki", "admin.crt"),
		KeyFile: filepath.Join(aggData, "pki", "admin.key"), Kubectl: kubectl, HomeDir: filepath.Join(work, "aggsim")}
	for _, t := range []*refsuite.Target{ref, agg} {
		if err := t.Prepare(); err != nil {
			return err
		}
		defer t.Close()
	}
	all := refsuite.Scenarios()
	if err := refsuite.Validate(all); err != nil {
		return err
	}
	var scenarios []refsuite.Scenario
	for _, s := range all {
		if strings.Contains(s.Name, run) {
			scenarios = append(scenarios, s)
		}
	}
	ctx := context.Background()
	t0 := time.Now()
	refCh := make(chan map[string]string, 1)
	go func() { refCh <- refsuite.RunAll(ctx, ref, scenarios, parallel) }()
	aggT := refsuite.RunAll(ctx, agg, scenarios, parallel)
	refT := <-refCh
	elapsed := time.Since(t0)
	equal, deliberateCount := 0, 0
	for _, r := range refsuite.Compare(scenarios, refT, aggT) {
		name := r.Scenario.Name
		_, isDeliberate := deliberate[name]
		var expected string
		if isDeliberate {
			if expected, err = refsuite.ReadDeliberateCapture(captures, name); err != nil {
				return err
			}
		}
		j := refsuite.Judge(r, isDeliberate, expected, aggT[name])
		switch j.Verdict {
		case refsuite.Same:
			equal++
			fmt.Printf("same        %s\n", name)
			continue
		case refsuite.DeliberatelyDifferent:
			deliberateCount++
			fmt.Printf("deliberate  %s (README: %q)\n", name, deliberate[name].README)
			continue
		case refsuite.NoLongerDeliberate:
			fmt.Printf("differs     %s: listed as deliberate but answers as the reference\n", name)
			continue
		}
		fmt.Printf("differs     %s\n", name)
		lines := strings.Split(strings.TrimRight(j.Diff, "\n"), "\n")
		if maxDiff >= 0 && len(lines) > maxDiff {
			lines = append(lines[:maxDiff], fmt.Sprintf("... (%d more lines)", len(lines)-maxDiff))
		}
		for _, l := range lines {
			fmt.Println("    " + l)
		}
	}
	if capture != "" {
		if run != "" {
			// Only the scenarios played: rewrite their captures, keep
			// the others.
			for name, tr := range refT {
				if err := os.WriteFile(filepath.Join(capture, name+refsuite.CaptureExt), []byte(tr), 0o644); err != nil {
					return err
				}
			}
		} else if err := refsuite.WriteCaptures(capture, refT); err != nil {
			return err
		}
		fmt.Printf("wrote %d reference transcripts to %s\n", len(refT), capture)
	}
	fmt.Printf("themes: %s\n", strings.Join(refsuite.Themes(scenarios), ", "))
	fmt.Printf("%s (played in %s)\n", refsuite.Summary(equal, deliberateCount, len(scenarios), 0), elapsed.Round(time.Millisecond))
	if equal+deliberateCount < len(scenarios) && capture == "" {
		os.Exit(1)
	}
	return nil
}
