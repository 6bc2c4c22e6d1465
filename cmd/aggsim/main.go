package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		os.Exit(1) // cobra already printed "Error: ..." to stderr
	}
}

// newRootCommand builds the aggsim command tree. Tests run it in-process
// with SetArgs/SetOut.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "aggsim",
		Short:         "A standalone Kubernetes API aggregation layer (kube-aggregator) for one machine",
		SilenceUsage:  true, // usage on flag errors only, not on runtime failures
		SilenceErrors: false,
	}
	root.AddCommand(newCertsCommand(), newVersionCommand(), newKubeconfigCommand())
	root.AddCommand(newServeCommand(), newDemoBackendCommand(), newExplainCommand())
	return root
}
