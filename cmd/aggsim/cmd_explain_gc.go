package main

import (
	"github.com/aggsim/aggsim/aggregator"
	"github.com/spf13/cobra"
)

// newExplainGCCommand builds `aggsim explain garbage-collector`.
func newExplainGCCommand() *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:     "garbage-collector",
		Aliases: []string{"garbagecollector", "gc"},
		Short:   "Explain what keeps the garbage collector from deleting or orphaning dependents",
		Long: `Show whether the garbage collector runs, how many resources it watches, the
group versions whose discovery fails (owners of their kinds cannot be looked
up), the objects it retries with the error, and what would unblock it.
Reads GET ` + aggregator.DebugGarbageCollectorPath + ` from the aggsim server.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExplainPath(o, aggregator.DebugGarbageCollectorPath, "", cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	return cmd
}
