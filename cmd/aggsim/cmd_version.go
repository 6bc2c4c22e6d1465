package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// version is aggsim's own version; release builds set it with
// -ldflags "-X main.version=<v>".
var version = "0.1.0"

// kubeVersion is the kube-apiserver release aggsim emulates.
const kubeVersion = "v1.33.0"

// kubeGitVersion is the gitVersion aggsim reports in /version:
// v1.33.0-aggsim.<version>, a semver pre-release of the emulated release so
// clients that compare versions see 1.33.
func kubeGitVersion() string { return kubeVersion + "-aggsim." + version }

// versionOptions are the flags of `aggsim version`.
type versionOptions struct {
	output string
}

func (o *versionOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output format: '' (text) or json")
}

func newVersionCommand() *cobra.Command {
	o := &versionOptions{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print aggsim's version and the Kubernetes version it emulates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(o, cmd)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// versionInfo is the -o json shape.
type versionInfo struct {
	AggsimVersion string `json:"aggsimVersion"`
	GitVersion    string `json:"gitVersion"`
	GoVersion     string `json:"goVersion"`
}

func runVersion(o *versionOptions, cmd *cobra.Command) error {
	out := cmd.OutOrStdout()
	switch o.output {
	case "":
		fmt.Fprintf(out, "aggsim %s\n", version)
		fmt.Fprintf(out, "Kubernetes %s\n", kubeGitVersion())
		return nil
	case "json":
		b, err := json.MarshalIndent(versionInfo{AggsimVersion: version, GitVersion: kubeGitVersion(), GoVersion: runtime.Version()}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	return fmt.Errorf("--output: unsupported format %q (use json or leave empty)", o.output)
}
