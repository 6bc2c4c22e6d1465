package main

import (
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/admission"
)

// newExplainWebhookCommands builds `aggsim explain webhook
// <configuration>[/<webhook>]`, `aggsim explain webhook --last-denied` and
// its alias `aggsim explain denied`.
func newExplainWebhookCommands() []*cobra.Command {
	o := &explainOptions{}
	lastDenied := false
	cmd := &cobra.Command{
		Use:     "webhook [CONFIGURATION[/WEBHOOK] | --last-denied]",
		Aliases: []string{"webhooks", "webhookconfiguration"},
		Short:   "Explain an admission webhook configuration, or the last requests admission refused",
		Long: `Without arguments, list every webhook of every Mutating and
ValidatingWebhookConfiguration with its failurePolicy and last call, and
every ValidatingAdmissionPolicy (and MutatingAdmissionPolicy, with
--feature-gates=MutatingAdmissionPolicy=true) with its bindings.
Reads GET ` + aggregator.DebugAdmissionPath + `.

With CONFIGURATION (a Mutating or ValidatingWebhookConfiguration name, both
when both exist), show for each webhook what it matches (rules, scope,
namespaceSelector, objectSelector, matchConditions, matchPolicy,
failurePolicy, sideEffects, timeout), whether it is reachable now (the
Service resolved through Services/Endpoints, a TLS handshake verified against
caBundle for <service>.<namespace>.svc, with the failure and advice), and its
last calls with latency and verdict. /WEBHOOK limits it to one webhook.
Reads GET ` + admission.DebugWebhooksPath + `/CONFIGURATION[/WEBHOOK].

With --last-denied, list the last requests refused by an admission webhook or
a Validating or MutatingAdmissionPolicy (newest first): who refused, the request (user,
verb, resource, namespace/name) and the message the client got.
Reads GET ` + aggregator.DebugAdmissionRefusalsPath + `.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case lastDenied && len(args) == 0:
				return runExplainPath(o, aggregator.DebugAdmissionRefusalsPath, "", cmd.OutOrStdout())
			case lastDenied:
				return errors.New("--last-denied takes no CONFIGURATION")
			case len(args) == 0:
				return runExplainPath(o, aggregator.DebugAdmissionPath, "", cmd.OutOrStdout())
			}
			return runExplainWebhook(o, args[0], cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	cmd.Flags().BoolVar(&lastDenied, "last-denied", false, "list the last requests refused by admission webhooks and ValidatingAdmissionPolicies")
	do := &explainOptions{}
	denied := &cobra.Command{
		Use:     "denied",
		Aliases: []string{"refused", "refusals"},
		Short:   "List the last requests refused by admission webhooks and ValidatingAdmissionPolicies",
		Long: `The same as 'aggsim explain webhook --last-denied': newest first, which webhook
(and configuration) or Validating/MutatingAdmissionPolicy (and binding) refused, the
request (user, verb, resource, namespace/name), the code and the message.
Reads GET ` + aggregator.DebugAdmissionRefusalsPath + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExplainPath(do, aggregator.DebugAdmissionRefusalsPath, "", cmd.OutOrStdout())
		},
	}
	do.addFlags(denied)
	return []*cobra.Command{cmd, denied}
}

// runExplainWebhook GETs the explanation of configuration[/webhook].
func runExplainWebhook(o *explainOptions, name string, out io.Writer) error {
	switch o.output {
	case "", "json":
	default:
		return runExplainPath(o, admission.DebugWebhooksPath, name, out) // reports the bad format
	}
	cfg, err := o.clientConfig()
	if err != nil {
		return err
	}
	return getExplanation(o, cfg, admission.DebugWebhooksPath+"/"+escapeSegments(name), out)
}

// escapeSegments path-escapes each /-separated part of s.
func escapeSegments(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
