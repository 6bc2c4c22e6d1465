package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// runRoot runs the root command in-process and returns what it printed.
func runRoot(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestVersionCommand(t *testing.T) {
	out, err := runRoot(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	if want := "aggsim 0.1.0\nKubernetes v1.33.0-aggsim.0.1.0\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}

	out, err = runRoot(t, "version", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v != (versionInfo{AggsimVersion: "0.1.0", GitVersion: "v1.33.0-aggsim.0.1.0", GoVersion: runtime.Version()}) {
		t.Errorf("json %+v", v)
	}
	if !strings.HasPrefix(out, "{\n  \"aggsimVersion\": \"0.1.0\",\n") {
		t.Errorf("json output not indented in field order: %q", out)
	}

	if _, err := runRoot(t, "version", "-o", "yaml"); err == nil || err.Error() != `--output: unsupported format "yaml" (use json or leave empty)` {
		t.Errorf("-o yaml err = %v", err)
	}
}

func TestKubeGitVersionFollowsVersion(t *testing.T) {
	old := version
	defer func() { version = old }()
	version = "1.2.3"
	if got := kubeGitVersion(); got != "v1.33.0-aggsim.1.2.3" {
		t.Errorf("kubeGitVersion() = %q", got)
	}
}
