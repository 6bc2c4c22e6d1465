package main

import (
	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/aggregator"
)

// newExplainCRDCommand builds `aggsim explain crd <name>`.
func newExplainCRDCommand() *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:     "crd NAME",
		Aliases: []string{"crds", "customresourcedefinition"},
		Short:   "Explain a CustomResourceDefinition: versions, conditions and its conversion webhook",
		Long: `Show a CustomResourceDefinition's versions (served, storage, deprecated, the
automanaged APIService and whether it is Available), its conditions,
status.storedVersions and conversion strategy; for Webhook conversion whether
the webhook is reachable now (the Service resolved through Services/Endpoints
or the url, a TLS handshake verified against caBundle for
<service>.<namespace>.svc, with the failure and advice), its last conversions
(from and to apiVersion, objects, latency, result) and its last failure.
Reads GET ` + aggregator.DebugCRDsPath + `/NAME from the aggsim server.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplainPath(o, aggregator.DebugCRDsPath, args[0], cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	return cmd
}
